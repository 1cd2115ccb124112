"""split i by F -> io, ii [tail=...] [partition=...]

`for i in 0 .. N { B }` becomes `for io in 0 .. floor((N + F - 1)/F) { for ii in 0 .. F { B' } }`
where B' is B with i := F*io + ii substituted (indices, values, guards and the provenance of
every assignment). io keeps the loop's axis type, ii is serial. F must be a positive integer.
A loop `for i in lo .. hi` with lo not provably 0 is split in place, its tiles starting at the
lower bound: i := lo + F*io + ii over the extent N = hi - lo (every form below with i offset
by lo, the in-range condition `lo + F*io + ii < hi`). Let p be `F*io + ii < N` (the lane is
in range).

Tail strategies (IR renderings; Halide's names):
- guard (GuardWithIf): every effectful leaf (assignment, zero, tensor-core block) becomes
  `if p { leaf }`; the nest stays perfect. An `if` whose condition reads memory counts as a
  leaf and is wrapped whole (its condition must not read outside storage on extra lanes).
  The simplifier drops the guard where isl proves it.
- round_up: no guard; the extra lanes run (verification refutes in_bounds unless padding
  absorbs them, and coverage checks that they only write don't-care cells).
- predicate (RoundUp + predicated loads + predicated stores): the leaf runs only for in-range
  lanes, loads and store alike. In this IR an assignment's value is evaluated only where it is
  stored, so the rendering is the leaf guard `if p { leaf }` (as guard).
- predicate_loads (RoundUp + predicated loads): the store is unguarded (it runs for every
  lane), every load whose index depends on io/ii (in values and in data-dependent `if`
  conditions) becomes `where(p, load, 0)` - `where` is lazy,
  so a masked load touches no memory and yields 0 of its tensor's type (loads inside an index,
  where no `where` may stand, are covered by the enclosing masked load; a dynamic store index
  is computed for every lane).
- predicate_stores (RoundUp + predicated stores): the store is guarded, `if p { leaf }`. In
  Halide the loads feeding a predicated store stay unmasked (a vector load of every lane) and
  bounds inference asks the inputs to cover the rounded-up range. Here every backend evaluates
  an assignment's value only where it stores it, so no lane past N loads anything: the
  rendering, the code and the verdict are those of predicate (no obligation of its own; one
  that refuted loads no backend performs could never be replayed by a run).
- shift_inward: i := min(F*io, N - F) + ii, no guard: the last tile is shifted back to end at
  N and recomputes lanes of the previous tile (provenance reflects the min). The recomputation
  must write equal values (the driver's coverage obligation refutes an accumulation, which
  would add twice); an extent below F makes the tile start before 0 (lanes i < 0 run: in_bounds
  and coverage refute what they do).
- shift_inward_and_blend: i := min(F*io, N - F) + ii; a lane is new when d = `min(F*io, N - F)
  + ii >= F*io`; each assignment `t[I] = v` becomes the blend `t[I] = where(d, v, t[I])`
  (duplicate lanes store back the value already there; a zero leaf is guarded by d).
- round_up_and_blend: i := F*io + ii; each assignment becomes `t[I] = where(p, v, t[I])`: every
  lane reads and writes t[I] (in_bounds refutes it unless storage covers the rounded-up range),
  out-of-range lanes store back the old value (a zero leaf is guarded by p).

Partition policies:
- auto and never: one nest; the guard (or mask, or min) stays in the IR. auto does not
  partition, so the names io and ii keep addressing one loop each and later ops compose
  (e.g. `interchange ii, jo`); a backend may still specialize.
- always: the io range is partitioned into a main segment `io in 0 .. floor(N/F)` in which the
  simplifier folds the guard/mask/min away, and a tail segment `io_tail in floor(N/F) ..
  floor((N + F - 1)/F)` with inner loop `ii_tail` keeping it; the loops inside the tail
  segment are named apart, v -> v_tail (common.rename_segment_loops), so later ops can name
  each segment's loops. Nothing to partition (F provably
  divides N, or tail=round_up which has no guard) is a precondition failure, as in Halide.
- serialize_edges: as always, with the tail segment's loops serial; unroll_edges: as always,
  with the tail's inner loop marked unrolled. With nothing to partition these leave one nest.
  A hardware loop (block/thread) can only be partitioned with serialize_edges: any other tail
  segment would be a hardware loop that does not start at 0.
Statements copied into the two segments get statement ids S#0 (main) and S#1 (tail).
"""
from __future__ import annotations

import dataclasses
import functools
import operator
from dataclasses import dataclass
from typing import Optional

