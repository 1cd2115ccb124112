"""tensorize: corpus verdict, recognition and refusals, obligations (with refutations), runs."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings, strategies as st

from codegen.emulate import load_emulated
from verified_sched.oracle.compare import compare_kernels
from verified_sched.core import ir
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.errors import ScheduleError
from verified_sched.ops import apply_op
from verified_sched.verify.driver import OpContext, own_obligations, verify_program
from verified_sched.verify.kernel_report import file_report_json
from support.scheduling import scheduled


def mm(update="c[i, j] += a[i, k] * b[k, j]", sched="tensorize i, j, k simd=8", a="a[N, K]", b="b[K, M]",
       c="c[N, M]", n=4, m=4, kk=4, outer=""):
    return (f"params N, M, K where N >= 4, M >= 4, K >= 4\ntensor {a} f32\ntensor {b} f32\ntensor {c} f32\n"
            f"kernel mm {{\n  zero c\n{outer}  for i in 0 .. {n} {{\n    for j in 0 .. {m} {{\n"
            f"      for k in 0 .. {kk} {{\n        {update}\n      }}\n    }}\n  }}\n{'}' if outer else ''}}}\n"
            f"schedule mm {{\n  {sched}\n}}\n")


def report(p):
    return file_report_json(verify_program(p), "f")


def test_corpus_tensorize_matmul_legal(cases_dir):
    rep = report(parse_file(cases_dir / "tensorize_matmul.vs"))
    assert rep["verdict"] == "legal", [o for o in rep["obligations"] if o["status"] != "proved"]
    last = [o for o in rep["obligations"] if o["op"].startswith("tensorize")]
    assert {"equivalence", "race", "coverage", "dependence", "independence"} <= {o["kind"] for o in last}


@pytest.mark.parametrize("sizes", [{"TN": 1, "TM": 1, "TK": 1}, {"TN": 2, "TM": 1, "TK": 2}])
def test_corpus_tensorize_runs_equal_c_and_emulation(cases_dir, sizes):
    p = parse_file(cases_dir / "tensorize_matmul.vs")
    after = scheduled(p, "matmul")
    rep = compare_kernels(p, "matmul", "matmul", sizes, seed=1, program_cand=after)
    assert rep.equal and not rep.vacuous, rep.text()
    rep = compare_kernels(p, "matmul", "matmul", sizes, seed=1, program_cand=after,
                          runner_cand=load_emulated(after, seed=7).run)
    assert rep.equal and not rep.vacuous, rep.text()


def test_result_shape_and_fma_form():
    p = scheduled(parse_text(mm("c[i, j] = fma(a[i, k], b[k, j], c[i, j])")))
    lane = p.kernel("mm").body[1]
    assert isinstance(lane, ir.For) and lane.axis == "thread.x" and lane.hi == ir.Int(8)
    tc = lane.body[0]
    assert isinstance(tc, ir.TensorCore) and tc.lane == lane.var and tc.shape == (4, 4, 4)
    assert isinstance(tc.fallback[0], ir.For) and tc.fallback[0].var == "i"


def test_operands_may_come_in_either_order_and_lane_axis_avoids_thread_x():
    src = mm("c[i, j] += b[k, j] * a[i, k]", outer="  for t in 0 .. 1 : thread.x {\n")
    p = scheduled(parse_text(src))
    lane = p.kernel("mm").body[1].body[0]
    assert lane.axis == "thread.y"
    assert report(parse_text(src))["verdict"] == "legal"


@pytest.mark.parametrize("src, msg", [
    (mm(a="a[K, N]", update="c[i, j] += a[k, i] * b[k, j]"), "transposed"),
    (mm(b="b[M, K]", update="c[i, j] += a[i, k] * b[j, k]"), "transposed"),
    (mm(c="c[M, N]", update="c[j, i] += a[i, k] * b[k, j]"), "transposed"),
    (mm("c[i, j] += 2.0 * a[i, k]"), "d[..] += a[..] * b[..]"),
    (mm("c[i, j] = max(c[i, j], a[i, k] * b[k, j])"), "d[..] += a[..] * b[..]"),
    (mm(a="a[2 * N, K]", update="c[i, j] += a[2 * i, k] * b[k, j]"), "unit coefficients"),
    (mm(n="N"), "positive constant"),
    (mm(sched="tensorize i, k, j"), "perfect nest"),
    (mm(sched="tensorize i, j, q"), "no loop named 'q'"),
    (mm(sched="retype k as vectorized\n  tensorize i, j, k"), "must be serial"),
])
def test_preconditions(src, msg):
    with pytest.raises(ScheduleError) as e:
        scheduled(parse_text(src))
    assert msg in e.value.message and e.value.loc is not None


def test_all_thread_axes_taken_is_refused():
    src = mm(outer="  for t in 0 .. 2 : thread.x {\n  for u in 0 .. 2 : thread.y {\n  for w in 0 .. 2 : thread.z {\n")
    src = src.replace("}}\nschedule", "}}}}\nschedule")
    with pytest.raises(ScheduleError, match="no free thread axis"):
        scheduled(parse_text(src))


def _ctx(before, after, op):
    return OpContext(before, after, "mm", op, 1, "default", 10.0, 1e18)


def own(before, after, op, kind):
    """The op's own obligation `kind`, discharged (verify.own_obligations)."""
    found = [o for o in own_obligations(_ctx(before, after, op)) if o.kind == kind]
    assert len(found) == 1, found
    return found[0]


