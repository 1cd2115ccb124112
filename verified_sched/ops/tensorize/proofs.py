"""The obligations of tensorize: the block's contraction equals its fallback's; lanes do not race."""
from __future__ import annotations

import dataclasses

import islpy as isl

from polyhedral import contraction
from verified_sched.obligations import Decided
from polyhedral.describe import coords, instance, param_values
from polyhedral.isltools import params_text, point_of
from polyhedral.model import KernelModel
from .. import ir
from ..errors import ScheduleError
from . import common
from .tensorize import intrinsic_of, wrap_lanes, find_block, tile


def _block(ctx):
    kernel = ctx.after.kernel(ctx.kernel)
    site = find_block(kernel, ctx.op.i)
    if site is None:
        raise ScheduleError(f"tensorize: no tensor-core block over loop '{ctx.op.i}' after the op",
                            getattr(ctx.op, "loc", None))
    return kernel, site


def equivalence(ctx):
    """Formal statement: forall params and every iteration of the loops around the block, the
    tensor-core contraction d[I0 + m, J0 + n] += a[A0 + m, A1 + k] * b[B0 + k, B1 + n] over the
    block's shape (m, n, k) adds to every cell of d the same multiset of products as the
    fallback nest (contraction equivalence with multiplicities, polyhedral/contraction.py, on
    two kernels holding the enclosing loops and guards around each; all tensors taken as
    global so every cell counts)."""
    kernel, site = _block(ctx)
    tc = site.stmt
    t = tile(ctx.after, tc.fallback[0], (ctx.op.i, ctx.op.j, ctx.op.k), ctx.op)
    used = common.used_names(ctx.after, kernel)
    spec = intrinsic_of(t, tc.shape, used)
    fb = wrap_lanes(site, tc.fallback, tc.lane)
    it = wrap_lanes(site, spec, tc.lane)
    prog = dataclasses.replace(
        ctx.after, tensors=tuple(dataclasses.replace(x, memory="global") for x in ctx.after.tensors),
        kernels=(ir.Kernel("tc_fallback", fb), ir.Kernel("tc_intrinsic", it)), schedules=(), claims=())
    found = contraction.equivalence(KernelModel(prog, "tc_intrinsic", tag="I"),
                                    KernelModel(prog, "tc_fallback", tag="F"), ctx.profile)
    f = dict(found)["equivalence"]
    f.statement = ("forall params: the tensor-core block's contraction (shape "
                   f"{'x'.join(map(str, tc.shape))} from the tile bases) adds the same products, with "
                   "multiplicity, to every cell as its scalar fallback")
    return (f)


def race(ctx):
    """Formal statement: forall params, no two instances inside the block whose lane indices
    differ (all else equal or not) conflict on a cell, one of them writing (isl, directly on
    the after-kernel's model: the fallback runs under lane == 0)."""
    statement = "forall params: no two lanes of the lane loop access one cell, one of them writing"
    kernel, site = _block(ctx)
    lane = site.stmt.lane
    m = ctx.model_after
    inside = [st for st in m.stmts if any(lp.var == lane for lp in st.loops)]
    maps = []
    for s in inside:
        for t in inside:
            ls = next(d for d, lp in enumerate(s.loops) if lp.var == lane)
            lt = next(d for d, lp in enumerate(t.loops) if lp.var == lane)
            maps.append(isl.Map(m.space(f"{m.tup(s, 'a')} -> {m.tup(t, 'b')} : a{ls} != b{lt}")))
    if not maps:
        return (Decided("proved", "the block holds no statement", statement))
    pairs = m.conflicts.intersect(m.union_map(maps))
    pt = point_of(pairs)
    if pt is None:
        return (Decided("proved", "only lane 0 runs the fallback: no two lanes conflict",
                                              statement))
    p, tup = coords(pt)
    params = param_values(m, p)
    insts = [instance(m, n, v, params, "after") for n, v in tup]
    return (Decided("refuted", f"two lanes conflict at {params_text(params)}", statement,
                                          {"params": params, "instances": insts}))
