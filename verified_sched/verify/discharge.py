"""Discharging goals: the one place where an obligation is decided, budgeted and timed.

`discharge(goals, deadline, op_index, op_text)` decides each `obligations.Goal` inside its own
budget (`budget.guarded`: isl's operation counter, the verification's deadline, z3's timeout,
the memory limit), times it, samples the witness of a violated isl goal or reads the model of
a refuted z3 goal, and returns `obligations.Obligation` records. Running out of any budget
makes the goal `unknown` with the reason, never proved; a goal whose turn comes after the
deadline is unknown too. Nothing else in the package times or budgets an obligation.
"""
from __future__ import annotations

import time

from ..core import budget
from ..core.obligations import AllOf, Decided, Goal, IslEmpty, Obligation, Procedure, Z3Implies


def discharge(goals, deadline: float, op_index: int = 0, op_text: str = "", proofs_only: bool = False) -> list:
    """The Obligations of `goals` (each a Goal) for the op `op_text` (index `op_index`, 0 for
    the kernel itself or a claim), decided before `deadline` (time.perf_counter() seconds;
    0 or inf for none). `proofs_only`: the caller uses the answers only when every one is
    `proved` (verify/coalesced.py), so the goals after the first one that is not are left
    undecided (the list then ends with that one)."""
    out, cap = [], None
    for goal in goals:
        got = discharge_one(goal, deadline, op_index, op_text, cap)
        out += got
        if proofs_only and any(o.status != "proved" for o in got):
            break
        if cap is None and any(o.status == "refuted" for o in got):
            cap = max(1000, budget.operations() // AFTER_REFUTED)
    return out


# Once one of the goals is refuted (the op is illegal whatever the others say), the goals after
# it get this fraction of isl's operations: they add detail to a verdict that is settled, and
# on fuzz examples with dozens of statement copies their value flow ran out of the whole budget
# in 1 to 2 s per op (seed 424242: four near copies of one program at the 5 s deadline each).
AFTER_REFUTED = 10


def discharge_one(goal: Goal, deadline: float, op_index: int = 0, op_text: str = "",
                  max_operations: int | None = None) -> list:
    """The Obligation(s) of one goal: one, or one per kind of a Procedure that decides
    several; `max_operations`: isl's cap for it (default: the obligation's budget)."""
    t0 = time.perf_counter()
    result, reason = budget.guarded(lambda: decide(goal), deadline or float("inf"), max_operations)
    if reason is not None:
        if max_operations is not None and reason.startswith(budget.ISL_BUDGET):
            reason += f"; the op was already refuted, so its later obligations get 1/{AFTER_REFUTED} of isl's operations"
        result = Decided("unknown", reason)
    seconds = time.perf_counter() - t0
    pairs = result if isinstance(result, list) else [(goal.kind, result)]
    return [obligation(kind, op_index, op_text, goal.statement, d, seconds / len(pairs)) for kind, d in pairs]


def decide(goal: Goal):
    """The Decided answer of one goal's query (a list of (kind, Decided) for a Procedure
    deciding several kinds), without budget or timing (discharge_one adds them)."""
    return answer(goal.query)


def answer(query):
    """The Decided answer of one query (see decide)."""
    match query:
        case AllOf(parts=parts, proved=combine):
            answers, unknown = [], []
            for part in parts():
                d = answer(part)
                if d.status == "refuted":
                    return d
                (unknown if d.status == "unknown" else answers).append(d)
            if unknown:
                return Decided("unknown", "; ".join(sorted({d.message for d in unknown})),
                               engine=unknown[0].engine)
            return combine(answers)
        case Decided() as d:
            return d
        case Procedure(run=run):
            return run()
        case IslEmpty(violations=build, witness=witness, proved=message):
            from polyhedral.isltools import point_of
            pt = point_of(build())
            return Decided("proved", message) if pt is None else witness(pt)
        case Z3Implies(query=build, witness=witness, proved=message, timeout=timeout, undecided=what):
            from smt.solver import decide as z3_decide
            stated = build()
            if isinstance(stated, Decided):  # the goal has no z3 form (a term z3 cannot state)
                return stated
            facts, claim = stated
            d = z3_decide(facts, claim, timeout)
            if d.status == "proved":
                return Decided("proved", message, engine="z3")
            if d.status == "refuted":
                return witness(d.model)
            return Decided("unknown", f"{what} ({d.reason})" if what else d.reason, engine="z3")
    raise TypeError(f"not a query: {query!r}")  # Goal.__post_init__ rules this out


def obligation(kind, op_index, op_text, statement, d: Decided, seconds: float = 0.0) -> Obligation:
    """The report record of a decided goal (its answer's statement, when set, refines the
    goal's)."""
    return Obligation(kind, op_index, op_text, d.statement or statement, d.engine, d.status, seconds, d.message,
                      d.counterexample, d.reassociates, d.locations)