def test_equivalence_refuted_when_the_block_shape_disagrees_with_the_fallback():
    p = parse_text(mm())
    op = p.schedule_for("mm").ops[0]
    after = apply_op(p, "mm", op)
    k = after.kernel("mm")

    def bad(n):
        if isinstance(n, ir.TensorCore):
            return dataclasses.replace(n, shape=(4, 4, 2))
        return None
    tampered = after.with_kernel(ir.rewrite(k, bad))
    ob = own(p, tampered, op, "equivalence")
    assert ob.status == "refuted" and ob.counterexample.instance.sizes is not None
    assert own(p, after, op, "equivalence").status == "proved"


def test_race_refuted_when_lanes_write_outside_the_block():
    p = parse_text(mm())
    op = p.schedule_for("mm").ops[0]
    after = apply_op(p, "mm", op)
    k = after.kernel("mm")
    lane = k.body[1]
    leak = ir.Assign("c", (ir.Int(0), ir.Int(0)), ir.Float(1.0), sid="S9")
    tampered = after.with_kernel(dataclasses.replace(k, body=(k.body[0], dataclasses.replace(
        lane, body=lane.body + (leak,)))))
    ob = own(p, tampered, op, "race")
    assert ob.status == "refuted" and len(ob.counterexample.to_json()["instances"]) == 2
    assert ob.engine == "isl" and "two lanes conflict" in ob.message
    insts = ob.counterexample.to_json()["instances"]
    assert "S9" in {i["stmt"] for i in insts} and insts[0]["at"]["lane"] != insts[1]["at"]["lane"], insts
    good = own(p, after, op, "race")
    assert good.status == "proved" and good.message == "only lane 0 runs the fallback: no two lanes conflict"


def test_goals_are_data_race_an_isl_emptiness_and_profile_a_structural_answer():
    from verified_sched.core.obligations import Decided, IslEmpty, Procedure
    from verified_sched.ops import tensorize

    p = parse_text(mm())
    op = p.schedule_for("mm").ops[0]
    goals = tensorize.obligations(_ctx(p, apply_op(p, "mm", op), op))
    assert [g.kind for g in goals] == ["equivalence", "race", "profile"]
    assert isinstance(goals[0].query, Procedure) and "multiset of products" in goals[0].statement
    assert isinstance(goals[1].query, IslEmpty) and goals[1].query.violations().is_empty()
    assert isinstance(goals[2].query, Decided) and goals[2].query.status == "proved"
    assert goals[2].query.engine == "structural" and not goals[2].query.reassociates


def test_race_of_a_block_holding_no_statement_is_proved_structurally():
    p = parse_text(mm())
    op = p.schedule_for("mm").ops[0]
    after = apply_op(p, "mm", op)

    def empty(n):
        if isinstance(n, ir.TensorCore):
            return dataclasses.replace(n, fallback=(ir.For("i", ir.Int(0), ir.Int(4), "serial", ()),))
        return None
    tampered = after.with_kernel(ir.rewrite(after.kernel("mm"), empty))
    from verified_sched.verify.discharge import discharge_one
    from verified_sched.ops import tensorize

    race = next(g for g in tensorize.obligations(_ctx(p, tampered, op)) if g.kind == "race")
    [ob] = discharge_one(race, 0.0)
    assert ob.status == "proved" and ob.message == "the block holds no statement"


def test_no_block_after_the_op_is_a_precondition_failure():
    p = parse_text(mm())
    op = p.schedule_for("mm").ops[0]
    with pytest.raises(ScheduleError, match="no tensor-core block over loop 'i'"):
        own_obligations(_ctx(p, p, op))


def _accessed(inst) -> set:
    return {(a["tensor"], tuple(a["index"])) for a in [inst["writes"]] + inst.get("reads", [])}


@settings(max_examples=10)
@given(n=st.integers(1, 3), m=st.integers(1, 3), kk=st.integers(1, 3), simd=st.integers(1, 4),
       leak=st.none() | st.tuples(st.integers(0, 3), st.integers(0, 3)))
def test_race_goal_refutes_exactly_a_cell_written_by_two_lanes(n, m, kk, simd, leak):
    # a write of c[x, y] by every lane (next to the block) races as soon as two lanes exist;
    # the witness is two instances on different lanes that both touch the leaked cell
    p = parse_text(mm(sched=f"tensorize i, j, k simd={simd}", n=n, m=m, kk=kk))
    op = p.schedule_for("mm").ops[0]
    after = apply_op(p, "mm", op)
    if leak is not None:
        k = after.kernel("mm")
        lane = k.body[1]
        write = ir.Assign("c", tuple(ir.Int(v) for v in leak), ir.Float(1.0), sid="S9")
        after = after.with_kernel(dataclasses.replace(k, body=(k.body[0], dataclasses.replace(
            lane, body=lane.body + (write,)))))
    ob = own(p, after, op, "race")
    if leak is None or simd == 1:
        assert ob.status == "proved", ob.message
        return
    assert ob.status == "refuted", ob.message
    a, b = ob.counterexample.to_json()["instances"]
    assert a["at"]["lane"] != b["at"]["lane"]
    assert ("c", leak) in {(a["writes"]["tensor"], tuple(a["writes"]["index"]))} | \
        {(b["writes"]["tensor"], tuple(b["writes"]["index"]))}
    assert _accessed(a) & _accessed(b), (a, b)
