"""split i by F -> io, ii [tail=...] [partition=...]

`for i in 0 .. N { B }` becomes `for io in 0 .. floor((N + F - 1)/F) { for ii in 0 .. F { B' } }`
where B' is B with i := F*io + ii substituted (indices, values, guards and the provenance of
every assignment). io keeps the loop's axis type, ii is serial. The loop must start at 0 and F
must be a positive integer. Let p be `F*io + ii < N` (the lane is in range).

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
- predicate_stores (RoundUp + predicated stores): the store is guarded, `if p { leaf }`, but in
  Halide the loads feeding it are evaluated for every lane; this op therefore carries its own
  `in_bounds` obligation: every load of a guarded leaf stays inside storage over the
  rounded-up domain (the guard p ignored). The emitted code is the guarded leaf.
- shift_inward: i := min(F*io, N - F) + ii, no guard: the last tile is shifted back to end at
  N and recomputes lanes of the previous tile (provenance reflects the min). Needs N >= F
  (op obligation, kind precondition) and a body whose recomputation writes equal values
  (the driver's coverage obligation refutes an accumulation, which would add twice).
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
  floor((N + F - 1)/F)` with inner loop `ii_tail` keeping it. Nothing to partition (F provably
  divides N, or tail=round_up which has no guard) is a precondition failure, as in Halide.
- serialize_edges: as always, with the tail segment's loops serial; unroll_edges: as always,
  with the tail's inner loop marked unrolled. With nothing to partition these leave one nest.
  A hardware loop (block/thread) can only be partitioned with serialize_edges: any other tail
  segment would be a hardware loop that does not start at 0.
Statements copied into the two segments get statement ids S#0 (main) and S#1 (tail).
"""
from __future__ import annotations

import dataclasses

from .. import ir
from ..ir import (And, Assign, BinOp, Call, Cmp, Float, FloorDiv, For, If, Int, Load, Mod, Or,
                  TensorCore, Var, Where)
from ..schedule import PARTITIONS, TAILS, Split
from ..simplify import NotAffine, simplify_kernel
from ..sizes import eval_int
from . import common
from .common import error

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

    def go(s):
        match s:
            case Assign(value=v):
                return dataclasses.replace(s, value=mask(v))
            case TensorCore(fallback=fb):
                return dataclasses.replace(s, fallback=tuple(go(x) for x in fb))
            case For(body=b):
                return dataclasses.replace(s, body=tuple(go(x) for x in b))
            case If(cond=c, then=t, orelse=e):
                c2 = ir.rewrite(c, lambda n: dataclasses.replace(n, a=mask(n.a), b=mask(n.b))
                                if isinstance(n, Cmp) else None)
                return dataclasses.replace(s, cond=c2, then=tuple(go(x) for x in t),
                                           orelse=tuple(go(x) for x in e))
        return s
    return tuple(go(s) for s in stmts)


def lane_index(op: Split, n) -> tuple:
    """(substituted index, in-range condition, new-lane condition or None) for the tail."""
    f, io, ii = op.factor, Var(op.outer), Var(op.inner)
    tile = BinOp("*", Int(f), io)
    if op.tail in ("shift_inward", "shift_inward_and_blend"):
        base = Call("min", (tile, BinOp("-", n, Int(f))))
        i = BinOp("+", base, ii)
        return i, Cmp("<", i, n), Cmp(">=", i, tile)
    i = BinOp("+", tile, ii)
    return i, Cmp("<", i, n), None


def tail_body(program, op: Split, body: tuple, n) -> tuple:
    """The loop body rendered for one lane (io, ii) under the tail strategy."""
    i, p, new = lane_index(op, n)
    b = common.subst(body, {op.loop: i})
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


def _nest(outer, inner, lo, hi, f, axis_o, axis_i, body, loc):
    return For(outer, lo, hi, axis_o, (For(inner, Int(0), Int(f), axis_i, body, loc=loc),), loc=loc)


def tail_names(op: Split) -> tuple:
    return f"{op.outer}_tail", f"{op.inner}_tail"


