"""stage SRC over L1, L2 -> TILE [shared] [cooperative=W] [swizzle=elem|b128] [pad_stride=P]
[hoisted] [pipeline=D] [prec=P]

Reads of SRC inside every loop of `over` (the tile loops, one nested chain) are redirected to
a fresh tensor TILE whose dims are, per source axis, the range of the index's tile-loop terms.
All those reads use one index vector whose per-axis linear form splits into tile terms
(positive coefficients on tile loops, constant extents) and outer terms (everything else).

- Anchor: the deepest loop enclosing the innermost tile loop that carries an outer-term symbol
  or is a reused thread tile loop (shared). The load nest goes at the start of its body (no
  anchor: in front of the outermost tile loop). Tile loops enclosing the anchor must be thread
  loops (shared) and are reused as the cooperating thread index; the others are iterated by
  fresh copy loops (serial, or the same thread axis). Thread axes enclosing the anchor that are
  not tile loops load through one representative thread (`if t == lo`).
- Edge guards: `if SRC index in storage { TILE[c] = SRC[..] } else { TILE[c] = 0 }` (folded when
  provable). Load statements get sid `L_<TILE>` (copy) and `L_<TILE>_fill` (the zero).
- shared: TILE in shared memory; `loads; barrier; body; barrier` in the anchor (a later stage on
  the same anchor groups its loads in front of the existing phase barrier). Not shared: a
  local tile, serial copy nest, no barriers, all tile loops serial.
- cooperative=W: all tile loops serial; the nest runs under a fresh `thread.x` lane loop of
  extent W folded into the innermost copy loop (extent <= W: lane guard; multiple of W: chunks;
  else lane 0 only).
- swizzle: the tile's minor index col becomes col XOR (row & (C-1)) (elem) or whole 16-byte
  units XORed (b128); the IR has no XOR, so it is written bit by bit with floor/mod (quasi-
  affine: every backend and the polyhedral model read it unchanged; swizzle.py proves the
  rendering equals the bit-vector XOR and is a bijection of each row).
- pad_stride=P: the minor dim's storage is rounded up to a multiple of P (trailing pad cells).
- pipeline=2: cooperative and a serial anchor from 0 with >= 1 trip: TILE gets a leading
  dim 2; prologue copy of iteration 0 into buffer 0 before the anchor; per iteration k a
  barrier, the copy of k+1 into buffer (k+1)%2 under `if k + 1 < hi`, the body reading buffer
  k%2; one trailing barrier after the anchor.
- hoisted: SRC constant memory, not shared, no hardware loops: a packed copy of the whole
  source (one axis per outer coordinate, then the tile axes) is filled by a first top-level
  nest; reads go to it directly.
- prec: the tile's precision; only widenings (same, or f32/f64 over a narrower float).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from ...core import ir
from ...core.errors import Loc
from ...core.ir import And, Assign, Barrier, BinOp, Cast, Cmp, For, If, Int, Load, Mod, Tensor, Var
from ...core.op_syntax import OPTIONS, Field, OpRecord, Option, Outputs, Syntax, Word, loc_field, tensor_field
from ...analysis.simplify import linear_form, norm_index, render_linear, simplify_kernel
from ...core.target_limits import THREADS_PER_BLOCK
from .. import common
from ..common import error
from .hoisted import apply_hoisted
from .tile import (Plan, const_value, fresh_name, is_load_stmt, load_sid, redirect_reads,
                   tile_index, zero_value)

WIDEN = {"f16": ("f32", "f64"), "bf16": ("f32", "f64"), "f32": ("f64",)}

SWIZZLES = ("elem", "b128")


@dataclass(frozen=True)
class Stage(OpRecord):
    SYNTAX = Syntax("stage", (tensor_field("source"), Word("over", "in stage"), Field("over", "names", "a loop name"),
                              Outputs(("tile",), "tile name", 1), OPTIONS),
                    (Option("shared", "flag"), Option("cooperative", "posint"), Option("swizzle", SWIZZLES),
                     Option("pad_stride", "posint"), Option("hoisted", "flag"), Option("pipeline", "posint"),
                     Option("prec", ir.PRECISIONS)))
    source: str
    over: tuple
    tile: str
    shared: bool = False
    cooperative: Optional[int] = None
    swizzle: Optional[str] = None
    pad_stride: Optional[int] = None
    hoisted: bool = False
    pipeline: int = 1
    prec: Optional[str] = None
    loc: Optional[Loc] = loc_field()


def _validate(program, kernel, op: Stage):
    if op.source not in {t.name for t in program.tensors}:
        raise error(op, f"source '{op.source}': no tensor named '{op.source}'")
    common.check_fresh(program, kernel, (op.tile,), op, "tile")
    if not op.over:
        raise error(op, "over: at least one tile loop is needed")
    if len(set(op.over)) != len(op.over):
        raise error(op, "over: a loop is named twice")
    src = program.tensor(op.source)
    if any(n.tensor == op.source for n in ir.nodes_of(kernel.body, (Assign, ir.Zero))):
        raise error(op, f"source '{op.source}': written in kernel '{kernel.name}' (a stage needs a read-only source)")
    if op.prec is not None and op.prec != src.prec and op.prec not in WIDEN.get(src.prec, ()):
        raise error(op, f"prec={op.prec}: not a widening of {op.source}'s {src.prec}")
    if op.pipeline not in (1, 2):
        raise error(op, f"pipeline={op.pipeline}: only depth 1 or 2 is supported")
    if op.pipeline == 2 and op.cooperative is None:
        raise error(op, "pipeline=2: needs cooperative=W")
    if op.cooperative is not None and op.cooperative > THREADS_PER_BLOCK:
        raise error(op, f"cooperative={op.cooperative}: more than {THREADS_PER_BLOCK} lanes")
    if (op.cooperative is not None or op.swizzle is not None) and not op.shared:
        which = "cooperative" if op.cooperative is not None else "swizzle"
        raise error(op, f"{which}: needs shared")
    if op.pad_stride is not None and (not isinstance(op.pad_stride, int) or op.pad_stride <= 1):
        raise error(op, f"pad_stride={op.pad_stride}: must be an integer > 1")
    if op.hoisted:
        if op.shared:
            raise error(op, "hoisted: cannot be shared (the packed copy is made once, outside the launch)")
        if src.memory != "constant":
            raise error(op, f"hoisted: source '{op.source}' is not declared constant memory")
        if any(p for p in src.pad):
            raise error(op, f"hoisted: source '{op.source}' has storage padding")
        if any(isinstance(n, For) and ir.is_hardware(n.axis) for n in ir.walk(kernel.body)):
            raise error(op, "hoisted: the kernel has hardware loops (the packed copy is a CPU packing)")


def _chain(kernel, op):
    """The tile loop sites, outermost first (they must form one nested chain)."""
    sites = [common.find_loop(kernel, v, op, "over") for v in op.over]
    sites.sort(key=lambda s: len(s.loops))
    for a, b in zip(sites, sites[1:]):
        if a.stmt not in b.loops:
            raise error(op, f"over: loops '{a.stmt.var}' and '{b.stmt.var}' are not nested")
    return sites


def _source_reads(node, src):
    return [n for n in ir.walk(node) if isinstance(n, Load) and n.tensor == src]


def _plan(program, op, sites) -> Plan:
    inner = sites[-1].stmt
    reads = _source_reads(inner.body, op.source)
    if not reads:
        raise error(op, f"source '{op.source}': not read inside loop '{inner.var}'")
    index = tuple(norm_index(e) for e in reads[0].index)
    if any(tuple(norm_index(e) for e in r.index) != index for r in reads):
        raise error(op, f"source '{op.source}': read with more than one index vector inside the tile loops")
    loops = {s.stmt.var: s.stmt for s in sites}
    for v, lp in loops.items():
        lo, hi = const_value(lp.lo), const_value(lp.hi)
        if lo is None or hi is None:
            raise error(op, f"over '{v}': the tile loop needs constant bounds")
        if hi <= lo:
            raise error(op, f"over '{v}': empty tile loop")
    terms, outer, dims = [], [], []
    for d, e in enumerate(index):
        lin = linear_form(e, dyn=False)
        if lin is None or any(not isinstance(t, Var) and ir.free_vars(t) & set(loops) for t in lin[0]):
            raise error(op, f"source '{op.source}': index {d} is not affine in the tile loops")
        if any(isinstance(n, Load) for n in ir.walk(e)):
            raise error(op, f"source '{op.source}': index {d} is dynamic")
        tt = {t.name: c for t, c in lin[0].items() if isinstance(t, Var) and t.name in loops}
        if any(c <= 0 for c in tt.values()):
            raise error(op, f"source '{op.source}': index {d} has a non-positive tile-loop coefficient")
        rest = {t: c for t, c in lin[0].items() if not (isinstance(t, Var) and t.name in loops)}
        terms.append(tt)
        outer.append(render_linear(rest, lin[1]))
        dims.append(1 + sum(c * (const_value(loops[v].hi) - const_value(loops[v].lo) - 1) for v, c in tt.items()))
    return Plan(index, tuple(terms), tuple(outer), tuple(dims), loops)


def _anchor(op, sites, plan):
    """(anchor For site or None, enclosing loops of the load nest position)."""
    inner = sites[-1]
    chain = list(inner.loops) + [inner.stmt]
    outer_vars = set().union(*(ir.free_vars(o) for o in plan.outer))
    anchor = None
    for lp in chain:
        if (lp.var not in plan.loops and lp.var in outer_vars) or (
                op.shared and lp.var in plan.loops and lp.axis.startswith("thread.")):
            anchor = lp
    return anchor, chain



def _copy_leaf(op, plan, src, prec, env, tidx):
    """`if SRC index in storage { TILE[c] = SRC[..] } else { TILE[c] = 0 }`."""
    sidx = tuple(norm_index(ir.substitute(e, env)) for e in plan.index)
    value = Load(op.source, sidx)
    if prec != src.prec:
        value = Cast(prec, value)
    guard = None
    for e, dim in zip(sidx, src.storage_dims()):
        g = And(Cmp(">=", e, Int(0)), Cmp("<", e, dim))
        guard = g if guard is None else And(guard, g)
    copy = Assign(op.tile, tidx, value, sid=load_sid(op.tile))
    fill = Assign(op.tile, tidx, zero_value(prec), sid=load_sid(op.tile) + "_fill")
    return If(guard, (copy,), (fill,))


def _nest(op, plan, src, prec, fresh, names, minor_storage, buffer):
    """The copy nest over the fresh tile loops (cooperative lane folded in)."""
    env = {v: Var(v) for v in plan.loops}
    env.update({v: Var(f) for v, (f, _) in fresh.items()})
    order = [v for v in plan.loops if v in fresh]
    lane = fresh_name(names, f"{op.tile}_lane") if op.cooperative is not None else None
    lane_guard = None
    inner_sub = None
    if lane is not None and order:
        v = order[-1]
        lp = plan.loops[v]
        lo, ext, w = const_value(lp.lo), const_value(lp.hi) - const_value(lp.lo), op.cooperative
        if ext <= w:
            env[v] = norm_index(BinOp("+", Int(lo), Var(lane)))
            order = order[:-1]
            if ext < w:
                inner_sub = Cmp("<", Var(lane), Int(ext))
        elif ext % w == 0:
            chunk = fresh[v][0]
            env[v] = norm_index(BinOp("+", Int(lo), BinOp("+", BinOp("*", Int(w), Var(chunk)), Var(lane))))
            fresh = dict(fresh)
            fresh[v] = (chunk, (Int(0), Int(ext // w)))
        else:
            lane_guard = Cmp("==", Var(lane), Int(0))
    elif lane is not None:
        lane_guard = Cmp("==", Var(lane), Int(0))
    body = (_copy_leaf(op, plan, src, prec, env, tile_index(op, plan, env, prec, minor_storage, buffer)),)
    if inner_sub is not None:
        body = (If(inner_sub, body),)
    for v in reversed(order):
        f, bounds = fresh[v]
        lp = plan.loops[v]
        lo, hi = bounds if bounds is not None else (lp.lo, lp.hi)
        axis = lp.axis if op.shared and lp.axis.startswith("thread.") else "serial"
        body = (For(f, lo, hi, axis, body),)
    if lane_guard is not None:
        body = (If(lane_guard, body),)
    if lane is not None:
        body = (For(lane, Int(0), Int(op.cooperative), "thread.x", body),)
    return body


def _check_loops(op, plan, enclosing, top_stmt):
    encl = {lp.var for lp in enclosing}
    fresh_axes = set()
    for v, lp in plan.loops.items():
        hw = ir.is_hardware(lp.axis)
        if v in encl:
            if not (op.shared and lp.axis.startswith("thread.") and op.cooperative is None):
                raise error(op, f"over '{v}': the tile loop encloses the staging point and is not a "
                                f"reusable thread loop")
        elif hw and (not op.shared or not lp.axis.startswith("thread.") or op.cooperative is not None):
            raise error(op, f"over '{v}': a {lp.axis} tile loop cannot be iterated by the copy nest"
                            + ("" if op.shared else " (a non-shared stage needs serial tile loops)"))
        elif hw:
            fresh_axes.add(lp.axis)
    if op.cooperative is not None:
        fresh_axes.add("thread.x")
        if any(lp.axis == "thread.x" for lp in enclosing):
            raise error(op, "cooperative: the staging point is already inside a thread.x loop")
    if op.shared:
        bound = {lp.axis for lp in enclosing} | fresh_axes
        used = {n.axis for n in ir.walk(top_stmt) if isinstance(n, For) and ir.is_hardware(n.axis)}
        for axis in sorted(used - bound):
            raise error(op, f"shared: the launch's {axis} axis is not bound at the staging point "
                            f"(threads differing in it would race on the tile)")


def apply(program: ir.Program, kernel_name: str, op: Stage) -> ir.Program:
    kernel = common.get_kernel(program, kernel_name, op)
    _validate(program, kernel, op)
    sites = _chain(kernel, op)
    plan = _plan(program, op, sites)
    anchor, chain = _anchor(op, sites, plan)
    src = program.tensor(op.source)
    prec = op.prec or src.prec
    enclosing = chain[:chain.index(anchor) + 1] if anchor is not None else list(sites[0].loops)
    top_stmt = kernel.body[sites[0].path[0][1]]
    _check_loops(op, plan, enclosing, top_stmt)
    names = common.used_names(program, kernel)
    fresh = {v: (fresh_name(names, f"{v}_{op.tile}"), None) for v in plan.loops
             if v not in {lp.var for lp in enclosing}}
    rank = len(plan.dims)
    if (op.swizzle is not None or op.pad_stride is not None) and rank < 2:
        raise error(op, "swizzle/pad_stride: the tile needs at least two axes")
    pad = [0] * rank
    if op.pad_stride is not None:
        pad[-1] = -plan.dims[-1] % op.pad_stride
    minor_storage = plan.dims[-1] + pad[-1]
    if op.hoisted:
        return apply_hoisted(program, kernel, op, plan, sites, src, prec)
    if op.pipeline == 2:
        if anchor is None or anchor.axis != "serial" or const_value(anchor.lo) != 0:
            raise error(op, "pipeline=2: needs a serial anchor loop starting at 0")
        site = common.find_loop(kernel, anchor.var, op)
        ctx = common.context_at(program, site)
        if ctx.decide(Cmp(">=", anchor.hi, Int(1))) is not True:
            raise error(op, f"pipeline=2: anchor loop '{anchor.var}' may run no iteration")
    buffer = Mod(Var(anchor.var), 2) if op.pipeline == 2 else None
    tidx = tile_index(op, plan, {v: Var(v) for v in plan.loops}, prec, minor_storage, buffer)
    inner = sites[-1]
    kernel = common.replace_at(kernel, inner.path, dataclasses.replace(
        inner.stmt, body=redirect_reads(inner.stmt.body, op, plan, tidx)))
    nest = _nest(op, plan, src, prec, fresh, names, minor_storage, buffer)
    rep = None
    if op.shared:
        for lp in enclosing:
            if lp.axis.startswith("thread.") and lp.var not in plan.loops:
                c = Cmp("==", Var(lp.var), lp.lo)
                rep = c if rep is None else And(rep, c)
    if rep is not None:
        nest = (If(rep, nest),)
    nest = nest[0] if len(nest) == 1 else nest
    kernel = _insert(program, kernel, op, anchor, sites, nest)
    dims = tuple(Int(d) for d in plan.dims)
    if op.pipeline == 2:
        dims, pad = (Int(2),) + dims, [0] + pad
    tile = Tensor(op.tile, dims, prec, "shared" if op.shared else "local", tuple(pad), loc=op.loc)
    program = program.with_tensor(tile)
    return program.with_kernel(simplify_kernel(program, kernel))


def _insert(program, kernel, op, anchor, sites, nest):
    if anchor is None:
        site = common.find_loop(kernel, sites[0].stmt.var, op)
        new = (nest, Barrier(), site.stmt, Barrier()) if op.shared else (nest, site.stmt)
        return common.replace_at(kernel, site.path, new)
    site = common.find_loop(kernel, anchor.var, op)
    body = site.stmt.body
    if op.pipeline == 2:
        k = Var(anchor.var)
        pre = ir.substitute(nest, {anchor.var: Int(0)})
        fetch = If(Cmp("<", BinOp("+", k, Int(1)), anchor.hi),
                   (ir.substitute(nest, {anchor.var: BinOp("+", k, Int(1))}),))
        grouped = len(body) >= 2 and isinstance(body[0], Barrier) and isinstance(body[1], If) and \
            is_load_stmt(body[1])
        if grouped:
            _check_group(op, body[1:2])
            loop = dataclasses.replace(site.stmt, body=body[:2] + (fetch,) + body[2:])
            return common.replace_at(kernel, site.path, (pre, loop))
        loop = dataclasses.replace(site.stmt, body=(Barrier(), fetch) + body)
        return common.replace_at(kernel, site.path, (pre, loop, Barrier()))
    m = 0
    while m < len(body) and is_load_stmt(body[m]):
        m += 1
    if op.shared and 0 < m < len(body) and isinstance(body[m], Barrier) and isinstance(body[-1], Barrier):
        _check_group(op, body[:m])
        new_body = body[:m] + (nest,) + body[m:]
    elif op.shared:
        new_body = (nest, Barrier()) + body + (Barrier(),)
    else:
        new_body = (nest,) + body
    return common.replace_at(kernel, site.path, dataclasses.replace(site.stmt, body=new_body))


def _check_group(op, stmts):
    if _source_reads(stmts, op.source):
        raise error(op, f"source '{op.source}': already staged in this phase")
