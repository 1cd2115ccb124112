"""Issue 25 item 3 (campaign throughput): the dependence obligation builds the before model's
reduction pairs (`KernelModel.reductions`, costly: the resets between accumulations) only
when some dependence changes order. When every dependence keeps its order, no reduction pair
can be reversed (the reversed ones are a subset of the violated ones), so the verdict and its
message are the same without them. Work is counted (was the cached property built?), not
time."""
from __future__ import annotations

from polyhedral import checks
from polyhedral.model import KernelModel
from verified_sched.dsl import parse_text
from verified_sched.ops import apply_op
from verified_sched.ops.common import pin_provenance
from verified_sched.verify.driver import verify_program

SUM = """
params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor y[N] f32
kernel rows {
  for i in 0 .. N {
    for k in 0 .. K {
      y[i] += x[i, k]
    }
  }
}
schedule rows {
  OP
}
"""


def _models(op_text: str):
    prog = parse_text(SUM.replace("OP", op_text), "k.vs")
    (op,) = prog.schedule_for("rows").ops
    before = pin_provenance(prog, "rows")
    after = apply_op(before, "rows", op)
    return KernelModel(before, "rows", tag="B"), KernelModel(after, "rows", tag="A")


def test_kept_order_builds_no_reductions():
    mb, ma = _models("reverse i")  # rows are independent: every dependence keeps its order
    dep, red = checks.dependence(mb, ma, "reproducible")
    assert (dep.status, red.status) == ("proved", "proved")
    assert red.message == "no reduction is reordered"
    assert "reductions" not in mb.__dict__ and "reductions" not in ma.__dict__


def test_changed_order_still_builds_reductions_and_refutes():
    mb, ma = _models("reverse k")  # reorders each row's sum: a reassociation
    dep, red = checks.dependence(mb, ma, "reproducible")
    assert "reductions" in mb.__dict__
    assert dep.status == "proved" and red.status == "refuted"


def test_verdicts_of_both_through_the_driver():
    for op, verdict in (("reverse i", "legal"), ("reverse k", "illegal")):
        (rep,) = verify_program(parse_text(SUM.replace("OP", op), "k.vs"), profile="reproducible", timeout=60.0)
        assert rep.verdict == verdict, (op, [(o.kind, o.status, o.message) for o in rep.obligations])


def _counting_equal_stores(monkeypatch) -> list:
    calls = []
    real = checks.equal_stores

    def counted(model, *a, **k):
        calls.append(model.tag)
        return real(model, *a, **k)
    monkeypatch.setattr(checks, "equal_stores", counted)
    return calls


def test_kept_order_builds_no_equal_store_pairs(monkeypatch):
    calls = _counting_equal_stores(monkeypatch)
    mb, ma = _models("reverse i")
    dep, red = checks.dependence(mb, ma, "default")
    assert (dep.status, red.status, calls) == ("proved", "proved", [])


def test_changed_order_subtracts_equal_store_pairs(monkeypatch):
    calls = _counting_equal_stores(monkeypatch)
    mb, ma = _models("reverse k")
    dep, red = checks.dependence(mb, ma, "default")
    assert calls == ["B"] and dep.status == "proved" and red.reassociates


# ---------------------------------------------------------------- coverage skeletons

SPLIT = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    y[i] = x[i] * 2.0 + 1.0
  }
}
schedule k {
  split i by 4 -> io, ii partition=always
}
"""

WHERE = SPLIT.replace("x[i] * 2.0 + 1.0", "where(i < 3, x[i], 0.0)")


def _coverage_counting(monkeypatch, text: str):
    from polyhedral import coverage
    calls, maps = [], []
    real, real_map = coverage._skeleton, coverage._make_leaf_map

    def counted(model, st, dom):
        calls.append(model.tag)
        return real(model, st, dom)

    def counted_map(model, st, leaves, prefix):
        maps.append(model.tag)
        return real_map(model, st, leaves, prefix)
    monkeypatch.setattr(coverage, "_skeleton", counted)
    monkeypatch.setattr(coverage, "_COVERED", {})  # decided here, not known from an earlier test
    monkeypatch.setattr(coverage, "_make_leaf_map", counted_map)
    prog = parse_text(text, "k.vs")
    (op,) = prog.schedule_for("k").ops
    before = pin_provenance(prog, "k")
    after = apply_op(before, "k", op)
    mb, ma = KernelModel(before, "k", tag="B"), KernelModel(after, "k", tag="A")
    out = checks.coverage(mb, ma, checks.idempotent_fn(ma))
    return out, calls, len(mb.stmts), len(ma.stmts), maps


def test_coverage_builds_each_skeleton_once_without_where(monkeypatch):
    out, calls, nb, na, maps = _coverage_counting(monkeypatch, SPLIT)
    assert out.status == "proved" and na == 2  # two segments of the partitioned split
    assert len(calls) == nb + na  # once per statement, not once per pair (was 2 * na * nb)
    assert len(maps) == nb + na  # the leaf maps too


def test_coverage_with_a_where_decides_it_per_pair(monkeypatch):
    out, calls, nb, na, _ = _coverage_counting(monkeypatch, WHERE)
    assert out.status == "proved"
    assert len(calls) == 2 * nb * na  # the where is decided on each pair's own instances
