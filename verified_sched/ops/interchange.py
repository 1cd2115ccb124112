"""interchange i, j

Swap two perfectly nested loops: `for i { for j { B } }` becomes `for j { for i { B } }`, each
loop keeping its bounds and axis type. The names may be given in either order. Perfect means
the outer loop's body is exactly the inner loop, except for guards `if C { ... }` (no else)
that mention neither loop: those move inward with the body (they are invariant in both).
The inner loop's bounds must not mention the outer iterator (a triangular nest is not a
rectangle to transpose). Statement ids and provenance are unchanged: iterators keep their
names. Whether the new order keeps every dependence is the driver's `dependence` and
`reassociation` obligations; this op has no obligations of its own.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from ..core import ir
from ..core.errors import Loc
from ..core.ir import For, If
from ..core.op_syntax import Comma, OpRecord, Syntax, loc_field, loop_field
from ..analysis.simplify import simplify_kernel
from . import common, drawing, kernel_parts
from .common import error
from .spec import ALL_GENERIC, OpSpec


@dataclass(frozen=True)
class Interchange(OpRecord):
    SYNTAX = Syntax("interchange", (loop_field("a"), Comma("between the two loops of interchange"), loop_field("b")))
    a: str
    b: str
    loc: Optional[Loc] = loc_field()


RECORD = Interchange  # the op record this module applies (ops/registry.py)


def _peel(outer: For, inner_name: str, op) -> tuple:
    """(guards between the loops, the inner loop) or a ScheduleError."""
    guards = []
    body = outer.body
    while True:
        if len(body) != 1:
            raise error(op, f"loops '{outer.var}' and '{inner_name}' are not perfectly nested: "
                            f"the body of '{outer.var}' has {len(body)} statements")
        s = body[0]
        match s:
            case For(var=v) if v == inner_name:
                return tuple(guards), s
            case If(cond=c, then=then, orelse=()):
                mentioned = ir.free_vars(c) & {outer.var, inner_name}
                if mentioned:
                    raise error(op, f"loops '{outer.var}' and '{inner_name}' are not perfectly "
                                    f"nested: a guard between them mentions '{sorted(mentioned)[0]}'")
                guards.append(s)
                body = then
            case _:
                raise error(op, f"loops '{outer.var}' and '{inner_name}' are not perfectly "
                                f"nested: '{inner_name}' is not directly inside '{outer.var}'")


def apply(program: ir.Program, kernel_name: str, op: Interchange) -> ir.Program:
    kernel = common.get_kernel(program, kernel_name, op)
    if op.a == op.b:
        raise error(op, f"loop '{op.b}': cannot interchange a loop with itself")
    sa = common.find_loop(kernel, op.a, op, "loop")
    sb = common.find_loop(kernel, op.b, op, "loop")
    if sa.path == sb.path:
        raise error(op, f"loop '{op.b}': cannot interchange a loop with itself")
    if sa.path == sb.path[:len(sa.path)]:
        outer_site, inner_site = sa, sb
    elif sb.path == sa.path[:len(sb.path)]:
        outer_site, inner_site = sb, sa
    else:
        raise error(op, f"loops '{op.a}' and '{op.b}': neither encloses the other")
    outer = outer_site.stmt
    guards, inner = _peel(outer, inner_site.stmt.var, op)
    if inner is not inner_site.stmt:
        raise error(op, f"loops '{outer.var}' and '{inner.var}' are not perfectly nested: the loop "
                        f"named is not directly inside '{outer.var}'")
    if outer.var in ir.free_vars((inner.lo, inner.hi)):
        raise error(op, f"loop '{inner.var}': its bounds depend on the outer iterator "
                        f"'{outer.var}' (not a rectangular nest)")
    body = inner.body
    for g in reversed(guards):
        body = (dataclasses.replace(g, then=body),)
    new_inner = dataclasses.replace(outer, body=body)
    new_outer = dataclasses.replace(inner, body=(new_inner,))
    kernel2 = common.replace_at(kernel, outer_site.path, (new_outer,))
    return program.with_kernel(simplify_kernel(program, kernel2))


def obligations(ctx) -> list:
    """Interchange has no op-specific obligations (dependence/reassociation are generic)."""
    return []


# ---------------------------------------------------------------- fuzz strategy (fuzz/schedules.py)


def possible(program: ir.Program, kernel_name: str) -> bool:
    return len(kernel_parts.loop_nodes(program.kernel(kernel_name))) >= 2


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """Mostly a perfectly nested pair of loops, else any two distinct loops (None with
    fewer than two)."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    kernel = program.kernel(kernel_name)
    loops = kernel_parts.loop_names(kernel)
    pairs = kernel_parts.nested_pairs(kernel)
    if pairs and draw(st.integers(0, 4)):
        return Interchange(*drawing.pick(draw, pairs))
    if len(loops) < 2:
        return None
    a = drawing.pick(draw, loops)
    return Interchange(a, drawing.pick(draw, [x for x in loops if x != a]))


def draw_by_name(draw, loop: str, loops: list, fresh):  # noqa: ARG001 - the by-name hook's signature
    """fuzz/records.schedules_for's draw: `loop` interchanged with another loop name (None with
    fewer than two loops)."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    if len(loops) < 2:
        return None
    other = draw(st.sampled_from([x for x in loops if x != loop]))
    return Interchange(loop, other), loops


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=ALL_GENERIC,
              own_reassociates=False, exact_rounding=False, structural=False, fuzz_weight=1,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=draw_by_name, by_name_weight=1,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
