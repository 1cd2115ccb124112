"""The obligations of `stage` (ops/stage.py): dataflow through the load nests (isl), the
structural correspondence of the rest of the kernel, the swizzle bijection and the pipeline
rotation (z3)."""
from __future__ import annotations

import dataclasses

from .. import ir
from ..ir import Assign, Barrier, For, If, Load, TensorCore
from ..simplify import simplify_kernel
from . import common
from .stage import load_sid


def dataflow(ctx):
    """Formal statement: for all parameter values, every read of the tile sees exactly the
    source value its original read saw: the last write of the read cell that happens before it
    (same thread, or same block across a barrier instance) is unique, is a load-nest copy (not
    an edge-guard zero) of the source cell equal to the original read's cell, and no write of
    that cell is unordered with the read. Decided by isl over exact instance sets
    (polyhedral/dataflow.py)."""
    from polyhedral.dataflow import tile_dataflow
    from polyhedral.model import KernelModel
    op = ctx.op
    model = ctx.model_after
    note = ""
    if op.swizzle is not None:
        # decided on the logical (unswizzled) cells: the swizzle is a bijection of each row
        # (the `bijection` obligation), so two accesses meet in the swizzled tile exactly when
        # they meet in the plain one; the staged kernel must be the plain one re-swizzled
        from .stage import apply as stage_apply, reswizzle
        plain = stage_apply(ctx.before, ctx.kernel, dataclasses.replace(op, swizzle=None))
        if reswizzle(plain, ctx.kernel, op) != ctx.after:
            return common.obligation(ctx, "dataflow", STATEMENT, "unknown",
                                     "the swizzled kernel is not the plain staging re-swizzled (not decided)")
        model = KernelModel(plain, ctx.kernel, tag="A")
        note = " (on logical cells; the swizzle's bijection is its own obligation)"
    f = tile_dataflow(ctx.model_before, model, op.source, op.tile)
    return common.obligation(ctx, "dataflow", f.statement, f.status, f.message + note, f.counterexample, f.engine)


STATEMENT = "every tile read sees exactly the source value its original read saw"


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
    the same instances, in the same order per thread. Structural."""
    op = ctx.op
    before = ctx.before.kernel(ctx.kernel)
    after = ctx.after.kernel(ctx.kernel)
    inner = max((common.find_loop(before, v, op, "over") for v in op.over), key=lambda s: len(s.loops))
    stmts = [n for n in ir.walk(inner.stmt.body) if isinstance(n, Load) and n.tensor == op.source]
    idx = {tuple(n.index) for n in stmts}
    from ..simplify import norm_index
    idx = {tuple(norm_index(e) for e in i) for i in idx}
    index = next(iter(idx)) if len(idx) == 1 else None
    writes_ok = all(n.tensor == op.tile for n in ir.walk(after.body)
                    if isinstance(n, Assign) and n.sid.startswith(load_sid(op.tile)))
    b = simplify_kernel(ctx.before, dataclasses.replace(before, body=_strip(before.body, op.tile, op.source, None)))
    a = simplify_kernel(ctx.after, dataclasses.replace(after, body=_strip(after.body, op.tile, op.source, index)))
    statement = ("the kernel without load nests and barriers, tile reads read back as source reads, equals the "
                 "kernel before the op")
    if index is None:
        return common.obligation(ctx, "coverage", statement, "unknown",
                                 f"{op.source} is read with several index vectors", engine="structural")
    if a == b and writes_ok:
        return common.obligation(ctx, "coverage", statement, "proved",
                                 "same statements on the same instances; load nests write only the tile",
                                 engine="structural")
    return common.obligation(ctx, "coverage", statement, "unknown",
                             "the staged kernel differs from the original beyond the load nests and barriers "
                             "(not decided)",
                             engine="structural")


def obligations(ctx) -> list:
    from smt import swizzle
    out = [common.timed(dataflow, ctx), common.timed(correspondence, ctx)]
    op = ctx.op
    if op.swizzle is not None:
        out.append(common.timed(lambda c: swizzle.bijection_obligation(c), ctx))
    if op.pipeline == 2:
        out.append(common.timed(lambda c: swizzle.rotation_obligation(c), ctx))
    return out
