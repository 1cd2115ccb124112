"""Schedule ops: one module per op (listed in ops/registry.py), each with its record, a pure
`apply(program, kernel_name, op)` and its op-specific `obligations(ctx)`. `apply_op`
dispatches on the op record's type; every op's apply ends with the simplifier, so a returned
kernel prints clean. A record type with no registered module is an internal error.
"""
from __future__ import annotations

from ..core.errors import ScheduleError
from ..core.op_syntax import op_name


def op_spec(op):
    """The declared contract (ops/spec.OpSpec) of `op`'s op (InternalError if none is registered)."""
    from .registry import spec_for

    return spec_for(op)


def apply_op(program, kernel_name: str, op):
    """The program after applying `op` to kernel `kernel_name` (pure; ScheduleError when the
    op's preconditions fail). A result that is not well formed (e.g. a loop holding a barrier
    retyped to vectorized) is the op's precondition failure too, never a malformed kernel."""
    from . import apply_memo
    from .common import pin_provenance

    program = pin_provenance(program, kernel_name)
    apply = op_spec(op).apply
    return apply_memo.cached(program, kernel_name, op, apply, lambda: _apply(program, kernel_name, op, apply))


def _apply(program, kernel_name: str, op, apply):
    from ..core.errors import ParseError
    from ..analysis.wellformed import check_kernel

    after = apply(program, kernel_name, op)
    if after is not program:
        try:
            check_kernel(after, after.kernel(kernel_name))
        except ParseError as e:
            raise ScheduleError(f"{op_name(op)}: the result would not be well formed: {e.message}",
                                getattr(op, "loc", None), op=op.text()) from None
    return after


def apply_schedule(program, kernel_name: str, upto: int | None = None):
    """The program after the first `upto` ops (all when None) of `kernel_name`'s schedule
    (the program itself when it has none): the one way the CLI and the tests apply a schedule
    (the verifier applies op by op, with an obligation context between)."""
    sched = program.schedule_for(kernel_name)
    for op in (sched.ops if sched else ())[:upto]:
        program = apply_op(program, kernel_name, op)
    return program


def op_goals(ctx) -> list:
    """The op-specific goals of the op in `ctx` (obligations.Goal records, discharged by the
    driver, which adds the generic ones)."""
    return list(op_spec(ctx.op).obligations(ctx))
