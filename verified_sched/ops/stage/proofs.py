"""The goals of `stage` (apply.py): dataflow through the load nests (isl, dataflow.py), the
structural correspondence of the rest of the kernel, the swizzle bijection and the pipeline
rotation (z3, swizzle.py). Those two are imported when a goal is built or decided, so that
loading the op registry imports neither the polyhedral model nor z3."""
from __future__ import annotations

import dataclasses

from ...core import ir
from ...core.ir import Assign, Barrier, For, If, Load, TensorCore
from ...core.obligations import AllOf, Decided, Goal
from ...analysis.simplify import norm_index, simplify_kernel
from ...analysis.sizes import eval_int
from .. import common
from .apply import apply as stage_apply
from .tile import load_sid, reswizzle, swizzle_col, swizzle_unit


def dataflow_goal(ctx) -> Goal:
    """Formal statement: for all parameter values, every read of the tile sees exactly the
    source value its original read saw: the last write of the read cell that happens before it
    (same thread, or same block across a barrier instance) is unique, is a load-nest copy (not
    an edge-guard zero) of the source cell equal to the original read's cell, and no write of
    that cell is unordered with the read. Decided by isl over exact instance sets: a
    conjunction of emptiness queries (dataflow.py), on the logical cells for a swizzle."""
    from polyhedral.model import KernelModel

    from . import dataflow as flow
    op = ctx.op
    stated = {}  # the model the parts are stated over and the note of every message

    def parts():
        model, note = ctx.model_after, ""
        if op.swizzle is not None:
            # decided on the logical (unswizzled) cells: the swizzle is a bijection of each row
            # (the `bijection` obligation), so two accesses meet in the swizzled tile exactly
            # when they meet in the plain one; the staged kernel must be the plain one re-swizzled
            plain = stage_apply(ctx.before, ctx.kernel, dataclasses.replace(op, swizzle=None))
            if reswizzle(plain, ctx.kernel, op) != ctx.after:
                yield Decided("unknown", "the swizzled kernel is not the plain staging re-swizzled (not decided)")
                return
            model = KernelModel(plain, ctx.kernel, tag="A")
            note = " (on logical cells; the swizzle's bijection is its own obligation)"
        stated.update(model=model, note=note)
        yield from flow.parts(ctx.model_before, model, op.source, op.tile, note)

    return Goal("dataflow", flow.STATEMENT,
                AllOf(parts, lambda answers: flow.proved(stated["model"], op.source, op.tile, stated["note"])))


def _strip(stmts, tile, source, index):
    """Drop the tile's load statements and every barrier, read SOURCE[index] for the tile and
    drop what becomes empty."""
    out = []
    for s in stmts:
        match s:
            case Barrier():
                continue
            case Assign(sid=sid) if sid.startswith(load_sid(tile)):
                continue
            case For(body=b):
                b2 = _strip(b, tile, source, index)
                if b2:
                    out.append(dataclasses.replace(s, body=b2))
            case If(then=t, orelse=e):
                t2, e2 = _strip(t, tile, source, index), _strip(e, tile, source, index)
                if t2 or e2:
                    out.append(dataclasses.replace(s, then=t2, orelse=e2))
            case TensorCore(fallback=fb):
                out.append(dataclasses.replace(s, fallback=_strip(fb, tile, source, index)))
            case _:
                if index is not None:
                    s = ir.rewrite(s, lambda n: Load(source, index) if isinstance(n, Load) and n.tensor == tile
                                   else None)
                out.append(s)
    return tuple(out)


