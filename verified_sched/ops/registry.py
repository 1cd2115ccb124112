"""The op registry: every schedule op, one module each, imported explicitly.

An op module (verified_sched/ops/<op>.py) holds `RECORD` (its record class, whose `SYNTAX`
gives the parser, the printer, the validation and the syntactic fuzz strategy), `apply(program,
kernel_name, op)`, `obligations(ctx)` (its own; the driver adds the generic ones, narrowed by
an optional `GENERIC` tuple), its fuzz strategy `possible(program, kernel_name)` (anything to
draw over?) and `draw_applicable(draw, program, kernel_name)` (a record drawn over the kernel
as it stands; None when it has nothing to draw over), optionally `FUZZ_WEIGHT` (default 1)
and `draw_recipe(draw, program, kernel_name, ops)` (fuzz/schedules.py), and optionally
`EXACT_ROUNDING`. Adding an op is one module plus one line in `MODULES` below.

`MODULES` order is the DSL's op order (error messages, `vsched fuzz --ops`, hypothesis draws).
A record whose type is not registered is an internal error (a bug), never a user's
`precondition` failure.
"""
from __future__ import annotations

from ..errors import InternalError
from . import (expand_zero, fuse_epilogue, interchange, pad, partition, privatize, retype, reverse, shift, split,
               split_reduction, stage, tensorize, unroll, winograd)

MODULES = (split, interchange, retype, unroll, partition, pad, stage, privatize, expand_zero, tensorize,
           fuse_epilogue, split_reduction, winograd, reverse, shift)

# keyword -> record class, record class -> module
OP_NAMES = {m.RECORD.SYNTAX.keyword: m.RECORD for m in MODULES}
OP_TYPES = tuple(OP_NAMES.values())
_BY_RECORD = {m.RECORD: m for m in MODULES}


def module_for(op):
    """The module implementing the op record `op` (InternalError if none is registered)."""
    mod = _BY_RECORD.get(type(op))
    if mod is None:
        raise InternalError(f"schedule op record {type(op).__name__} has no registered module "
                            "(verified_sched/ops/registry.py)")
    return mod


def module_named(keyword: str):
    """The module of the op with DSL keyword `keyword` (KeyError if none)."""
    return _BY_RECORD[OP_NAMES[keyword]]
