"""privatize's obligations as goals (verified_sched/ops/privatize/proofs.py): coverage is a
structural answer known when stated; dataflow, privatize_condition and race are conjunctions
(AllOf) of isl emptiness queries over violation sets tried in order, built inside the
discharge budget. Every answer
path (each violation set's witness, the may-sets' unknown, proved) is exercised on tampered
or crafted kernels."""
from __future__ import annotations

import dataclasses

import islpy as isl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_sched.core import ir
from verified_sched.verify.discharge import decide, discharge
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.ir import Assign, BinOp, For, Int, Load
from verified_sched.core.obligations import AllOf, Decided, Goal, IslEmpty
from verified_sched.ops import apply_op, privatize
from verified_sched.ops.privatize.proofs import conjunction
from verified_sched.verify.driver import OpContext, own_obligations, verify_program


def matmul_ctx(cases_dir, fn=None) -> OpContext:
    """The context of privatize_matmul.vs's privatize op, its result tampered by `fn` (an
    ir.rewrite function) when given."""
    program = parse_file(cases_dir / "privatize_matmul.vs")
    ops = program.schedule_for("matmul").ops
    before = program
    for op in ops[:-1]:
        before = apply_op(before, "matmul", op)
    after = privatize.apply(before, "matmul", ops[-1])
    if fn is not None:
        k = after.kernel("matmul")
        after = after.with_kernel(dataclasses.replace(k, body=tuple(ir.rewrite(s, fn) for s in k.body)))
    return OpContext(before, after, "matmul", ops[-1], len(ops), "default", 10.0, float("inf"))


def own(ctx) -> dict:
    return {o.kind: o for o in own_obligations(ctx)}


# ---------------------------------------------------------------- goals as data


def test_goals_are_data_and_state_no_isl_work(cases_dir):
    ctx = matmul_ctx(cases_dir)
    goals = privatize.obligations(ctx)
    assert [g.kind for g in goals] == ["coverage", "dataflow", "privatize_condition", "race"]
    assert all(isinstance(g, Goal) for g in goals)
    cov = goals[0].query
    assert isinstance(cov, Decided) and cov.engine == "structural" and cov.status == "proved"
    assert all(isinstance(g.query, AllOf) for g in goals[1:])
    # stating the goals built no model: the isl work runs inside discharge's budget
    assert "model_after" not in ctx.__dict__
    assert [len(g.query.parts()) for g in goals[1:]] == [5, 2, 2]  # the violation sets, not built yet
    assert all(isinstance(q, IslEmpty) for g in goals[1:] for q in g.query.parts())
    obls = discharge(goals, float("inf"), ctx.op_index, ctx.op.text())
    assert [o.status for o in obls] == ["proved"] * 4
    assert [o.statement for o in obls] == [g.statement for g in goals]
    assert "c_acc" in goals[1].statement and "model_after" in ctx.__dict__


def test_the_registry_reads_the_folder():
    from verified_sched.ops.registry import module_for
    from verified_sched.ops.schedule import Privatize

    mod = module_for(Privatize("c", "k", "acc"))
    assert mod is privatize and mod.RECORD is Privatize
    assert mod.GENERIC == ("in_bounds", "dependence", "reassociation", "independence")


# ---------------------------------------------------------------- conjunction


def _interval(lo: int, hi: int) -> isl.Set:
    return isl.Set(f"{{ [i] : {lo} <= i < {hi} }}")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=1, max_size=5))
def test_conjunction_samples_the_first_nonempty_set_and_builds_no_later_one(bounds):
    built = []

    def case(k, lo, hi):
        def build():
            built.append(k)
            return _interval(lo, hi)

        def witness(pt):
            (x,) = [pt.get_coordinate_val(isl.dim_type.set, 0).to_python()]
            assert lo <= x < hi  # the point is one of this set's
            return Decided("refuted", f"set {k} at {x}")
        return build, witness

    goal = conjunction("dataflow", "s", "all empty", [case(k, lo, hi) for k, (lo, hi) in enumerate(bounds)])
    d = decide(goal)
    first = next((k for k, (lo, hi) in enumerate(bounds) if lo < hi), None)
    if first is None:
        assert (d.status, d.message) == ("proved", "all empty")
        assert built == list(range(len(bounds)))
    else:
        assert d.status == "refuted" and d.message.startswith(f"set {first} at ")
        assert built == list(range(first + 1))  # built once each, none after the first non-empty


# ---------------------------------------------------------------- dataflow: each violation set


def _hi(names, v):
    return lambda n: dataclasses.replace(n, hi=Int(v)) if isinstance(n, For) and n.var in names else None


