"""stage verification: the corpus verdicts, the dataflow obligation refuting broken staged
nests (missing barriers, redundant writers, wrong cells), the z3 swizzle bijection and the
pipeline rotation."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from polyhedral.model import KernelModel
from verified_sched.verify.discharge import decide
from verified_sched.core.ir import Var
from verified_sched.core.obligations import Goal, Z3Implies
from verified_sched.ops.stage.dataflow import STATEMENT, tile_dataflow
from verified_sched.ops.stage.proofs import rotation_goal
from verified_sched.ops.stage.swizzle import BIJECTION, bijection
from verified_sched.ops.stage.tile import swizzle_col
from verified_sched.core import ir
from verified_sched.ops import apply_op

from test_stage_support import broadcast, case, cpu, lanes, rowsum, scheduled, stage_obligations


@pytest.mark.parametrize("name", ["stage_shared_matmul", "stage_swizzle_matmul"])
def test_corpus_stage_cases_are_legal_with_stage_obligations(name):
    verdict, obs, report = stage_obligations(case(name))
    assert verdict == "legal", [o.to_json() for o in report.obligations if o.status != "proved"]
    kinds = {o.kind for o in obs}
    assert {"dataflow", "coverage", "in_bounds"} <= kinds
    assert ("bijection" in kinds) == (name == "stage_swizzle_matmul")
    assert all(o.status == "proved" for o in obs)


@pytest.mark.parametrize("opts", ["", "pad_stride=3"])
def test_block_only_staging_is_legal(opts):
    verdict, obs, report = stage_obligations(rowsum(opts))
    assert verdict == "legal", [o.to_json() for o in report.obligations if o.status != "proved"]


@pytest.mark.parametrize("opts", ["cooperative=16", "cooperative=5", "cooperative=16 pipeline=2",
                                  "cooperative=16 pipeline=2 swizzle=b128", "cooperative=8 swizzle=elem"])
def test_lane_aware_options_are_legal(opts):
    verdict, obs, report = stage_obligations(lanes(opts))
    assert verdict == "legal", [o.to_json() for o in report.obligations if o.status != "proved"]
    if "pipeline" in opts:
        assert sum(o.kind == "dataflow" and o.engine == "z3" for o in obs) == 1


def test_cooperative_with_the_compute_outside_thread_loops_is_legal():
    """A statement outside every thread loop runs once, on thread 0 (the one semantics of every
    backend): the lanes the cooperative load adds do not accumulate y."""
    verdict, _, report = stage_obligations(rowsum("cooperative=8"))
    assert verdict == "legal", [o.to_json() for o in report.obligations if o.status != "proved"]
    assert any(o.kind == "race" and o.status == "proved" for o in report.obligations)


def test_stage_without_anchor_is_legal():
    verdict, obs, report = stage_obligations(broadcast())
    assert verdict == "legal", [o.to_json() for o in report.obligations if o.status != "proved"]
    t = scheduled(broadcast(), "bc").kernel("bc").body[0].body[0]
    assert [type(s).__name__ for s in t.body] == ["If", "Barrier", "For", "Barrier"]


def test_cpu_packing_hoisted_and_widening_are_legal():
    verdict, obs, report = stage_obligations(cpu())
    assert verdict == "legal", [o.to_json() for o in report.obligations if o.status != "proved"]
    assert sum(o.kind == "dataflow" for o in obs) == 2


def test_swizzle_on_a_non_power_of_two_row_is_refuted_with_a_colliding_pair():
    verdict, obs, _ = stage_obligations(lanes("cooperative=8 pad_stride=7 swizzle=elem"))
    assert verdict == "illegal"
    (b,) = [o for o in obs if o.kind == "bijection"]
    assert b.status == "refuted" and b.engine == "z3" and len(b.counterexample.to_json()["cells"]) == 2


@pytest.mark.parametrize("rows, minor, unit, status", [(16, 16, 1, "proved"), (16, 16, 4, "proved"),
                                                      (4, 32, 1, "proved"), (16, 12, 1, "refuted"),
                                                      (16, 24, 4, "refuted"), (1, 2, 1, "proved")])
def test_swizzle_bijection(rows, minor, unit, status):
    query = bijection(swizzle_col(Var("col"), Var("row"), minor, unit), rows, minor, unit, "t")
    assert isinstance(query, Z3Implies)
    d = decide(Goal("bijection", BIJECTION, query))
    assert d.status == status and d.engine == "z3", d.message
    if status == "refuted":
        a, b = d.counterexample.to_json()["images"]
        cols = [c["index"][1] for c in d.counterexample.to_json()["cells"]]
        assert a >= minor or (cols[0] != cols[1] and a == b)
        # the images are the rendering's values at the reported cells
        f = swizzle_col(Var("col"), Var("row"), minor, unit)
        from verified_sched.analysis.sizes import eval_int
        row = d.counterexample.to_json()["cells"][0]["index"][0]
        assert [eval_int(f, {"row": row, "col": c}) % 2 ** 32 for c in cols] == [a, b]


# ---------------------------------------------------------------- dataflow refutations


def _staged():
    p = case("stage_shared_matmul")
    ops = p.schedule_for("matmul").ops
    before = p
    for op in ops[:-2]:
        before = apply_op(before, "matmul", op)
    after = apply_op(apply_op(before, "matmul", ops[-2]), "matmul", ops[-1])
    return before, after


def _edit(program, fn):
    k = program.kernel("matmul")
    return program.with_kernel(dataclasses.replace(k, body=tuple(ir.rewrite(s, fn) for s in k.body)))


def _dataflow(before, after, tile="a_tile", src="a"):
    query = tile_dataflow(KernelModel(before, "matmul", tag="B"), KernelModel(after, "matmul", tag="A"), src, tile)
    return decide(Goal("dataflow", STATEMENT, query))


def _ko(fn):
    def edit(n):
        if isinstance(n, ir.For) and n.var == "ko":
            return dataclasses.replace(n, body=fn(n.body))
        return None
    return edit


def _shift_copy(n):
    """The a load copies the next column (clamped in bounds): the wrong cell."""
    if isinstance(n, ir.Assign) and n.tensor == "a_tile":
        i, j = n.value.index
        last = ir.BinOp("-", ir.BinOp("*", ir.Int(16), ir.Var("TK")), ir.Int(1))
        return dataclasses.replace(n, value=ir.Load("a", (i, ir.Call("min", (ir.BinOp("+", j, ir.Int(1)), last)))))
    return None


def test_dataflow_proved_on_the_staged_matmul():
    before, after = _staged()
    assert _dataflow(before, after).status == "proved"
    assert _dataflow(before, after, "b_tile", "b").status == "proved"


@pytest.mark.parametrize("what", ["first_barrier", "trailing_barrier", "representative", "transposed",
                                  "shifted"])
def test_dataflow_refutes_broken_staging(what):
    before, after = _staged()
    match what:
        case "first_barrier":
            bad = _edit(after, _ko(lambda b: b[:2] + b[3:]))
        case "trailing_barrier":
            bad = _edit(after, _ko(lambda b: b[:-1]))
        case "representative":
            bad = _edit(after, _ko(lambda b: b[0].then + b[1:]))
        case "transposed":
            bad = _edit(after, lambda n: dataclasses.replace(n, index=n.index[::-1])
                        if isinstance(n, ir.Assign) and n.tensor == "a_tile" else None)
        case "shifted":
            bad = _edit(after, _shift_copy)
    f = _dataflow(before, bad)
    assert f.status == "refuted", f.message
    assert f.counterexample.sizes and f.counterexample.to_json()["instances"]


def test_dataflow_two_unordered_last_writes_of_different_statements_are_refuted():
    """Regression (the "several last writes" sample took the first set of an empty union: an
    isl index error, so an unknown): a second load statement (another sid, thread tj = 1)
    writes the a tile cells thread tj = 0 loads, unordered with it; isl's lexmax is per
    statement, so the two last writes are found as two distinct images."""
    from verified_sched.ops.common import copy_sids
    before, after = _staged()

    def second_loader(body):
        (other,) = copy_sids((dataclasses.replace(body[0], cond=ir.Cmp("==", ir.Var("tj"), ir.Int(1))),), 1)
        return body[:1] + (other,) + body[1:]
    f = _dataflow(before, _edit(after, _ko(second_loader)))
    assert f.status == "refuted" and "several unordered last writes" in f.message, f.message
    (inst,) = f.counterexample.to_json()["instances"]
    assert inst["stmt"] == "S0" and f.counterexample.sizes
    assert _dataflow(before, after).status == "proved"


def test_pipeline_rotation_refuted_when_reading_the_prefetched_copy():
    p = scheduled(rowsum("cooperative=8 pipeline=2"), "rowsum")
    k = p.kernel("rowsum")

    def fn(n):
        if isinstance(n, ir.Load) and n.tensor == "x_tile":
            return dataclasses.replace(n, index=(ir.Mod(ir.BinOp("+", ir.Var("ko"), ir.Int(1)), 2),) + n.index[1:])
        return None
    bad = p.with_kernel(dataclasses.replace(k, body=tuple(ir.rewrite(s, fn) for s in k.body)))
    op = p.schedule_for("rowsum").ops[-1]
    ctx = SimpleNamespace(after=bad, kernel="rowsum", op=op, op_index=5, timeout=5.0)
    goal = rotation_goal(ctx)
    assert goal.kind == "dataflow" and isinstance(goal.query, Z3Implies)
    ob = decide(goal)
    assert ob.status == "refuted" and ob.engine == "z3"
    (kv,) = ob.counterexample.to_json()["instances"][0]["at"].values()  # every iteration reads the wrong copy
    assert isinstance(kv, int) and kv >= 0
    good = rotation_goal(SimpleNamespace(after=p, kernel="rowsum", op=op, op_index=5, timeout=5.0))
    assert decide(good).status == "proved"


STENCIL = """
params T where T >= 1
tensor x[8 * T + 2] f32
tensor y[8 * T] f32
kernel st {
  for i in 0 .. 8 * T { for k in 0 .. 3 { y[i] += x[i + k] } }
}
schedule st {
  split i by 8 -> bi, ii
  RETYPE
  stage x over ii, k -> xt OPTS
}
"""


@pytest.mark.parametrize("retype, opts, verdict", [
    ("", "", "legal"),
    ("retype bi as block.x", "shared", "legal"),
    # thread tile loop: overlapping footprints (x[ii + k]) are loaded by several threads at once
    ("retype bi as block.x\n  retype ii as thread.x", "shared", "illegal"),
])
def test_stencil_tile_with_overlapping_footprint(retype, opts, verdict):
    from verified_sched.dsl import parse_text
    p = parse_text(STENCIL.replace("RETYPE", retype).replace("OPTS", opts))
    got, obs, report = stage_obligations(p)
    assert got == verdict, [o.to_json() for o in report.obligations if o.status != "proved"]
    assert scheduled(p, "st").tensor("xt").dims == (ir.Int(10),)  # 8 + 3 - 1
    if verdict == "illegal":
        (df,) = [o for o in obs if o.kind == "dataflow"]
        assert df.status == "refuted" and "several" in df.message


def test_stage_goals_are_data():
    """stage's obligations(ctx) states goals: the swizzle bijection and the pipeline rotation
    are z3 facts-imply-goal queries, dataflow a conjunction of isl emptiness queries, the
    correspondence a procedure; discharged, they are the proved obligations of a legal
    staging."""
    from verified_sched import ops
    from verified_sched.verify.discharge import discharge
    from verified_sched.core.obligations import AllOf, Procedure
    from verified_sched.verify.driver import OpContext

    p = lanes("cooperative=16 pipeline=2 swizzle=b128")
    k = 1 + next(i for i, op in enumerate(p.schedule_for("matmul").ops) if "swizzle" in op.text())
    before = ops.apply_schedule(p, "matmul", k - 1)
    op = p.schedule_for("matmul").ops[k - 1]
    ctx = OpContext(before, ops.apply_op(before, "matmul", op), "matmul", op, k, "default", 10.0, float("inf"))
    goals = ops.op_spec(op).obligations(ctx)
    assert [(g.kind, type(g.query)) for g in goals] == [
        ("dataflow", AllOf), ("coverage", Procedure), ("bijection", Z3Implies), ("dataflow", Z3Implies)]
    obs = discharge(goals, float("inf"), k, op.text())
    assert [(o.kind, o.engine, o.status) for o in obs] == [
        ("dataflow", "isl", "proved"), ("coverage", "structural", "proved"), ("bijection", "z3", "proved"),
        ("dataflow", "z3", "proved")]
