"""partition i at B1, ..., Bm -> i0, ..., im   |   partition i auto -> i0, ..., im

Index-set splitting: `for i in lo .. hi { B }` becomes consecutive segment loops
`for i0 in c0 .. c1 { B[i := i0] } ... for im in cm .. c(m+1) { B[i := im] }`, iteration order
preserved exactly, each segment a copy of the body (statement ids S#k for segment k) with its
own fresh iterator, so later ops can address one segment; the loops inside segment k >= 1 are
named apart, v -> v_ik (ik the segment's name; common.rename_segment_loops). The trailing simplify folds the
guards each segment decides (a concatenation's `if i < N` is true in [lo, N), false after).

Soundness for all sizes: a breakpoint may fall outside [lo, hi] or two may come out of order
for some sizes, so the cut points are clamped cumulatively,
c0 = lo, ck = max(c(k-1), min(Bk, hi)), c(m+1) = hi, which always partitions [lo, hi) exactly
(segments that would be reversed become empty); the simplifier removes the min/max that the
parameter constraints decide, so the common case prints the plain breakpoints.

auto finds the breakpoints from the affine comparisons in the body's guards (if conditions
and where conditions) that compare the loop iterator with an expression free of iterators
bound inside the loop: the flip point of `c*i + r >= 0` is ceil(-r/c) for c > 0 and
floor(r/-c) + 1 for c < 0 (`<`, `<=`, `>`, `==`, `!=` reduce to that form). A guard that also
mentions inner iterators with constant ranges (a split's remainder guard `32*io + ii < N` seen
from io) gives two points: where it starts holding for the whole inner range and where it
stops holding for all of it (the last fully valid tile). Points that isl proves at or outside
[lo, hi] are dropped; the rest are deduplicated and ordered where isl can compare them. The number of names must be the number
of breakpoints plus one. Hardware loops cannot be partitioned (segments start past 0).
No op-specific obligation: coverage and dependence are the driver's.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

from ..core import ir
from ..core.errors import Loc
from ..core.ir import And, BinOp, Call, Cmp, FloorDiv, For, If, Int, Not, Or, Var, Where
from ..core.op_syntax import Custom, OpRecord, Syntax, loc_field, loop_field
from ..analysis.simplify import linear_form, render_linear, fold_index
from . import common, drawing, kernel_parts
from .common import error
from .spec import ALL_GENERIC, OpSpec


def _partition_parse(ts, outputs) -> tuple:
    if ts.at_word("auto"):
        ts.next()
        names = outputs(ts, "loop name")
        if len(names) < 2:
            raise ts.error("partition auto needs at least two segment names", ts.peek())
        return None, names
    ts.expect_word("at", "or 'auto' in partition")
    points = [ts.expr()]
    while ts.at_op(","):
        ts.next()
        points.append(ts.expr())
    return tuple(points), outputs(ts, "loop name", len(points) + 1)


def _partition_text(op) -> str:
    from ..core.printer import expr_text  # late import: the printer's package imports the ops

    at = "auto" if op.breakpoints is None else "at " + ", ".join(expr_text(b) for b in op.breakpoints)
    return f" {at} -> {', '.join(op.names)}"


def _partition_draw(draw, params: tuple) -> tuple:
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    from .fuzz_names import aff_expr

    if not params or draw(st.booleans()):
        return None, tuple(f"p{n}" for n in range(draw(st.integers(2, 3))))
    forms = st.builds(lambda p, c, k: aff_expr({p: c, 1: k}), st.sampled_from(params),
                      st.integers(1, 3), st.integers(-2, 2))
    points = tuple(draw(st.lists(forms, min_size=1, max_size=2)))
    return points, tuple(f"p{n}" for n in range(len(points) + 1))


@dataclass(frozen=True)
class Partition(OpRecord):
    """`breakpoints` is a tuple of ir expressions over params, or None for `auto`."""

    SYNTAX = Syntax("partition", (loop_field(), Custom(("breakpoints", "names"), _partition_parse,
                                                       _partition_text, _partition_draw)))
    loop: str
    breakpoints: Optional[tuple]
    names: tuple
    loc: Optional[Loc] = loc_field()


RECORD = Partition  # the op record this module applies (ops/registry.py)


def _cmps(c):
    match c:
        case Cmp():
            yield c
        case And(a=a, b=b) | Or(a=a, b=b):
            yield from _cmps(a)
            yield from _cmps(b)
        case Not(a=a):
            yield from _cmps(a)


def _conditions(stmts):
    for n in ir.walk(stmts):
        if isinstance(n, (If, Where)):
            yield n.cond


def _ge_forms(c: Cmp):
    """Linear forms g with `c` equivalent to (a conjunction of) g >= 0, flip-wise."""
    la, lb = linear_form(c.a, False), linear_form(c.b, False)
    if la is None or lb is None:
        return []

    def diff(x, y, k):  # x - y + k
        terms = dict(x[0])
        for t, v in y[0].items():
            terms[t] = terms.get(t, 0) - v
        return {t: v for t, v in terms.items() if v}, x[1] - y[1] + k

    match c.op:
        case "<":
            return [diff(lb, la, -1)]
        case "<=":
            return [diff(lb, la, 0)]
        case ">":
            return [diff(la, lb, -1)]
        case ">=":
            return [diff(la, lb, 0)]
    return [diff(lb, la, 0), diff(la, lb, 0)]


def _flip_points(form, var: str, inner: dict) -> list:
    """Breakpoints of the guard `form >= 0` along `var`. Terms over inner iterators with
    constant ranges (`inner`: name -> (lo, hi)) are bounded: the guard holds for the whole
    inner range from the first point and fails for all of it from the second (the last fully
    valid tile of a remainder guard)."""
    terms, const = form
    c = terms.get(Var(var), 0)
    rest = {t: v for t, v in terms.items() if t != Var(var)}
    outer = {t: v for t, v in rest.items() if not (ir.free_vars(t) & set(inner))}
    inside = {t: v for t, v in rest.items() if t not in outer}
    if c == 0 or ir.free_vars(tuple(outer)) & {var}:
        return []
    if any(not isinstance(t, Var) or t.name not in inner for t in inside):
        return []
    lo_s = sum(v * (inner[t.name][0] if v > 0 else inner[t.name][1] - 1) for t, v in inside.items())
    hi_s = sum(v * (inner[t.name][1] - 1 if v > 0 else inner[t.name][0]) for t, v in inside.items())
    points = []
    for k in sorted({lo_s, hi_s}):
        r = const + k
        if c > 0:  # var >= ceil(-r/c) = floor((-r + c - 1)/c)
            neg = {t: -v for t, v in outer.items()}
            points.append(fold_index(FloorDiv(render_linear(neg, -r + c - 1), c), None))
        else:  # var <= floor(r/-c)
            points.append(fold_index(BinOp("+", FloorDiv(render_linear(outer, r), -c), Int(1)), None))
    return points


def _inner_ranges(loop: For) -> dict:
    """Constant ranges of the iterators of loops inside `loop` (hull over same-named loops)."""
    out, skip = {}, set()
    for n in ir.walk(loop.body):
        if isinstance(n, For):
            if isinstance(n.lo, Int) and isinstance(n.hi, Int) and n.lo.value < n.hi.value:
                lo, hi = out.get(n.var, (n.lo.value, n.hi.value))
                out[n.var] = (min(lo, n.lo.value), max(hi, n.hi.value))
            else:
                skip.add(n.var)
    return {k: v for k, v in out.items() if k not in skip}


def auto_breakpoints(program, loop: For, ctx) -> list:
    inner = _inner_ranges(loop)
    bound_inside = {n.var for n in ir.walk(loop.body) if isinstance(n, For)}
    found = []
    for cond in _conditions(loop.body):
        for cmp in _cmps(cond):
            if ir.free_vars(cmp) & (bound_inside - set(inner)):
                continue
            for form in _ge_forms(cmp):
                for b in _flip_points(form, loop.var, inner):
                    if b in found:
                        continue
                    # a point at or outside the range cuts nothing
                    if ctx.decide(Cmp("<=", b, loop.lo)) or ctx.decide(Cmp(">=", b, loop.hi)):
                        continue
                    found.append(b)
    # order where isl decides (insertion sort; incomparable ones keep their order)
    ordered = []
    for b in found:
        pos = len(ordered)
        for k, o in enumerate(ordered):
            if ctx.decide(Cmp("<", b, o)) is True:
                pos = k
                break
        ordered.insert(pos, b)
    return ordered


def apply(program: ir.Program, kernel_name: str, op: Partition) -> ir.Program:
    kernel, site = common.loop_site(program, kernel_name, op)
    loop = site.stmt
    if ir.is_hardware(loop.axis):
        raise error(op, f"loop '{op.loop}': a {loop.axis} loop cannot be partitioned")
    ctx = common.context_at(program, site)
    if op.breakpoints is None:
        bps = auto_breakpoints(program, loop, ctx.with_iter(loop.var))
        if not bps:
            raise error(op, f"loop '{op.loop}': auto found no guard comparing '{loop.var}' with "
                            f"a bound to partition at")
        if len(op.names) != len(bps) + 1:
            raise error(op, f"names: auto found {len(bps)} breakpoint(s) "
                            f"({', '.join(_text(b) for b in bps)}), which needs {len(bps) + 1} "
                            f"names, not {len(op.names)}")
    else:
        bps = list(op.breakpoints)
        if not bps:
            raise error(op, "breakpoints: at least one is needed")
        if len(op.names) != len(bps) + 1:
            raise error(op, f"names: {len(bps)} breakpoint(s) make {len(bps) + 1} segments, "
                            f"but {len(op.names)} name(s) were given")
    common.check_fresh(program, kernel, op.names, op, "name", reusable=(loop.var,))
    cuts = [loop.lo]
    for b in bps:
        cuts.append(Call("max", (cuts[-1], Call("min", (b, loop.hi)))))
    cuts.append(loop.hi)
    segments = []
    used = common.used_names(program, kernel) | set(op.names)
    for k, name in enumerate(op.names):
        body = common.copy_sids(common.subst(loop.body, {loop.var: Var(name)}), k)
        if k:  # the loops inside a later segment are named apart: j -> j_i1 in segment i1
            body = common.rename_segment_loops(body, name, used)
        segments.append(For(name, cuts[k], cuts[k + 1], loop.axis, body, loc=loop.loc))
    return common.rewrite_at(program, kernel, site.path, tuple(segments))


def _text(e) -> str:
    from ..core.printer import expr_text
    return expr_text(e)


def obligations(ctx) -> list:
    """No op-specific obligation: the segments partition the range by construction."""
    return []


# ---------------------------------------------------------------- fuzz strategy (fuzz/schedules.py)

possible = kernel_parts.has_loops


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """A loop partitioned at its analyzed points, or at one drawn point (a parameter plus a
    small constant, or a constant), into fresh names (None when the kernel has no loop)."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    kernel = program.kernel(kernel_name)
    loops = kernel_parts.loop_names(kernel)
    if not loops:
        return None
    pick = functools.partial(drawing.pick, draw)
    fresh = kernel_parts.fresh
    v = pick(loops)
    if draw(st.booleans()) or not program.params:
        return Partition(v, None, tuple(fresh(program, kernel, f"{v}p{n}_") for n in range(2)))
    p = pick(tuple(program.params))
    c = pick((0, 1, 2, -1))
    bp = ir.Var(p) if c == 0 else ir.BinOp("+" if c > 0 else "-", ir.Var(p), ir.Int(abs(c)))
    if draw(st.booleans()):
        bp = ir.Int(pick((1, 2, 3)))
    return Partition(v, (bp,), (fresh(program, kernel, f"{v}p0_"), fresh(program, kernel, f"{v}p1_")))


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=ALL_GENERIC,
              own_reassociates=False, exact_rounding=False, structural=False, fuzz_weight=1,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=None, by_name_weight=0,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
