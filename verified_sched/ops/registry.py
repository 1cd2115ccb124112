"""The op registry: every schedule op, one module each, loaded on first use.

An op module (verified_sched/ops/<op>.py, or the `__init__` of a folder ops/<op>/) ends with
`SPEC = OpSpec(...)` (ops/spec.py): its record class (whose `SYNTAX` gives the parser, the
printer, the validation and the syntactic fuzz strategy), `apply`, its own `obligations` (the
driver adds the generic ones it keeps), its rounding, whether it is structural, its fuzz hooks
and its optional hooks, every field named. Consumers read `spec_for(op)`'s typed fields.
Adding an op is one module plus one line in `KEYWORDS` below: its DSL keyword, which is also
the name of its module under verified_sched/ops/ (tests/test_op_spec.py checks that every
line's module has a `SPEC` whose keyword is that line).

Lazy (issue 24 item 6, issue 23 item 8): naming an op imports nothing; `module_named`,
`spec_named`, `record_named`, `module_for` and `spec_for` import that one op's module, so
`vsched verify FILE` loads only the ops its schedules use (the parser asks for the keywords it
meets). `MODULES`, `OP_NAMES`, `OP_TYPES` and `SPECS` are every op, imported on first access
(the fuzzer, the docs and the parallel preload enumerate them all).

`KEYWORDS` order is the DSL's op order (error messages, `vsched fuzz --ops`, hypothesis draws).
A record whose type is not registered is an internal error (a bug), never a user's
`precondition` failure.
"""
from __future__ import annotations

import importlib

from ..core.errors import InternalError

KEYWORDS = (
    "split",
    "interchange",
    "retype",
    "unroll",
    "partition",
    "pad",
    "stage",
    "privatize",
    "expand_zero",
    "tensorize",
    "fuse_epilogue",
    "split_reduction",
    "winograd",
    "reverse",
    "shift",
)

# every op at once, computed on first access (module __getattr__): name -> builder
_ALL = {
    "MODULES": lambda: tuple(module_named(k) for k in KEYWORDS),
    "OP_NAMES": lambda: {k: record_named(k) for k in KEYWORDS},  # keyword -> record class
    "OP_TYPES": lambda: tuple(record_named(k) for k in KEYWORDS),
    "SPECS": lambda: tuple(spec_named(k) for k in KEYWORDS),  # the op contracts, in KEYWORDS order
}


def __getattr__(name: str):
    build = _ALL.get(name)
    if build is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = build()
    return value


def module_named(keyword: str):
    """The module of the op with DSL keyword `keyword` (KeyError if none), imported on first use."""
    if keyword not in KEYWORDS:
        raise KeyError(keyword)
    return importlib.import_module(f"{__package__}.{keyword}")


def spec_named(keyword: str):
    """The declared contract of the op with DSL keyword `keyword` (KeyError if none)."""
    return module_named(keyword).SPEC


def record_named(keyword: str) -> type:
    """The record class of the op with DSL keyword `keyword` (KeyError if none)."""
    return spec_named(keyword).record


def module_for(op):
    """The module implementing the op record `op` (InternalError if none is registered)."""
    syntax = getattr(type(op), "SYNTAX", None)
    keyword = getattr(syntax, "keyword", None)
    mod = module_named(keyword) if keyword in KEYWORDS else None
    if mod is None or mod.SPEC.record is not type(op):
        raise InternalError(f"schedule op record {type(op).__name__} has no registered module "
                            "(verified_sched/ops/registry.py)")
    return mod


def spec_for(op):
    """The declared contract (ops/spec.OpSpec) of the op record `op` (InternalError if none)."""
    return module_for(op).SPEC
