"""split_reduction's obligations as goals (ops/split_reduction/proofs.py, proofs_dynamic.py):
which query states each obligation, that an isl goal's violation set is exactly what it says
(empty when proved; its sample the witness pair of the counterexample), and that a missing
statement makes a goal unknown when stated, never proved."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from polyhedral.isltools import point_of
from verified_sched.core import ir
from verified_sched.verify.discharge import discharge, discharge_one
from verified_sched.dsl import parse_text
from verified_sched.core.obligations import AllOf, Decided, IslEmpty, Procedure
from verified_sched.ops import apply_op
from verified_sched.ops import split_reduction
from verified_sched.ops.common import pin_provenance
from verified_sched.verify.driver import OpContext

STATIC = ("params N, R, K where N >= 1, R >= 1, K >= 1\ntensor x[N, R, K] f32\ntensor s[N, R] f32\n"
          "kernel r {\n  zero s\n  for i in 0 .. N {\n    for q in 0 .. R {\n      for k in 0 .. K {\n"
          "        s[INDEX] += x[i, q, k]\n      }\n    }\n  }\n}\n"
          "schedule r {\n  split_reduction k of s blocks=BLOCKS -> kb, kk, sp\n}\n")
DYNAMIC = ("params N, V, D where N >= 1, V >= 1, D >= 1\ntensor ids[N] i32\ntensor g[N, D] f32\n"
           "tensor emb[V, D] f32\nkernel r {\n  zero emb\n  for n in 0 .. N {\n    for d in 0 .. D {\n"
           "      emb[ids[n], d] += g[n, d]\n    }\n  }\n}\n"
           "schedule r {\n  split_reduction n of emb blocks=3 -> nb, ni, ep\n}\n")


def _ctx(src, profile="default", mutate=lambda p: p):
    p = pin_provenance(parse_text(src), "r")
    op = p.schedule_for("r").ops[0]
    return OpContext(p, mutate(apply_op(p, "r", op)), "r", op, 1, profile, 10.0, float("inf"))


def _static(index="i, q", blocks=4):
    return STATIC.replace("INDEX", index).replace("BLOCKS", str(blocks))


def _goals(ctx):
    return {g.kind: g for g in split_reduction.obligations(ctx)}


@pytest.mark.parametrize("src", [_static(), DYNAMIC], ids=["affine", "dynamic"])
def test_each_obligation_is_stated_by_its_query(src):
    goals = _goals(_ctx(src))
    assert list(goals) == ["injective_partials", "equivalence", "reassociation"]
    assert isinstance(goals["injective_partials"].query, AllOf)
    parts = goals["injective_partials"].query.parts()
    assert len(parts) == 2 and all(isinstance(x, IslEmpty) for x in parts)
    assert isinstance(goals["reassociation"].query, IslEmpty)
    assert isinstance(goals["equivalence"].query, Procedure)  # a chain of isl and structural steps
    # no two instances share a partial (or target) cell; terms do meet on a cell (a reported regrouping)
    assert all(point_of(x.violations()) is None for x in parts)
    assert point_of(goals["reassociation"].query.violations()) is not None
    assert all(o.status == "proved" for o in discharge(goals.values(), float("inf"), 1, "op"))


def test_injectivity_violations_are_pairs_writing_one_partial_cell():
    """The target indexed by i only: two iterations of q share a partial cell (and the combine
    writes one target cell twice). Each part's sample is its witness: two instances, same i
    (and block), different q; the first part (the initialization's) answers the goal."""
    ctx = _ctx(_static(index="i, 0"))
    goal = _goals(ctx)["injective_partials"]
    init, comb = goal.query.parts()
    d = init.witness(point_of(init.violations()))
    assert d.status == "refuted" and "same partial cell" in d.message
    c = comb.witness(point_of(comb.violations()))
    assert c.status == "refuted" and "same target cell" in c.message
    ca, cb = c.counterexample.to_json()["instances"]
    assert ca["at"]["i_c"] == cb["at"]["i_c"] and ca["at"]["q_c"] != cb["at"]["q_c"]
    a, b = d.counterexample.to_json()["instances"]
    assert a["at"]["i"] == b["at"]["i"] and a["at"]["kb"] == b["at"]["kb"] and a["at"]["q"] != b["at"]["q"]
    assert a["writes"] == b["writes"]  # the same cell of sp
    [o] = discharge_one(goal, float("inf"), 1, "op")
    assert o.status == "refuted" and o.counterexample.to_json()["instances"] == [a, b]


def test_duplicate_terms_refuted_only_under_reproducible():
    """The reassociation goal's violations are the pairs of original terms meeting on a target
    cell: reported under the default profile, refused under reproducible with the pair."""
    src = _static()
    default = discharge_one(_goals(_ctx(src))["reassociation"], float("inf"))[0]
    assert default.status == "proved" and default.reassociates
    strict = discharge_one(_goals(_ctx(src, "reproducible"))["reassociation"], float("inf"))[0]
    assert strict.status == "refuted" and not strict.reassociates
    a, b = strict.counterexample.to_json()["instances"]
    assert (a["at"]["i"], a["at"]["q"]) == (b["at"]["i"], b["at"]["q"]) and a["at"]["k"] != b["at"]["k"]
    assert a["writes"] == b["writes"]


def test_a_single_term_per_cell_is_not_a_reassociation():
    """K = 1: no two terms meet; the violation set is empty, also under reproducible."""
    src = _static().replace("K >= 1", "K == 1")
    goal = _goals(_ctx(src, "reproducible"))["reassociation"]
    assert point_of(goal.query.violations()) is None
    [o] = discharge_one(goal, float("inf"))
    assert o.status == "proved" and not o.reassociates and o.message == "no cell receives two terms"


def test_dynamic_block_clash_is_a_pair_of_blocks():
    """Every block scatters into slice 0: the violations are pairs of scatter instances of
    different blocks (whatever rows), the witness names both."""
    def one_slice(prog):
        def fn(n):
            if isinstance(n, ir.Assign) and n.tensor == "ep":
                idx = (ir.Int(0),) + n.index[1:]
                return dataclasses.replace(n, index=idx, value=ir.BinOp("+", ir.Load("ep", idx),
                                                                          ir.accumulation(n)[1]))
            return None
        k = prog.kernel("r")
        return prog.with_kernel(dataclasses.replace(k, body=tuple(ir.rewrite(s, fn) for s in k.body)))
    goal = _goals(_ctx(DYNAMIC, mutate=one_slice))["injective_partials"]
    [o] = discharge_one(goal, float("inf"))
    a, b = o.counterexample.to_json()["instances"]
    assert o.status == "refuted" and "two blocks may write the same cell of ep" in o.message
    assert a["at"]["nb"] != b["at"]["nb"]


def test_dynamic_rows_chosen_equal_refute_under_reproducible():
    [o] = discharge_one(_goals(_ctx(DYNAMIC, "reproducible"))["reassociation"], float("inf"))
    assert o.status == "refuted"
    assert [x["value"] for x in o.counterexample.to_json()["data"]] == [0, 0]
    assert {x["tensor"] for x in o.counterexample.to_json()["data"]} == {"ids"}


def test_a_missing_combine_is_unknown_when_stated():
    """Without the combine the affine goals cannot be stated: unknown (Decided when stated),
    never a vacuous proof over an empty relation."""
    def no_combine(prog):
        k = prog.kernel("r")
        return prog.with_kernel(dataclasses.replace(k, body=k.body[:-1]))
    goals = _goals(_ctx(_static(), mutate=no_combine))
    for kind in ("injective_partials", "equivalence"):
        assert isinstance(goals[kind].query, Decided) and goals[kind].query.status == "unknown"


@settings(max_examples=12, deadline=None)
@given(blocks=hst.integers(1, 6), pinned=hst.booleans())
def test_injectivity_goal_matches_whether_the_index_pins_every_enclosing_loop(blocks, pinned):
    """Property: injective_partials is proved exactly when T's index pins every loop enclosing
    the reduction loop; otherwise its witness is a pair sharing a partial cell."""
    goal = _goals(_ctx(_static(index="i, q" if pinned else "i, 0", blocks=blocks)))["injective_partials"]
    [o] = discharge_one(goal, float("inf"))
    assert o.status == ("proved" if pinned else "refuted")
    if not pinned:
        a, b = o.counterexample.to_json()["instances"]
        assert a["writes"] == b["writes"] and a["at"] != b["at"]
