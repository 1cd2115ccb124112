"""retype i as AXIS

Change a loop's axis type in place (serial, vectorized, unrolled, block.x/y/z, thread.x/y/z).
A hardware kind needs the loop to start at 0 (the hardware index runs from 0), and a hardware
kind may not already be used by an enclosing or enclosed loop (one index per slot).
Nothing else changes: statement ids and provenance are untouched. Retyping to a parallel kind
(vectorized or hardware) asserts that distinct iterations are independent; that is the
driver's generic `independence` obligation, checked for every parallel loop of the kernel
after the op, so this op adds no obligation of its own.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from ..core import ir
from ..core.errors import Loc
from ..core.ir import For
from ..core.op_syntax import Field, OpRecord, Syntax, Word, loc_field, loop_field
from . import common, drawing, kernel_parts
from .common import error
from .spec import ALL_GENERIC, OpSpec


@dataclass(frozen=True)
class Retype(OpRecord):
    SYNTAX = Syntax("retype", (loop_field(), Word("as", "in retype"), Field("axis", "axis", "an axis type")))
    loop: str
    axis: str
    loc: Optional[Loc] = loc_field()


RECORD = Retype  # the op record this module applies (ops/registry.py)


def apply(program: ir.Program, kernel_name: str, op: Retype) -> ir.Program:
    kernel, site = common.loop_site(program, kernel_name, op)
    loop = site.stmt
    if ir.is_hardware(op.axis):
        common.zero_start_context(program, site, op, f"loop '{op.loop}': a {op.axis} loop must start at 0")
        inside = [n for n in ir.walk(loop.body) if isinstance(n, For)]
        for other in list(site.loops) + inside:
            if other.axis == op.axis:
                raise error(op, f"axis '{op.axis}': loop '{other.var}' already has it in the "
                                f"same nest")
        loop = dataclasses.replace(loop, lo=ir.Int(0))
    new = dataclasses.replace(loop, axis=op.axis)
    return common.rewrite_at(program, kernel, site.path, (new,))


def obligations(ctx) -> list:
    """No op-specific obligation: independence of parallel loops is the driver's, generic."""
    return []


# ---------------------------------------------------------------- fuzz strategy (fuzz/schedules.py)

FUZZ_AXES = ("serial", "vectorized", "unrolled", "block.x", "block.y", "thread.x", "thread.y")
possible = kernel_parts.has_loops


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """One of the kernel's loops retyped to one of FUZZ_AXES (None when it has no loop)."""
    loops = kernel_parts.loop_names(program.kernel(kernel_name))
    return Retype(drawing.pick(draw, loops), drawing.pick(draw, FUZZ_AXES)) if loops else None


def draw_by_name(draw, loop: str, loops: list, fresh):  # noqa: ARG001 - the by-name hook's signature
    """fuzz/records.schedules_for's draw: `loop` retyped to any axis."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    return Retype(loop, draw(st.sampled_from(ir.AXES))), loops


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=ALL_GENERIC,
              own_reassociates=False, exact_rounding=False, structural=False, fuzz_weight=1,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=draw_by_name, by_name_weight=1,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