from ..core import ir
from ..core.errors import Loc
from ..core.ir import (Assign, BinOp, Call, Cmp, Float, FloorDiv, For, If, Int, Load, Mod,
                  TensorCore, Var, Where)
from ..core.op_syntax import OPTIONS, Field, OpRecord, Option, Outputs, Syntax, Word, invalid, loc_field, loop_field
from ..analysis.linear_index import known_form, substitute_form
from . import common, drawing, kernel_parts
from .common import error
from .spec import ALL_GENERIC, OpSpec


TAILS = ("guard", "round_up", "shift_inward", "predicate", "predicate_loads", "predicate_stores",
         "shift_inward_and_blend", "round_up_and_blend")
PARTITIONS = ("auto", "never", "always", "serialize_edges", "unroll_edges")


@dataclass(frozen=True)
class Split(OpRecord):
    SYNTAX = Syntax("split", (loop_field(), Word("by", "in split"), Field("factor", "int", "split factor"),
                              Outputs(("outer", "inner"), "loop name", 2), OPTIONS),
                    (Option("tail", TAILS), Option("partition", PARTITIONS)))
    loop: str
    factor: int
    outer: str
    inner: str
    tail: str = "guard"
    partition: str = "auto"
    loc: Optional[Loc] = loc_field()

    def check(self) -> None:
        if self.outer == self.inner:
            raise invalid(self, f"inner '{self.inner}': the two new loops need distinct names")


RECORD = Split  # the op record this module applies (ops/registry.py)


def _zero_of(program, tensor: str):
    try:
        prec = program.tensor(tensor).prec
    except KeyError:
        return Float(0.0)
    return Int(0) if prec == "i32" else Float(0.0)


def _mask_loads(program, expr, cond, names: set):
    """Every load in a scalar position whose index mentions one of `names` becomes
    where(cond, load, 0). Loads inside an index are left alone (an index admits no where;
    the lazy where of the enclosing load already keeps them from being read)."""
    def go(e):
        if isinstance(e, Load):
            if ir.free_vars(e.index) & names:
                return Where(cond, e, _zero_of(program, e.tensor), loc=e.loc)
            return e
        if not isinstance(e, ir.Node):
            return e
        changes = {}
        for fld in dataclasses.fields(e):
            if fld.name == "loc":
                continue
            v = getattr(e, fld.name)
            if isinstance(v, tuple):
                nv = tuple(go(x) for x in v)
                if any(a is not b for a, b in zip(nv, v)):
                    changes[fld.name] = nv
            elif isinstance(v, ir.Node):
                nv = go(v)
                if nv is not v:
                    changes[fld.name] = nv
        return dataclasses.replace(e, **changes) if changes else e
    return go(expr)


def _blend(stmts: tuple, cond) -> tuple:
    def leaf(s):
        match s:
            case Assign(tensor=t, index=idx, value=v):
                old = Load(t, idx, loc=s.loc)
                return (dataclasses.replace(s, value=Where(cond, v, old, loc=s.loc)),)
            case TensorCore(fallback=fb):
                return (dataclasses.replace(s, fallback=_blend(fb, cond)),)
        return (If(cond, (s,), loc=s.loc),)
    return common.map_leaves(stmts, leaf)


def _predicate_loads(program, stmts: tuple, cond, names: set) -> tuple:
    """Mask the loads of assignment values and of data-dependent `if` conditions."""
    def mask(e):
        return _mask_loads(program, e, cond, names)

    def fn(s):
        match s:
            case Assign(value=v):
                return dataclasses.replace(s, value=mask(v))
            case If(cond=c):
                return dataclasses.replace(s, cond=ir.rewrite(
                    c, lambda n: dataclasses.replace(n, a=mask(n.a), b=mask(n.b)) if isinstance(n, Cmp) else None))
        return None

    def statements_only(n) -> bool:  # the masks apply to the statements' own expressions
        return isinstance(n, (For, If, TensorCore))
    return tuple(ir.rewrite(s, fn, statements_only) for s in stmts)


def lane_index(op: Split, n, lo=None) -> tuple:
    """(substituted index, in-range condition, new-lane condition or None) for the tail; `n`
    is where the loop ends and `lo` where it starts (None: 0): the tiles start at `lo`."""
    f, io, ii = op.factor, Var(op.outer), Var(op.inner)
    tile = BinOp("*", Int(f), io)
    if lo is not None:
        tile = BinOp("+", lo, tile)
    if op.tail in ("shift_inward", "shift_inward_and_blend"):
        base = Call("min", (tile, BinOp("-", n, Int(f))))
        i = BinOp("+", base, ii)
        return i, Cmp("<", i, n), Cmp(">=", i, tile)
    i = BinOp("+", tile, ii)
    return i, Cmp("<", i, n), None


