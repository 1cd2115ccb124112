"""unroll i [materialize]

Without materialize: the loop's axis becomes `unrolled` (a serial loop the backend repeats);
nothing else changes. With materialize: the loop must have constant bounds (after
simplification; symbolic bounds are a precondition failure) and is replaced by one copy of
its body per iteration, in order, with the iterator replaced by the constant in indices,
values, guards and provenance, then simplified (constant indices fold, guards the constant
decides disappear). Copies of one statement stay distinguishable for verification: the k-th
copy of statement S gets the id `S#k` (the original id is the part before the first '#').
Unrolling preserves the iteration order exactly; no op-specific obligation.
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Optional

from ..core import ir
from ..core.errors import Loc
from ..core.ir import Int
from ..core.op_syntax import OPTIONS, OpRecord, Option, Syntax, loc_field, loop_field
from ..analysis.simplify import fold_index
from . import common, drawing, kernel_parts
from .common import error
from .spec import ALL_GENERIC, OpSpec


@dataclass(frozen=True)
class Unroll(OpRecord):
    SYNTAX = Syntax("unroll", (loop_field(), OPTIONS), (Option("materialize", "flag"),))
    loop: str
    materialize: bool = False
    loc: Optional[Loc] = loc_field()


RECORD = Unroll  # the op record this module applies (ops/registry.py)

MAX_COPIES = 4096


def apply(program: ir.Program, kernel_name: str, op: Unroll) -> ir.Program:
    kernel, site = common.loop_site(program, kernel_name, op)
    loop = site.stmt
    if not op.materialize:
        new = (dataclasses.replace(loop, axis="unrolled"),)
    else:
        if ir.is_hardware(loop.axis):
            raise error(op, f"loop '{op.loop}': a {loop.axis} loop cannot be materialized")
        ctx = common.context_at(program, site)
        lo, hi = fold_index(loop.lo, ctx), fold_index(loop.hi, ctx)
        if not (isinstance(lo, Int) and isinstance(hi, Int)):
            raise error(op, f"loop '{op.loop}': materialize needs constant bounds")
        if hi.value - lo.value > MAX_COPIES:
            raise error(op, f"loop '{op.loop}': {hi.value - lo.value} iterations is more than "
                            f"{MAX_COPIES} copies")
        new = ()
        for k, v in enumerate(range(lo.value, hi.value)):
            body = common.subst(loop.body, {loop.var: Int(v)})
            new += common.copy_sids(body, k)
    return common.rewrite_at(program, kernel, site.path, new)


def obligations(ctx) -> list:
    """No op-specific obligation (order is preserved; the generic ones apply)."""
    return []


# ---------------------------------------------------------------- fuzz strategy (fuzz/schedules.py)

possible = kernel_parts.has_loops


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """Mostly a loop with constant bounds (when there is one), fully or partly unrolled."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    nodes = kernel_parts.loop_nodes(program.kernel(kernel_name))
    const = [f.var for f in nodes if isinstance(f.hi, ir.Int) and isinstance(f.lo, ir.Int)]
    if not nodes:
        return None
    pick = functools.partial(drawing.pick, draw)
    loop = pick(const) if const and draw(st.integers(0, 3)) else pick([f.var for f in nodes])
    return Unroll(loop, draw(st.booleans()))


def draw_by_name(draw, loop: str, loops: list, fresh):  # noqa: ARG001 - the by-name hook's signature
    """fuzz/records.schedules_for's draw: `loop` unrolled (fully or not)."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    return Unroll(loop, draw(st.booleans())), loops


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=ALL_GENERIC,
              own_reassociates=False, exact_rounding=False, structural=False, fuzz_weight=1,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=draw_by_name, by_name_weight=1,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
