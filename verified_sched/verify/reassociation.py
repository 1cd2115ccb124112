"""Whether a kernel's schedule reassociates a reduction, without running the whole verifier.

`vsched run` compares a scheduled kernel bitwise unless the schedule may change rounding
(then within the precision's tolerance). That flag is the `reassociates` of the kernel's
verify report; this module computes the same flag from the only obligations that can set it:
the `reassociation` half of the generic dependence check of each op, and the own
obligations of the ops that declare `OWN_REASSOCIATES = True` (tensorize: WMMA;
split_reduction: the two-pass regrouping). No in_bounds, coverage, race or hardware check,
no confirming or refuting runs (which compile C). An op whose precondition fails stops the
walk, as it stops verification.
"""
from __future__ import annotations

import time

from ..core import budget, ir
from ..core.budget import DEFAULT_TIMEOUT
from ..core.errors import ScheduleError


def schedule_reassociates(program: ir.Program, kernel_name: str, profile: str,
                          timeout: float = DEFAULT_TIMEOUT) -> bool:
    """The `reassociates` flag `verify_kernel` would report for the kernel's schedule."""
    sched = program.schedule_for(kernel_name)
    if sched is None:
        return False
    with budget.program(len(program.params)):
        return _walk(program, kernel_name, sched.ops, profile, timeout)


def _walk(program, kernel_name, ops, profile, timeout) -> bool:
    from ..ops import apply_op, op_spec
    from .discharge import discharge
    from ..ops.common import pin_provenance
    from .driver import OpContext, dependence_goal, own_obligations

    deadline = time.perf_counter() + timeout
    current = program
    for k, op in enumerate(ops, start=1):
        current = pin_provenance(current, kernel_name)
        try:
            after, reason = budget.guarded(lambda: apply_op(current, kernel_name, op), deadline)
        except ScheduleError:
            return False
        if reason is not None:
            return False
        ctx = OpContext(current, after, kernel_name, op, k, profile, timeout, deadline)
        spec = op_spec(op)
        if spec.own_reassociates:
            try:
                own = own_obligations(ctx)  # a budget hit there is an unknown, never a reassociation
            except ScheduleError:
                own = []
            if any(o.reassociates for o in own):
                return True
        if "reassociation" in spec.generic:
            if any(o.reassociates for o in discharge([dependence_goal(ctx, ("reassociation",))], deadline, k,
                                                     op.text())):
                return True
        current = after
    return False