def tail_body(program, op: Split, var: str, body: tuple, n, lo=None, divides: bool = False) -> tuple:
    """The body of loop `var` rendered for one lane (io, ii) under the tail strategy (`n`: the
    loop's end). With `divides` (isl proved that F divides the extent) every lane is in range:
    the guard `p` of guard/predicate/predicate_stores holds everywhere and is not built (the
    simplifier would drop it, deciding it again at every leaf, after walking the whole body to
    wrap each leaf in it)."""
    i, p, new = lane_index(op, n, lo)
    b = substitute_body(body, {var: i})
    if divides and op.tail in ("guard", "predicate", "predicate_stores"):
        return b
    match op.tail:
        case "guard" | "predicate" | "predicate_stores":
            return common.guard_leaves(b, p)
        case "round_up" | "shift_inward":
            return b
        case "predicate_loads":
            return _predicate_loads(program, b, p, {op.outer, op.inner})
        case "round_up_and_blend":
            return _blend(b, p)
        case "shift_inward_and_blend":
            return _blend(b, new)
    raise error(op, f"tail '{op.tail}': unknown")


_NAME = operator.attrgetter("name")


def substitute_body(stmts: tuple, mapping: dict) -> tuple:
    """`common.subst(stmts, mapping)` up to the simplifier's canonical forms: an index whose
    canonical form is recorded (analysis/linear_index.known_form; a sum of variables) gets the
    canonical form of its substitution directly (`substitute_form`, the same expression the
    simplifier would make of the substituted tree, without building or walking that tree: the
    index of n nested splits has n terms), one object for the equal indices of a store, its
    loads and its provenance. Only in the positions the simplifier normalizes
    with `fold_index` (stores' indices and provenance, loads' indices in values, loop bounds);
    everything else (conditions, tensor-core blocks, scalars) is substituted as it is."""
    shared: dict = {}  # a recorded form (by value) -> its substitution: one object for all

    def index(e):
        if type(e) is Int:
            return e
        form = known_form(e)
        if form is None:
            return ir.substitute(e, mapping)
        key = (form[1], tuple(map(_NAME, form[0])), tuple(form[0].values()))
        out = shared.get(key)
        if out is None:
            out = substitute_form(e, mapping)
            shared[key] = out = ir.substitute(e, mapping) if out is None else out
        return out

    def fn(n):
        if type(n) is Var:
            return mapping.get(n.name)
        if type(n) is Load:
            idx = tuple(index(x) for x in n.index)
            return None if all(a is b for a, b in zip(idx, n.index)) else ir.replaced(n, index=idx)
        return None

    def value(e):
        return ir.rewrite(e, fn, lambda n: type(n) is not Load)

    def stmt(s):
        match s:
            case For(lo=lo, hi=hi, body=b):
                lo2 = lo if type(lo) is Int else index(lo)
                hi2 = hi if type(hi) is Int else index(hi)
                b2 = stmts_(b)
                return s if (lo2 is lo and hi2 is hi and b2 is b) else ir.replaced(s, lo=lo2, hi=hi2, body=b2)
            case If(cond=c, then=t, orelse=e):
                c2, t2, e2 = ir.substitute(c, mapping), stmts_(t), stmts_(e)
                return s if (c2 is c and t2 is t and e2 is e) else ir.replaced(s, cond=c2, then=t2, orelse=e2)
            case Assign(index=idx, value=v, provenance=prov):
                idx2 = tuple(index(x) for x in idx)
                v2 = value(v)
                prov2 = tuple((k, index(x)) for k, x in prov)
                if all(a is b for a, b in zip(idx2, idx)) and v2 is v and all(a[1] is b[1] for a, b in zip(prov2, prov)):
                    return s
                return ir.replaced(s, index=idx2, value=v2, provenance=prov2)
        return ir.substitute(s, mapping)

    def stmts_(ss: tuple) -> tuple:
        new = tuple([stmt(s) for s in ss])
        return ss if all(map(operator.is_, new, ss)) else new

    return stmts_(stmts)


def _nest(outer, inner, lo, hi, f, axis_o, axis_i, body, loc):
    return For(outer, lo, hi, axis_o, (For(inner, Int(0), Int(f), axis_i, body, loc=loc),), loc=loc)


def tail_names(op: Split) -> tuple:
    return f"{op.outer}_tail", f"{op.inner}_tail"


