"""Obligations as data: goals (verified_sched/core/obligations.py) decided in one place
(verified_sched/verify/discharge.py) that owns budgets, timing and witnesses."""
from __future__ import annotations

import time

import islpy as isl
import pytest
import z3

from verified_sched.core.counterexample import Counterexample, Instance
from verified_sched.verify.discharge import discharge
from verified_sched.core.obligations import AllOf, Decided, Goal, IslEmpty, Procedure, Z3Implies

N = z3.Int("N")


def one(goal, deadline=0.0):
    (ob,) = discharge([goal], deadline, 3, "split i by 4")
    return ob


def witness_at(pt):
    n = pt.get_coordinate_val(isl.dim_type.param, 0).to_python()
    return Decided("refuted", f"violated at N={n}", counterexample=Counterexample(Instance({"N": n})))


def test_an_empty_isl_set_is_proved_with_the_goal_kind_op_and_statement():
    ob = one(Goal("in_bounds", "forall N: nothing", IslEmpty(lambda: isl.Set("[N] -> { [i] : 0 <= i < N and i > N }"),
                                                              witness_at, "nothing is violated")))
    assert (ob.kind, ob.status, ob.engine, ob.op_index, ob.op) == ("in_bounds", "proved", "isl", 3, "split i by 4")
    assert ob.statement == "forall N: nothing" and ob.message == "nothing is violated" and ob.seconds >= 0


def test_a_non_empty_isl_set_is_refuted_by_its_witness_at_a_sample_point():
    ob = one(Goal("coverage", "s", IslEmpty(lambda: isl.Set("[N] -> { [i] : N = 7 and i = 0 }"), witness_at)))
    assert ob.status == "refuted" and ob.counterexample == Counterexample(Instance({"N": 7})) and ob.message == "violated at N=7"


def test_z3_implies_proves_refutes_with_the_model_and_gives_up_as_unknown():
    proved = one(Goal("bijection", "s", Z3Implies(lambda: ([N >= 1], N >= 0), None, "holds")))
    assert (proved.status, proved.engine, proved.message) == ("proved", "z3", "holds")
    refuted = one(Goal("bijection", "s", Z3Implies(
        lambda: ([N >= 1, N <= 3], N >= 3),
        lambda m: Decided("refuted", f"N={m['N']}", counterexample=Counterexample(Instance({"N": m["N"]})), engine="z3"))))
    assert refuted.status == "refuted" and refuted.counterexample.sizes["N"] in (1, 2)
    no_form = one(Goal("bijection", "s", Z3Implies(lambda: Decided("unknown", "no integer term", engine="z3"), None)))
    assert no_form.status == "unknown" and no_form.message == "no integer term"


def test_z3_giving_up_is_unknown_never_proved():
    x, y, z = z3.Ints("x y z")
    hard = [x > 0, y > 0, z > 0, x * x * x + y * y * y == z * z * z]  # no model (Fermat, n = 3); no quick unsat
    ob = one(Goal("dataflow", "s", Z3Implies(lambda: (hard, z3.BoolVal(False)), lambda m: Decided("refuted", "x"),
                                            timeout=0.05, undecided="the cube sum")))
    assert ob.status == "unknown" and ob.message == "the cube sum (z3 timeout)"


def test_all_of_takes_the_first_refutation_joins_unknowns_and_combines_proofs():
    proved = Decided("proved", "p")
    seen = []

    def part(d):
        return Procedure(lambda: seen.append(d.message) or d)
    combined = AllOf(lambda: [part(proved), part(Decided("unknown", "u2")), part(Decided("unknown", "u1")),
                              part(Decided("refuted", "r")), part(Decided("refuted", "late"))],
                     lambda answers: Decided("proved", "all"))
    ob = one(Goal("in_bounds", "s", combined))
    assert (ob.status, ob.message) == ("refuted", "r") and seen == ["p", "u2", "u1", "r"]
    unknown = one(Goal("in_bounds", "s", AllOf(lambda: [proved, Decided("unknown", "u2"), Decided("unknown", "u1")],
                                               lambda answers: Decided("proved", "all"))))
    assert (unknown.status, unknown.message) == ("unknown", "u1; u2")
    everything = one(Goal("in_bounds", "s", AllOf(lambda: [proved, proved],
                                                  lambda answers: Decided("proved", f"{len(answers)} parts"))))
    assert (everything.status, everything.message) == ("proved", "2 parts")


def test_a_procedure_deciding_two_kinds_gives_two_obligations():
    obs = discharge([Goal("dependence", "s", Procedure(lambda: [("dependence", Decided("proved", "d")),
                                                                 ("reassociation", Decided("proved", "r",
                                                                                           reassociates=True))]))],
                    0.0, 1, "interchange i, j")
    assert [(o.kind, o.message, o.reassociates) for o in obs] == [("dependence", "d", False),
                                                                  ("reassociation", "r", True)]


def test_a_past_deadline_makes_every_goal_unknown_without_running_it():
    ran = []
    goals = [Goal("coverage", "s", Procedure(lambda: ran.append(1) or Decided("proved", "p")))] * 2
    obs = discharge(goals, time.perf_counter() - 1.0)
    assert [o.status for o in obs] == ["unknown", "unknown"] and not ran
    assert "deadline" in obs[0].message


def test_isl_running_out_of_its_operation_budget_is_unknown():
    from verified_sched.core import budget

    def expensive():
        with budget.scope(float("inf"), max_operations=1):
            s = isl.Set("[N] -> { [i, j, k] : 0 <= i, j, k < N and 3i + 5j + 7k = N }")
            return s.coalesce().compute_divs().lexmin()
    ob = one(Goal("dependence", "s", IslEmpty(expensive, witness_at)))
    assert ob.status == "unknown" and "isl operation budget exhausted" in ob.message


def test_a_goal_states_a_known_kind_and_a_query():
    with pytest.raises(ValueError):
        Goal("no_such_kind", "s", Decided("proved", "p"))
    with pytest.raises(TypeError):
        Goal("coverage", "s", "not a query")
    with pytest.raises(ValueError):
        Decided("maybe", "m")
