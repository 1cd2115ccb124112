"""Verification that scales (issue 25 item 4): work is counted, never timed."""
from __future__ import annotations

from polyhedral import memo
from verified_sched.dsl import parse_file
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json


def test_winograd_isl_maps_are_parsed_once_per_text(repo_root, monkeypatch):
    """Winograd's access, box and provenance maps go through the process-wide parse cache:
    verifying the file again parses nothing new, and repeats within one file are hits."""
    monkeypatch.setattr(memo, "_PARSED", {})
    monkeypatch.setattr(memo, "PARSE_STATS", {"hits": 0, "misses": 0})
    program = parse_file(repo_root / "examples" / "winograd_odd.vs")
    assert file_report_json(verify_program(program), "w")["verdict"] == "legal"
    first = dict(memo.PARSE_STATS)
    assert first["misses"] == len(memo._PARSED) and first["hits"] > 0  # noqa: SLF001
    assert file_report_json(verify_program(program), "w")["verdict"] == "legal"
    assert memo.PARSE_STATS["misses"] == first["misses"]


NESTED_SPLITS = """params T where T >= 1
tensor x[256 * T] f32
tensor y[256 * T] f32
kernel k {
  for i0 in 0 .. 256 * T {
    y[i0] = x[i0]
  }
}
schedule k {
""" + "".join(f"  split i{k} by 2 -> i{k + 1}, j{k + 1}\n" for k in range(8)) + "}\n"


def test_nested_splits_affine_text_walks_no_leaf(monkeypatch):
    """isl text of the deepened nest's indices (`c * v` terms) asks `_has_symbol` of every
    factor: a constant or a variable answers without walking it (was 10688 walks at 16 splits)."""
    from polyhedral import affine
    from verified_sched.dsl import parse_text

    program = parse_text(NESTED_SPLITS)
    walks = []
    real = affine.nodes_of  # what `_has_symbol` walks a compound factor with
    monkeypatch.setattr(affine, "nodes_of", lambda e, cls: walks.append(e) or real(e, cls))
    assert file_report_json(verify_program(program), "s")["verdict"] == "legal"
    assert walks == []


def _nested_splits(n: int) -> str:
    ops = "".join(f"  split i{k} by 2 -> i{k + 1}, j{k + 1}\n" for k in range(n))
    return (f"params T where T >= 1\ntensor x[{2 ** n} * T] f32\ntensor y[{2 ** n} * T] f32\n"
            f"kernel k {{\n  for i0 in 0 .. {2 ** n} * T {{\n    y[i0] = x[i0]\n  }}\n}}\n"
            f"schedule k {{\n{ops}}}\n")


def _apply_all(text: str):
    from verified_sched.dsl import parse_text
    from verified_sched.ops import apply_op
    from verified_sched.ops.common import pin_provenance

    program = parse_text(text)
    for op in program.schedule_for("k").ops:
        program = apply_op(pin_provenance(program, "k"), "k", op)
    return program


def test_nested_splits_simplifier_states_facts_linearly(monkeypatch):
    """Each split's simplification entered every loop of the deepened nest and turned each
    loop's bounds into isl text (and parsed the whole nest's context to drop the tail guard):
    quadratic in the splits. Now a fact becomes text only when a decision states it, and the
    guard is decided over the facts that share its names: the texts grow linearly."""
    from verified_sched.analysis import simplify

    counts, real = {}, simplify.isl_cond
    for n in (8, 16):
        calls = []
        monkeypatch.setattr(simplify, "isl_cond", lambda c, calls=calls: calls.append(c) or real(c))
        _apply_all(_nested_splits(n))
        counts[n] = len(calls)
    assert counts[16] <= 2 * counts[8], counts  # 64 and 128 (were 164 and 520)


