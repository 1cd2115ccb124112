"""The `independence` goal of a parallel (vectorized or hardware) loop, as data.

Formal statement: no two instances inside the loop with different values of its iterator
conflict (one writes a cell the other accesses), where for a vectorized loop the enclosing
iterations are equal and for a hardware loop only the enclosing hardware indices are
(different hardware indices are unordered across enclosing serial loops; barrier phases of
one block order its threads). Two `IslEmpty` parts (polyhedral/checks.py
`independence_sets`): the exactly modelled conflicts (a sample point is the refutation) and
those through a data-dependent guard or index (non-empty: unknown).
"""
from __future__ import annotations

from functools import cache

from polyhedral import checks
from polyhedral.model import KernelModel
from ...core.obligations import AllOf, Decided, Goal, IslEmpty


def independence_goal(model: KernelModel, loop, inside, depth: int, label: str = "after") -> Goal:
    """The goal for `loop` (found by checks.parallel_loops: the statements `inside` it, its
    `depth`); `label` names the side in counterexamples."""
    sets = cache(lambda: checks.independence_sets(model, loop, inside, depth))
    may = Decided("unknown", f"iterations of {loop.var} may conflict through a data-dependent guard or index")
    parts = [IslEmpty(lambda: sets()[0],
                      lambda pt: checks.independence_witness(model, loop, depth, label, pt, sets()[0], sets()[2])),
             IslEmpty(lambda: sets()[1], lambda pt: may)]
    proved = Decided("proved", f"iterations of {loop.var} ({loop.axis}) are independent")
    return Goal("independence", checks.independence_statement(loop), AllOf(lambda: parts, lambda answers: proved))


def independence(model: KernelModel, loop, inside, depth: int, label: str = "after"):
    """The goal discharged on its own (no deadline): its Obligation."""
    from ..discharge import discharge
    return discharge([independence_goal(model, loop, inside, depth, label)], 0.0)[0]