def apply(program: ir.Program, kernel_name: str, op: Split) -> ir.Program:
    kernel, site = common.loop_site(program, kernel_name, op)
    loop = site.stmt
    ctx = common.context_at(program, site)
    reuse = (loop.var,)
    common.check_fresh(program, kernel, (op.outer, op.inner), op, "new loop", reusable=reuse)
    # tiles start at the lower bound: i = lo + F*io + ii over the extent n = hi - lo
    lo = None if common.is_zero(program, loop.lo, ctx) else loop.lo
    n, f = (loop.hi if lo is None else BinOp("-", loop.hi, lo)), op.factor
    count = FloorDiv(BinOp("+", n, Int(f - 1)), f)
    divides = ctx.decide(Cmp("==", Mod(n, f), Int(0))) is True
    nothing = divides or op.tail == "round_up"
    body = tail_body(program, op, loop.var, loop.body, loop.hi, lo, divides)
    if op.partition in ("auto", "never") or (nothing and op.partition != "always"):
        new = (_nest(op.outer, op.inner, Int(0), count, f, loop.axis, "serial", body, loop.loc),)
    elif nothing:
        why = f"{f} divides the extent {_text(n)}" if divides else "tail=round_up has no guard"
        raise error(op, f"partition=always: nothing to partition ({why})")
    else:
        if ir.is_hardware(loop.axis) and op.partition != "serialize_edges":
            raise error(op, f"partition={op.partition}: loop '{op.loop}' is a {loop.axis} loop; "
                            f"its tail segment would not start at 0 (use serialize_edges)")
        to, ti = tail_names(op)
        common.check_fresh(program, kernel, (to, ti), op, "tail loop", reusable=reuse)
        split_at = FloorDiv(n, f)
        main = _nest(op.outer, op.inner, Int(0), split_at, f, loop.axis, "serial",
                     common.copy_sids(body, 0), loop.loc)
        tail_b = common.rename_loops(common.copy_sids(body, 1), {op.outer: to, op.inner: ti})
        # the tail's copies of the loops inside get their own names: k -> k_tail
        used = common.used_names(program, kernel) | {op.outer, op.inner, to, ti}
        tail_b = common.rename_segment_loops(tail_b, "tail", used)
        axis_o, axis_i = loop.axis, "serial"
        if op.partition == "serialize_edges":
            axis_o = "serial"
        elif op.partition == "unroll_edges":
            axis_i = "unrolled"
        tail = _nest(to, ti, split_at, count, f, axis_o, axis_i, tail_b, loop.loc)
        new = (main, tail)
    return common.rewrite_at(program, kernel, site.path, new)


def _text(e) -> str:
    from ..core.printer import expr_text
    return expr_text(e)


# ---------------------------------------------------------------- obligations


def obligations(ctx) -> list:  # noqa: ARG001
    """The op-specific obligations of a split: none. The generic ones decide every tail: the
    extra lanes of a rounded-up tile, and the lanes i < 0 of a shifted tile when the extent is
    below F (shift_inward runs them: in_bounds and coverage; a blend makes them no-op stores,
    whose accesses in_bounds checks). A separate `extent >= F` condition was sufficient but
    not necessary, so its refutation did not always replay (a blend whose lanes i < 0 only
    store back an in-bounds cell is correct at every size)."""
    return []


# ---------------------------------------------------------------- fuzz strategy (fuzz/schedules.py)

possible = kernel_parts.has_loops  # whether draw_applicable has anything to draw over


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """A split of one of the kernel's loops (any tail and partition policy, guard and auto
    most often) into fresh names, or None when it has no loop."""
    kernel = program.kernel(kernel_name)
    loops = kernel_parts.loop_names(kernel)
    if not loops:
        return None
    pick = functools.partial(drawing.pick, draw)
    v = pick(loops)
    tail = pick(("guard", "guard", "guard") + TAILS)
    part = pick(("auto", "auto", "auto") + PARTITIONS)
    fresh = kernel_parts.fresh
    return Split(v, pick((2, 2, 3, 4, 8, 16)), fresh(program, kernel, v + "o"), fresh(program, kernel, v + "i"),
                 tail, part)


def draw_by_name(draw, loop: str, loops: list, fresh):
    """fuzz/records.schedules_for's draw: a split of `loop` into `{loop}o{n}`, `{loop}i{n}`
    (n from the counter `fresh`) and the loop names after it."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    n = next(fresh)
    outer, inner = f"{loop}o{n}", f"{loop}i{n}"
    tail = draw(st.sampled_from(("guard", "guard") + TAILS))
    return Split(loop, draw(st.integers(2, 8)), outer, inner, tail), [x for x in loops if x != loop] + [outer, inner]


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=ALL_GENERIC,
              own_reassociates=False, exact_rounding=False, structural=False, fuzz_weight=1,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=("tail", "partition"),
              draw_by_name=draw_by_name, by_name_weight=2,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