def correspondence(ctx):
    """Formal statement: the kernel after the op, with the tile's load statements and all
    barriers removed and each tile read replaced by the source read it stands for, is
    structurally the kernel before the op (barriers removed too; both simplified). Together
    with `dataflow` (each tile read yields that source value) and the load nests writing only
    the fresh, unobservable tile, every other statement computes what it computed before, on
    the same instances, in the same order per thread. Structural (a procedure: it simplifies
    both kernels, within the goal's isl budget, and compares them)."""
    op = ctx.op
    before = ctx.before.kernel(ctx.kernel)
    after = ctx.after.kernel(ctx.kernel)
    inner = max((common.find_loop(before, v, op, "over") for v in op.over), key=lambda s: len(s.loops))
    stmts = [n for n in ir.walk(inner.stmt.body) if isinstance(n, Load) and n.tensor == op.source]
    idx = {tuple(n.index) for n in stmts}
    idx = {tuple(norm_index(e) for e in i) for i in idx}
    index = next(iter(idx)) if len(idx) == 1 else None
    writes_ok = all(n.tensor == op.tile for n in ir.walk(after.body)
                    if isinstance(n, Assign) and n.sid.startswith(load_sid(op.tile)))
    b = simplify_kernel(ctx.before, dataclasses.replace(before, body=_strip(before.body, op.tile, op.source, None)))
    a = simplify_kernel(ctx.after, dataclasses.replace(after, body=_strip(after.body, op.tile, op.source, index)))
    statement = ("the kernel without load nests and barriers, tile reads read back as source reads, equals the "
                 "kernel before the op")
    if index is None:
        return common.decided(statement, "unknown", f"{op.source} is read with several index vectors",
                              engine="structural")
    if a == b and writes_ok:
        return common.decided(statement, "proved",
                              "same statements on the same instances; load nests write only the tile",
                              engine="structural")
    return common.decided(statement, "unknown",
                          "the staged kernel differs from the original beyond the load nests and barriers "
                          "(not decided)", engine="structural")


def obligations(ctx) -> list:
    """dataflow (isl), the structural correspondence, the swizzle bijection and the pipeline
    rotation (z3); the driver adds in_bounds and independence (race is the kernel-level check)."""
    # the correspondence is a Procedure: no isl set or z3 query states it, it simplifies both
    # kernels (within the goal's isl budget) and compares them structurally
    out = [dataflow_goal(ctx), common.goal(correspondence, ctx, "coverage")]
    op = ctx.op
    if op.swizzle is not None:
        out.append(bijection_goal(ctx))
    if op.pipeline == 2:
        out.append(rotation_goal(ctx))
    return out


def bijection_goal(ctx) -> Goal:
    """Formal statement: for the tile's actual shape (R rows = product of the leading dims, C =
    the minor storage dim), the swizzle rendered in the IR equals the bit-vector XOR of the
    column (or 16-byte unit) with the row's low bits and is a bijection of [0, C) for every row.
    Decided by z3 over 32-bit vectors; refuted with the colliding (or escaping) pair."""
    from .swizzle import BIJECTION, bijection
    op = ctx.op
    t = ctx.after.tensor(op.tile)
    dims = [eval_int(d, {}) for d in t.dims]
    if op.pipeline == 2:
        dims = dims[1:]
    rows = 1
    for d in dims[:-1]:
        rows *= d
    minor = dims[-1] + t.pad[-1]
    unit = swizzle_unit(op, t.prec, minor)
    f = swizzle_col(ir.Var("col"), ir.Var("row"), minor, unit)
    return Goal("bijection", BIJECTION, bijection(f, rows, minor, unit, op.tile, ctx.timeout))


def buffer_exprs(kernel, tile):
    """The leading (buffer) index of every read and of every write of the tile."""
    reads = [n.index[0] for n in ir.walk(kernel.body) if isinstance(n, ir.Load) and n.tensor == tile]
    writes = [n.index[0] for n in ir.walk(kernel.body) if isinstance(n, ir.Assign) and n.tensor == tile]
    return reads, writes


def rotation_goal(ctx) -> Goal:
    """Formal statement: with H the anchor's trip count (H >= 1) and k in [0, H), the buffer
    index R(k) read by iteration k equals the prologue's buffer P when k = 0 and the buffer
    W(k - 1) the prefetch of iteration k - 1 wrote when k >= 1, and W(k) != R(k) (the prefetch
    overwrites the copy not being read). R, W, P are the IR's index expressions. z3 over
    integers; unknown (structurally) when the buffer indices are not of that form."""
    from .swizzle import ROTATION, rotation
    reads, writes = buffer_exprs(ctx.after.kernel(ctx.kernel), ctx.op.tile)
    rset = set(reads)
    consts = {w for w in writes if not ir.free_vars(w)}
    loops = {w for w in writes if ir.free_vars(w)}
    if len(rset) != 1 or len(consts) != 1 or len(loops) != 1:
        return Goal("dataflow", ROTATION, Decided(
            "unknown", "the rotating buffer indices are not one read, one prologue and one prefetch form", engine="z3"))
    r, p, w = rset.pop(), consts.pop(), loops.pop()
    names = ir.free_vars(r) | ir.free_vars(w)
    if len(names) != 1:
        return Goal("dataflow", ROTATION, Decided("unknown", "buffer index over several counters", engine="z3"))
    return Goal("dataflow", ROTATION, rotation(r, w, p, names.pop(), ctx.timeout))
