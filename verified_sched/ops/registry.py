"""The op registry: every schedule op, one module each, imported explicitly.

An op module (verified_sched/ops/<op>.py, or the `__init__` of a folder ops/<op>/) ends with
`SPEC = OpSpec(...)` (ops/spec.py): its record class (whose `SYNTAX` gives the parser, the
printer, the validation and the syntactic fuzz strategy), `apply`, its own `obligations` (the
driver adds the generic ones it keeps), its rounding, whether it is structural, its fuzz hooks
and its optional hooks, every field named. Consumers read `spec_for(op)`'s typed fields.
Adding an op is one module plus one line in `MODULES` below.

`MODULES` order is the DSL's op order (error messages, `vsched fuzz --ops`, hypothesis draws).
A record whose type is not registered is an internal error (a bug), never a user's
`precondition` failure.
"""
from __future__ import annotations

from ..core.errors import InternalError
from . import (expand_zero, fuse_epilogue, interchange, pad, partition, privatize, retype, reverse, shift, split,
               split_reduction, stage, tensorize, unroll, winograd)

MODULES = (split, interchange, retype, unroll, partition, pad, stage, privatize, expand_zero, tensorize,
           fuse_epilogue, split_reduction, winograd, reverse, shift)

# keyword -> record class, record class -> module
OP_NAMES = {m.RECORD.SYNTAX.keyword: m.RECORD for m in MODULES}
OP_TYPES = tuple(OP_NAMES.values())
_BY_RECORD = {m.RECORD: m for m in MODULES}
SPECS = tuple(m.SPEC for m in MODULES)  # the op contracts (ops/spec.OpSpec), in MODULES order


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


def spec_for(op):
    """The declared contract (ops/spec.OpSpec) of the op record `op` (InternalError if none)."""
    return module_for(op).SPEC


def spec_named(keyword: str):
    """The declared contract of the op with DSL keyword `keyword` (KeyError if none)."""
    return module_named(keyword).SPEC