def apply(program: ir.Program, kernel_name: str, op: Split) -> ir.Program:
    kernel = common.get_kernel(program, kernel_name, op)
    site = common.find_loop(kernel, op.loop, op)
    loop = site.stmt
    ctx = common.context_at(program, site)
    if not common.is_zero(program, loop.lo, ctx):
        raise error(op, f"loop '{op.loop}': starts at a value other than 0; split needs a loop "
                        f"from 0 (partition it first)")
    common.check_fresh(program, kernel, (op.outer, op.inner), op, "new loop", reusable=(op.loop,))
    n, f = loop.hi, op.factor
    count = FloorDiv(BinOp("+", n, Int(f - 1)), f)
    divides = ctx.decide(Cmp("==", Mod(n, f), Int(0))) is True
    nothing = divides or op.tail == "round_up"
    body = tail_body(program, op, loop.body, n)
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
        common.check_fresh(program, kernel, (to, ti), op, "tail loop", reusable=(op.loop,))
        split_at = FloorDiv(n, f)
        main = _nest(op.outer, op.inner, Int(0), split_at, f, loop.axis, "serial",
                     common.copy_sids(body, 0), loop.loc)
        tail_b = common.rename_loops(common.copy_sids(body, 1), {op.outer: to, op.inner: ti})
        axis_o, axis_i = loop.axis, "serial"
        if op.partition == "serialize_edges":
            axis_o = "serial"
        elif op.partition == "unroll_edges":
            axis_i = "unrolled"
        tail = _nest(to, ti, split_at, count, f, axis_o, axis_i, tail_b, loop.loc)
        new = (main, tail)
    kernel2 = common.replace_at(kernel, site.path, new)
    return program.with_kernel(simplify_kernel(program, kernel2))


def _text(e) -> str:
    from ..dsl.printer import expr_text
    return expr_text(e)


# ---------------------------------------------------------------- obligations


def extent_covers_factor(ctx):
    """Formal statement: for tail=shift_inward or shift_inward_and_blend, for every parameter
    valuation P satisfying the constraints and every iteration of the loops enclosing the
    split loop (and the guards around it) at which the split loop runs, its extent N (with
    lower bound 0) satisfies N >= F. Otherwise the shifted last tile starts at N - F < 0 and
    the split executes instances i < 0 that the original never runs. Decided by isl as the
    emptiness of {P, outer iterators : context and N < F}; a sample point is the
    counterexample (the sizes)."""
    op, before = ctx.op, ctx.before
    kernel = before.kernel(ctx.kernel)
    site = common.find_loop(kernel, op.loop, op)
    here = common.context_at(before, site)
    bad = Cmp("<", site.stmt.hi, Int(op.factor))
    statement = (f"for all sizes, the extent {_text(site.stmt.hi)} of loop '{op.loop}' is at "
                 f"least the factor {op.factor}")
    try:
        cex = here.counterexample(bad)
    except NotAffine:
        return common.obligation(ctx, "precondition", statement, "unknown",
                                 f"the extent {_text(site.stmt.hi)} is not affine", None)
    if cex is None:
        return common.obligation(ctx, "precondition", statement, "proved",
                                 f"extent {_text(site.stmt.hi)} >= {op.factor} for all sizes")
    if not here.exact:
        return common.obligation(ctx, "precondition", statement, "unknown",
                                 "the loop's context has conditions isl cannot read", None)
    params = {p: cex[p] for p in here.params}
    return common.obligation(
        ctx, "precondition", statement, "refuted",
        f"tail={op.tail} needs extent >= {op.factor}, but at {_sizes(params)} the extent "
        f"{_text(site.stmt.hi)} is smaller: the shifted tile starts before 0",
        {"params": params, "loops": {k: v for k, v in cex.items() if k not in params}})


