"""shift i to 0

Loop normalization: `for i in lo .. hi { B }` becomes `for i in 0 .. hi - lo { B' }` where B'
is B with i := i + lo substituted (indices, values, guards, the bounds of inner loops and the
provenance of every statement), so iteration i of the new loop does what iteration i + lo of
the old one did. The loop keeps its name and axis type; the order of the iterations and the
statement ids are unchanged. A loop that already starts at 0 comes back unchanged (up to the
simplifier). Ops that need a loop from 0 (`pad`, `retype` to a hardware kind) apply after it.

Legal for every loop: the rewrite is an order-preserving bijection of the iteration space.
This is not assumed but proved by the driver's generic obligations, like any op's: `coverage`
(every original instance runs exactly once, through the provenance i = i' + lo), `dependence`
(every dependence keeps its order), `reassociation` and `in_bounds` (the same cells are
accessed). This op has no obligations of its own.

The whole op is this module: its record and syntax, `apply`, `obligations`, and the fuzzer's
`possible` and `draw_applicable` (docs/architecture.md, "Adding an op").
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from ..core import ir
from ..core.errors import Loc
from ..core.op_syntax import Custom, OpRecord, Syntax, Word, loop_field
from . import common, drawing, kernel_parts
from .spec import ALL_GENERIC, OpSpec


def _zero_parse(ts, outputs) -> tuple:  # noqa: ARG001 - the Custom form's signature
    tok = ts.peek()
    value, _ = ts.int_literal("the start of a shifted loop", minimum=None)
    if value != 0:
        raise ts.error(f"shift moves a loop to start at 0 (write 'to 0'), not at {value}", tok)
    return ()


def _zero_draw(draw, params: tuple) -> tuple:  # noqa: ARG001 - nothing to draw
    return ()


@dataclass(frozen=True)
class Shift(OpRecord):
    SYNTAX = Syntax("shift", (loop_field(), Word("to", "in shift"),
                              Custom((), _zero_parse, lambda op: " 0", _zero_draw)))
    loop: str
    loc: Optional[Loc] = dataclasses.field(default=None, compare=False, repr=False, kw_only=True)


RECORD = Shift  # the op record this module applies (ops/registry.py)


def apply(program: ir.Program, kernel_name: str, op: Shift) -> ir.Program:
    kernel, site = common.loop_site(program, kernel_name, op)
    loop = site.stmt
    moved = ir.BinOp("+", ir.Var(loop.var), loop.lo)
    new = dataclasses.replace(loop, lo=ir.Int(0), hi=ir.BinOp("-", loop.hi, loop.lo),
                              body=common.subst(loop.body, {loop.var: moved}))
    return common.rewrite_at(program, kernel, site.path, (new,))


def obligations(ctx) -> list:
    """None of its own: the generic coverage, dependence, reassociation and in_bounds
    obligations decide it (they prove the renaming an order-preserving bijection)."""
    return []


# the fuzzer's strategy (verified_sched/fuzz/schedules.py)
possible = kernel_parts.has_loops


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """`shift` of one of the kernel's uniquely named loops, or None when it has none."""
    loops = kernel_parts.loop_names(program.kernel(kernel_name))
    return Shift(drawing.pick(draw, loops)) if loops else None


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=ALL_GENERIC,
              own_reassociates=False, exact_rounding=False, structural=False, fuzz_weight=1,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=None, by_name_weight=0,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