def test_context_decides_over_the_facts_sharing_names():
    """A condition is decided over the facts connected to its names (params included): the
    unrelated loop j is left out, the chain i -> k -> N is kept."""
    from verified_sched.core.ir import Cmp, Int, Var
    from verified_sched.analysis.simplify import Context

    i, j, k, n = Var("i"), Var("j"), Var("k"), Var("N")
    ctx = Context(("N",), ()).with_iter("k").add(Cmp("<", k, n)).add(Cmp(">=", k, Int(0)))
    ctx = ctx.with_iter("j").add(Cmp(">=", j, Int(5))).with_iter("i").add(Cmp("<", i, k))
    ctx = ctx.add(Cmp(">=", i, Int(0)))
    facts, iters = ctx._relevant({"i"})  # noqa: SLF001
    assert iters == ("k", "i") and not any("v_j" in f for f in facts)
    assert ctx.decide(Cmp("<", i, n)) is True
    assert ctx.decide(Cmp(">", j, Int(4))) is True
    assert ctx.decide(Cmp("<", i, Int(3))) is None
    assert ctx.facts and ctx.exact


def _one_cell(n: int) -> str:
    stmts = "\n".join(f"  s[0] += x[{k}]" for k in range(n))
    return (f"params N where N >= {n}\ntensor x[N] f32\ntensor y[N] f32\ntensor s[1] f32\n"
            f"kernel k {{\n{stmts}\n  for i in 0 .. N {{\n    y[i] = x[i]\n  }}\n}}\n"
            "schedule k {\n  split i by 4 -> io, ii\n}\n")


def test_one_cell_accumulations_pair_per_operator_not_per_statement_pair(monkeypatch):
    """`same_acc_op` parsed one universe map per pair of accumulation statements (n^2 for n
    statements on one cell) and added them to a union one at a time; now one product per
    operator, equal to the pairwise union."""
    import islpy as isl

    from polyhedral import model as model_mod
    from polyhedral.model import KernelModel
    from verified_sched.dsl import parse_text

    m = KernelModel(parse_text(_one_cell(12)), "k")
    parsed = []
    real = model_mod.isl_map
    monkeypatch.setattr(model_mod, "isl_map", lambda t, real=real: parsed.append(t) or real(t))
    got = m.same_acc_op()
    assert parsed == []
    acc = [st for st in m.stmts if st.acc_op is not None]
    want = [isl.Map(m.space(f"{m.tup(a, 'a')} -> {m.tup(b, 'b')}")) for a in acc for b in acc]
    assert len(acc) == 12 and got.is_equal(m.union_map(want))


def test_union_map_merges_in_rounds_equal_to_one_at_a_time():
    import islpy as isl

    from polyhedral.model import KernelModel
    from verified_sched.dsl import parse_text

    m = KernelModel(parse_text(_one_cell(2)), "k")
    maps = [isl.Map(f"[N] -> {{ S{k % 3}[i] -> T[i + {k}] : 0 <= i < N }}") for k in range(7)]
    seq = isl.UnionMap.from_map(maps[0])
    for x in maps[1:]:
        seq = seq.union(isl.UnionMap.from_map(x))
    assert m.union_map(maps).is_equal(seq)
    assert m.union_map([]).is_empty()


def test_32_one_cell_statements_are_decided():
    """32 statements updating one cell (issue 25: the pairwise work exhausted isl's budget)."""
    from verified_sched.dsl import parse_text

    assert file_report_json(verify_program(parse_text(_one_cell(32))), "c")["verdict"] == "legal"


def test_one_cell_dependences_parse_no_map_per_statement_pair(monkeypatch):
    """Two top-level statements are ordered by their positions alone: their pieces of the
    dependences and of the order are the conflicting pairs / the domains' product as they
    are, not a map parsed and intersected per statement pair (n^2 for n statements)."""
    from polyhedral import model as model_mod
    from polyhedral import order
    from polyhedral.model import KernelModel
    from verified_sched.dsl import parse_text

    counts = {}
    for n in (8, 16):
        m = KernelModel(parse_text(_one_cell(n)), "k")
        m.conflicts  # noqa: B018 - built first: only the order's maps are counted
        parsed = []
        for mod in (model_mod, order):
            real = getattr(mod, "isl_map")
            monkeypatch.setattr(mod, "isl_map", lambda t, real=real, parsed=parsed: parsed.append(t) or real(t))
        assert not m.dependences.is_empty()
        assert not order.before_on(m, m.dependences).is_empty()
        counts[n] = len(parsed)
        monkeypatch.undo()
    assert counts[8] == counts[16] <= 1, counts  # (the loop statement with itself)


