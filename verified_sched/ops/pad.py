"""pad i to F

Extend `for i in 0 .. N` to `for i in 0 .. F*floor((N + F - 1)/F)` (the least multiple of F
that is >= N) and guard every effectful leaf of the body (assignment, zero, tensor-core block)
with `if i < N`. Leaf guards, not one guard around the body, keep the nest perfect and
barriers under uniform control flow. The pad iterations do nothing, so the op preserves
semantics unconditionally. When isl proves that F divides N (for all sizes satisfying the
constraints, in the loop's context) the op is the identity. The loop must start at 0 and F
must be a positive integer. No op-specific obligation.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from ..core import ir
from ..core.errors import Loc
from ..core.ir import BinOp, Cmp, FloorDiv, Int, Mod, Var
from ..core.op_syntax import Field, OpRecord, Syntax, Word, loc_field, loop_field
from . import common, drawing, kernel_parts
from .spec import ALL_GENERIC, OpSpec


@dataclass(frozen=True)
class Pad(OpRecord):
    SYNTAX = Syntax("pad", (loop_field(), Word("to", "in pad"), Field("to", "int", "pad multiple")))
    loop: str
    to: int
    loc: Optional[Loc] = loc_field()


RECORD = Pad  # the op record this module applies (ops/registry.py)


def apply(program: ir.Program, kernel_name: str, op: Pad) -> ir.Program:
    kernel, site = common.loop_site(program, kernel_name, op)
    loop = site.stmt
    ctx = common.zero_start_context(program, site, op, f"loop '{op.loop}': starts at a value other than 0; "
                                                       f"pad needs a loop from 0")
    f, n = op.to, loop.hi
    if ctx.decide(Cmp("==", Mod(n, f), Int(0))) is True:
        return program
    hi = BinOp("*", Int(f), FloorDiv(BinOp("+", n, Int(f - 1)), f))
    body = common.guard_leaves(loop.body, Cmp("<", Var(loop.var), n))
    new = dataclasses.replace(loop, hi=hi, body=body)
    return common.rewrite_at(program, kernel, site.path, (new,))


def obligations(ctx) -> list:
    """No op-specific obligation: pad iterations are guarded no-ops."""
    return []


# ---------------------------------------------------------------- fuzz strategy (fuzz/schedules.py)

possible = kernel_parts.has_loops


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """One of the kernel's loops padded to a multiple of 2, 4 or 8 (None without loops)."""
    loops = kernel_parts.loop_names(program.kernel(kernel_name))
    return Pad(drawing.pick(draw, loops), drawing.pick(draw, (2, 4, 8))) if loops else None


def draw_by_name(draw, loop: str, loops: list, fresh):  # noqa: ARG001 - the by-name hook's signature
    """fuzz/records.schedules_for's draw: `loop` padded to a multiple of 2..8."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    return Pad(loop, draw(st.integers(2, 8))), loops


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=ALL_GENERIC,
              own_reassociates=False, exact_rounding=False, structural=False, fuzz_weight=1,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=draw_by_name, by_name_weight=1,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
