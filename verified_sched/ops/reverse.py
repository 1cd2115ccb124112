"""reverse i

Run a loop's iterations in the opposite order: `for i in lo .. hi { B }` becomes
`for i in lo .. hi { B' }` where B' is B with i := lo + hi - 1 - i substituted (indices,
values, guards and the provenance of every statement), so the first iteration now does what
the last one did. The loop keeps its name, bounds and axis type. Statement ids are unchanged.

Legal exactly when no dependence is carried by the loop: that is the driver's generic
`dependence` obligation (every pair of dependent instances keeps its order), with the
`reassociation` obligation for a reduction carried by the loop (reordering a sum is legal
under the default profile and reported as a reassociation, illegal under `reproducible`).
A refutation names the two instances whose order the reversal swaps; `vsched run` replays it.
This op has no obligations of its own.

The whole op is this module: its record and syntax, `apply`, `obligations`, and the fuzzer's
`possible` and `draw_applicable` (docs/architecture.md, "Adding an op").
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from ..core import ir
from ..core.errors import Loc
from ..core.op_syntax import OpRecord, Syntax, loop_field
from . import common, drawing, kernel_parts
from .spec import ALL_GENERIC, OpSpec


@dataclass(frozen=True)
class Reverse(OpRecord):
    SYNTAX = Syntax("reverse", (loop_field(),))
    loop: str
    loc: Optional[Loc] = dataclasses.field(default=None, compare=False, repr=False, kw_only=True)


RECORD = Reverse  # the op record this module applies (ops/registry.py)


def apply(program: ir.Program, kernel_name: str, op: Reverse) -> ir.Program:
    kernel, site = common.loop_site(program, kernel_name, op)
    loop = site.stmt
    # lo + hi - 1 - i: an affine expression over the loop's own iterator and the bounds' names
    mirror = ir.BinOp("-", ir.BinOp("-", ir.BinOp("+", loop.lo, loop.hi), ir.Int(1)), ir.Var(loop.var))
    new = dataclasses.replace(loop, body=common.subst(loop.body, {loop.var: mirror}))
    return common.rewrite_at(program, kernel, site.path, (new,))


def obligations(ctx) -> list:
    """None of its own: the generic dependence (and reassociation) obligation decides it."""
    return []


# the fuzzer's strategy (verified_sched/fuzz/schedules.py): whether the kernel has anything to
# draw over, and a record drawn over it (FUZZ_WEIGHT, how often it is drawn, defaults to 1)
possible = kernel_parts.has_loops


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """`reverse` of one of the kernel's uniquely named loops, or None when it has none."""
    loops = kernel_parts.loop_names(program.kernel(kernel_name))
    return Reverse(drawing.pick(draw, loops)) if loops else None


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=ALL_GENERIC,
              own_reassociates=False, exact_rounding=False, structural=False, fuzz_weight=1,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=None, by_name_weight=0,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