def test_conflicts_equal_writes_against_all_accesses():
    """`conflicts` composes the write-write pairs once: the same relation as W.A^-1 + A.W^-1."""
    from polyhedral.model import KernelModel
    from verified_sched.dsl import parse_text

    text = """params N where N >= 2
tensor x[N] f32
tensor y[N] f32
tensor s[1] f32
kernel k {
  for i in 0 .. N {
    y[i] = x[i] + y[N - 1 - i]
    s[0] += y[i]
  }
  x[0] = s[0]
}
"""
    m = KernelModel(parse_text(text), "k")
    w, a = m.writes, m.accesses
    assert m.conflicts.is_equal(w.apply_range(a.reverse()).union(a.apply_range(w.reverse())))


# ---------------------------------------------------------------- coalesced models (nested splits)


def _model_depths(monkeypatch):
    """Record the deepest statement of every model the generic obligations build on coalesced
    kernels (verify/coalesced.py)."""
    from verified_sched.verify import coalesced

    depths = []
    real = coalesced.KernelModel

    def model(*args, **kwargs):
        m = real(*args, **kwargs)
        depths.append(max((st.depth for st in m.stmts), default=0))
        return m
    monkeypatch.setattr(coalesced, "KernelModel", model)
    return depths


def test_nested_splits_generic_goals_are_proved_on_one_dimension(monkeypatch):
    """n nested splits deepened every op's polyhedral problems by one loop (37k ir.walk, isl sets
    of n + 1 dimensions at each of n ops: slope 1.67 over n). Each op's generic obligations are
    now proved on coalesced models, one loop deep whatever the nest's depth: the dimensions
    isl sees grow linearly with n (the sum over ops), not quadratically."""
    from verified_sched.dsl import parse_text
    from verified_sched.verify import coalesced

    totals = {}
    for n in (8, 16):
        depths = _model_depths(monkeypatch)
        before = dict(coalesced.STATS)
        assert file_report_json(verify_program(parse_text(_nested_splits(n))), "s")["verdict"] == "legal"
        assert coalesced.STATS["proved"] - before["proved"] == n  # every op, no fallback
        assert len(depths) == 2 * n and max(depths) == 1
        totals[n] = sum(depths)
        monkeypatch.undo()
    assert totals[16] == 2 * totals[8]


def test_nested_splits_simplifier_compares_no_subtrees(monkeypatch):
    """The simplifier tested each loop's new body against its old one with `==`, comparing the
    whole subtree below every loop of the nest (quadratic in its depth); it tests identity now.
    Node equality is asked a bounded number of times per op, however deep the nest."""
    from verified_sched.core import ir_nodes

    counts = {}
    for n in (8, 16):
        calls = []
        real = ir_nodes.For.__eq__
        monkeypatch.setattr(ir_nodes.For, "__eq__", lambda a, b, real=real, calls=calls: calls.append(1) or real(a, b))
        _apply_all(_nested_splits(n))
        counts[n] = len(calls)
        monkeypatch.undo()
    assert counts[16] <= 2 * counts[8] + 4, counts


def test_linear_form_of_a_long_sum_adds_in_place():
    """A left-deep sum of k terms: one dict grows (was one copy per level: O(k^2))."""
    from verified_sched.analysis.linear_index import linear_form, norm_index
    from verified_sched.core.ir import BinOp, Int, Var

    e = Var("v0")
    for k in range(1, 40):
        e = BinOp("+", e, BinOp("*", Int(2 ** k), Var(f"v{k}")))
    e = BinOp("-", e, BinOp("*", Int(2), Var("v1")))
    terms, const = linear_form(e)
    assert const == 0 and Var("v1") not in terms  # the zero coefficient is dropped
    assert len(terms) == 39 and terms[Var("v39")] == 2 ** 39
    assert norm_index(norm_index(e)) == norm_index(e)