def _store_reads(index_fn):
    def fn(n):
        if isinstance(n, Assign) and n.sid == "c_acc.store":
            (a,) = n.value.index
            return dataclasses.replace(n, value=Load("c_acc", (index_fn(a),)))
        return None
    return fn


@pytest.mark.parametrize("fn, message", [
    (_hi({"ji_ld"}, 4), "c[0, 4] is stored back at outer iteration [0, 0] from a cell of c_acc that was not "
                        "loaded there"),
    (_hi({"ji_ld", "ji_st"}, 4), "c[0, 4] is accessed under the loop at outer iteration [0, 0] but never "
                                 "loaded into c_acc"),
    (_hi({"ji_st"}, 4), "c[0, 4] is accessed under the loop at outer iteration [0, 0] but never stored "
                        "back from c_acc"),
    (_store_reads(lambda a: BinOp("-", Int(7), a)), "two cells of c share one cell of c_acc"),
    (_store_reads(lambda a: BinOp("+", a, Int(8))), "one cell of c uses two cells of c_acc"),
], ids=["stored_not_loaded", "used_not_loaded", "used_not_stored", "shared_acc_cell", "two_acc_cells"])
def test_dataflow_refutes_each_violation_with_its_witness(cases_dir, fn, message):
    obls = own(matmul_ctx(cases_dir, fn))
    d = obls["dataflow"]
    assert d.status == "refuted" and d.engine == "isl" and message in d.message, d.message
    assert d.statement.startswith("forall params, o: every cell of c accessed under the loop")
    cex = d.counterexample.to_json()
    assert cex["params"]["M"] >= 1
    if "cells" in cex:
        assert cex["cells"] == [{"tensor": "c", "index": [0, 4]}] and cex["outer"] == [0, 0]
    else:
        p, q = cex["points"]
        assert p != q and p[:2] == q[:2]  # one outer iteration, two cells
    assert obls["coverage"].status == "proved"  # the transfers are not part of the structural check


def test_coverage_is_unknown_when_a_user_statement_changed(cases_dir):
    def fn(n):
        if isinstance(n, Assign) and n.tensor == "c_acc" and not n.sid.startswith("c_acc."):
            return dataclasses.replace(n, value=BinOp("*", Int(2), n.value))
        return None
    d = own(matmul_ctx(cases_dir, fn))["coverage"]
    assert (d.status, d.engine) == ("unknown", "structural") and "internal inconsistency" in d.message


# ---------------------------------------------------------------- the threads: may-sets


LANES = "params K where K >= 1\ntensor x[K] f32\ntensor s[{n}] f32\nkernel g {{\n  zero s\n" \
        "  for t in 0 .. 32 : thread.x {{\n    for k in 0 .. K {{\n{body}\n    }}\n{tail}  }}\n}}\n" \
        "schedule g {{\n  privatize s over k -> s_acc\n}}\n"


def _own_of(text) -> dict:
    """The privatize op's own obligations by kind (they come before the generic ones, among
    which a second `race`)."""
    (rep,) = verify_program(parse_text(text))
    out = {}
    for o in rep.obligations:
        if o.op_index == 1:
            out.setdefault(o.kind, o)
    return out


def test_data_guard_on_a_shared_cell_makes_the_condition_unknown():
    obls = _own_of(LANES.format(n=1, body="      if x[k] > 100 {\n        s[0] += x[k]\n      }", tail=""))
    cond = obls["privatize_condition"]
    assert cond.status == "unknown" and "guard that depends on data may let a thread" in cond.message
    assert cond.counterexample is None
    assert obls["race"].status == "refuted" and obls["race"].counterexample.to_json()["cells"] == [
        {"tensor": "s", "index": [0]}]


def test_data_guarded_neighbour_write_makes_the_transfer_race_unknown():
    tail = "    if x[0] > 0 {\n      s[t + 1] = 0.0\n    }\n"
    obls = _own_of(LANES.format(n=33, body="      s[t] += x[k]", tail=tail))
    assert obls["race"].status == "unknown" and "may conflict with another thread" in obls["race"].message
    assert obls["privatize_condition"].status == "proved" and obls["dataflow"].status == "proved"


def test_own_lane_cells_prove_every_goal():
    obls = _own_of(LANES.format(n=32, body="      s[t] += x[k]", tail=""))
    assert {k: o.status for k, o in obls.items() if k in ("coverage", "dataflow", "privatize_condition", "race")} \
        == dict.fromkeys(("coverage", "dataflow", "privatize_condition", "race"), "proved")
