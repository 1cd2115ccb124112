"""Schedule ops: one module per op, each with a pure `apply(program, kernel_name, op)` and
its op-specific `obligations(ctx)`. `apply_op` dispatches on the op record's type; every op's
apply ends with the simplifier, so a returned kernel prints clean.

Each op record type maps to a module of this package (or of `verified_sched.rewrites`); an
op whose module is missing is a precondition failure naming the op.
"""
from __future__ import annotations

import importlib

from .. import schedule as S
from ..errors import ScheduleError

_MODULES = {
    S.Split: "split", S.Interchange: "interchange", S.Retype: "retype", S.Unroll: "unroll",
    S.Partition: "partition", S.Pad: "pad", S.ExpandZero: "expand_zero",
    S.Stage: "stage", S.Privatize: "privatize", S.Tensorize: "tensorize",
    S.FuseEpilogue: "fuse_epilogue", S.SplitReduction: "split_reduction", S.Winograd: "winograd",
}


def op_module(op):
    """The module implementing `op` (ScheduleError if that op is not available)."""
    name = _MODULES.get(type(op))
    if name is None:
        raise ScheduleError(f"unknown schedule op {op!r}", getattr(op, "loc", None))
    for package in (__name__, "verified_sched.rewrites"):
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as e:
            if e.name not in (f"{package}.{name}", package):
                raise
    raise ScheduleError(f"{S.op_name(op)}: this op is not implemented", getattr(op, "loc", None),
                        op=op.text())


def apply_op(program, kernel_name: str, op):
    """The program after applying `op` to kernel `kernel_name` (pure; ScheduleError when the
    op's preconditions fail). A result that is not well formed (e.g. a loop holding a barrier
    retyped to vectorized) is the op's precondition failure too, never a malformed kernel."""
    from .. import apply_memo
    from .common import pin_provenance

    program = pin_provenance(program, kernel_name)
    apply = op_module(op).apply
    return apply_memo.cached(program, kernel_name, op, apply, lambda: _apply(program, kernel_name, op, apply))


def _apply(program, kernel_name: str, op, apply):
    from ..errors import ParseError
    from ..wellformed import check_kernel

    after = apply(program, kernel_name, op)
    if after is not program:
        try:
            check_kernel(after, after.kernel(kernel_name))
        except ParseError as e:
            raise ScheduleError(f"{S.op_name(op)}: the result would not be well formed: {e.message}",
                                getattr(op, "loc", None), op=op.text()) from None
    return after


def op_obligations(ctx) -> list:
    """The op-specific obligations of the op in `ctx` (the driver adds the generic ones)."""
    return list(op_module(ctx.op).obligations(ctx))