def _verify_both_ways(monkeypatch, text: str):
    """The file's report with and without the coalesced fast path (times dropped)."""
    from verified_sched.dsl import parse_text
    from verified_sched.verify import coalesced

    def timeless(x):
        if isinstance(x, dict):
            return {k: timeless(v) for k, v in x.items() if k != "seconds"}
        return [timeless(v) for v in x] if isinstance(x, list) else x

    def report():
        return timeless(file_report_json(verify_program(parse_text(text)), "f"))
    fast = report()
    monkeypatch.setattr(coalesced, "coalesced_obligations", lambda ctx, decide: None)
    slow = report()
    monkeypatch.undo()
    return fast, slow


def test_coalesced_refutation_falls_back_to_the_original_models(monkeypatch):
    """A split whose round_up tail reads past the end: in_bounds is refuted on the coalesced
    models too, so nothing is taken from them; the report (messages, counterexamples) is the
    one the original models give."""
    from verified_sched.verify import coalesced

    text = ("params N where N >= 1\ntensor x[N] f32\ntensor y[N] f32\n"
            "kernel k {\n  for i in 0 .. N {\n    y[i] = x[i]\n  }\n}\n"
            "schedule k {\n  split i by 4 -> io, ii tail=round_up\n}\n")
    before = dict(coalesced.STATS)
    fast, slow = _verify_both_ways(monkeypatch, text)
    assert coalesced.STATS["tried"] > before["tried"] and coalesced.STATS["proved"] == before["proved"]
    assert fast["verdict"] == "illegal" and fast == slow


def test_coalesced_dependence_violation_reports_the_original_pair(monkeypatch):
    """`reverse ii` after a split breaks the chain after the op (ii's coefficient is -1): the
    dependence is refuted and reported on the original loops."""
    text = ("params N where N >= 1\ntensor x[N] f32\ntensor y[4 * N + 1] f32\n"
            "kernel k {\n  for i in 0 .. 4 * N {\n    y[i + 1] = y[i] + x[0]\n  }\n}\n"
            "schedule k {\n  split i by 4 -> io, ii\n  reverse ii\n}\n")
    fast, slow = _verify_both_ways(monkeypatch, text)
    assert fast["verdict"] == "illegal" and fast == slow


def _calls_in_one_verification(program, codes: dict) -> tuple:
    """(every Python call, calls of each named code object) in one warm verification."""
    import sys

    total, counts = [0], dict.fromkeys(codes.values(), 0)

    def prof(frame, event, arg):
        if event == "call":
            total[0] += 1
            name = codes.get(frame.f_code)
            if name is not None:
                counts[name] += 1

    assert file_report_json(verify_program(program), "s")["verdict"] == "legal"  # warm the caches
    old = sys.getprofile()
    sys.setprofile(prof)
    try:
        verdict = file_report_json(verify_program(program), "s")["verdict"]
    finally:
        sys.setprofile(old)
    assert verdict == "legal"
    return total[0], counts


def test_nested_splits_index_work_per_op_does_not_grow_with_depth():
    """Each split of the deepening nest re-walked its index expression (n terms) in the
    substitution, the simplifier's canonical form, the coalescing, the int64 interval check
    and well-formedness: O(n) per op, O(n^2) per verification (calls grew ~4x per doubling
    of n). Canonical forms are now recorded on the rendered index and substituted as forms,
    so those walks happen a constant number of times per op (about 2x per doubling), and the
    whole verification's Python calls grow well below 4x."""
    from verified_sched.analysis import int_range, linear_index, wellformed
    from verified_sched.dsl import parse_text

    codes = {linear_index._form.__code__: "form", linear_index.render_linear.__code__: "render",  # noqa: SLF001
             int_range.Interval.__call__.__code__: "interval",
             wellformed._Checker.index.__code__: "wf_index"}  # noqa: SLF001
    runs = {n: _calls_in_one_verification(parse_text(_nested_splits(n)), codes) for n in (8, 16, 32)}
    for small, big in ((8, 16), (16, 32)):
        for name in ("form", "render", "interval", "wf_index"):
            assert runs[big][1][name] <= 2.3 * runs[small][1][name], (name, runs)
        assert runs[big][0] <= 2.6 * runs[small][0], runs  # all calls (main: 2.6x, 2.9x)