def unmasked_loads_in_bounds(ctx):
    """Formal statement: for tail=predicate_stores only the stores are masked; the loads of
    every masked leaf are evaluated for every lane. For every parameter valuation P, every
    iteration (io, ii) with 0 <= io < ceil(N/F), 0 <= ii < F (the rounded-up domain, the
    remainder guard ignored) and every iteration of the loops and guards between the split
    loop and the leaf, each load t[e1, ..., er] of the leaf (value and store index) satisfies
    0 <= ek < Dk + Pk for every dimension k (inside storage, padding included), with
    i := F*io + ii. Decided by isl per load and dimension; a sample point of the violation is
    the counterexample."""
    op, before = ctx.op, ctx.before
    kernel = before.kernel(ctx.kernel)
    site = common.find_loop(kernel, op.loop, op)
    loop = site.stmt
    i = BinOp("+", BinOp("*", Int(op.factor), Var(op.outer)), Var(op.inner))
    base = common.context_at(before, site).with_iter(op.outer).with_iter(op.inner)
    count = FloorDiv(BinOp("+", loop.hi, Int(op.factor - 1)), op.factor)
    base = base.add(And(Cmp(">=", Var(op.outer), Int(0)), Cmp("<", Var(op.outer), count)))
    base = base.add(And(Cmp(">=", Var(op.inner), Int(0)), Cmp("<", Var(op.inner), Int(op.factor))))
    statement = (f"every load of a store-predicated leaf of '{op.loop}' stays inside storage "
                 f"for every lane of the rounded-up range")
    unknown = None
    for leaf in common.sites(loop.body):
        if not isinstance(leaf.stmt, Assign):
            continue
        here = base
        for lp in leaf.loops:
            here = here.with_loop(common.subst((lp,), {op.loop: i})[0])
        for g in leaf.guards:
            here = here.add(ir.substitute(g, {op.loop: i}))
        stmt = common.subst((leaf.stmt,), {op.loop: i})[0]
        loads = ir.reads(stmt.value) + [r for e in stmt.index for r in ir.reads(e)]
        for ld in loads:
            dims = before.tensor(ld.tensor).storage_dims()
            for k, (e, d) in enumerate(zip(ld.index, dims)):
                bad = Or(Cmp("<", e, Int(0)), Cmp(">=", e, d))
                try:
                    cex = here.counterexample(bad)
                except NotAffine:
                    unknown = f"the index of {ld.tensor} is not affine"
                    continue
                if cex is None:
                    continue
                if not here.exact:
                    unknown = "the leaf's context has conditions isl cannot read"
                    continue
                params = {p: cex[p] for p in here.params}
                at = {v: cex[v] for v in here.iters}
                dynamic = any(ir.reads(x) for x in ld.index)  # no concrete cell to show
                cell = None if dynamic else [eval_int(x, cex) for x in ld.index]
                shown = f"{ld.tensor}[{', '.join(map(str, cell))}]" if cell else ld.tensor
                inst = {"kernel": "after", "stmt": leaf.stmt.sid, "at": at,
                        "original": {op.loop: cex[op.outer] * op.factor + cex[op.inner]}}
                return common.obligation(
                    ctx, "in_bounds", statement, "refuted",
                    f"tail=predicate_stores evaluates the loads of every lane: at "
                    f"{_sizes(params)} lane ({_sizes(at)}) of {leaf.stmt.sid} reads {shown} "
                    f"outside its storage (dimension {k})",
                    {"params": params, "instances": [inst],
                     "cells": [{"tensor": ld.tensor, "index": cell}]})
    if unknown:
        return common.obligation(ctx, "in_bounds", statement, "unknown", unknown, None)
    return common.obligation(ctx, "in_bounds", statement, "proved",
                             "every unmasked load stays inside storage")


def _sizes(d: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in d.items())


def obligations(ctx) -> list:
    """The op-specific obligations of a split (the driver adds the generic ones)."""
    op = ctx.op
    out = []
    if op.tail in ("shift_inward", "shift_inward_and_blend"):
        out.append(common.timed(extent_covers_factor, ctx, "precondition"))
    if op.tail == "predicate_stores":
        out.append(common.timed(unmasked_loads_in_bounds, ctx, "in_bounds"))
    return out
