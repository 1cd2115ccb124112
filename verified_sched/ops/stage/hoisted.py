"""stage ... hoisted: the packed copy of a constant source (see apply.py)."""
from __future__ import annotations

import dataclasses

from ...core.ir import And, Assign, BinOp, Cast, Cmp, FloorDiv, For, If, Int, Load, Tensor, Var
from ...analysis.simplify import linear_form, norm_index, render_linear, simplify_kernel
from .. import common
from ..common import error
from .tile import const_value, fresh_name, load_sid, redirect_reads, tile_index, zero_value


def apply_hoisted(program, kernel, op, plan, sites, src, prec):
    """Pack the whole constant source once (first top-level nest); reads go to the packed
    copy P[outer_0 / T_0, ..., tile_0, ...] directly."""
    names = common.used_names(program, kernel)
    outer_idx, dims, pack_env = [], [], []
    for d, (tt, outer) in enumerate(zip(plan.tile_terms, plan.outer)):
        t = plan.dims[d]
        base = norm_index(BinOp("+", outer, Int(sum(c * const_value(plan.loops[v].lo) for v, c in tt.items()))))
        lin = linear_form(base, dyn=False)
        if lin is None or lin[1] % t or any(c % t for c in lin[0].values()):
            raise error(op, f"hoisted: the outer part of index {d} is not a multiple of the tile dim {t}")
        outer_idx.append(render_linear({k: c // t for k, c in lin[0].items()}, lin[1] // t))
        dims.append(norm_index(FloorDiv(BinOp("+", src.dims[d], Int(t - 1)), t)))
        pack_env.append((fresh_name(names, f"{op.tile}_o{d}"), fresh_name(names, f"{op.tile}_t{d}")))
    tidx = tile_index(op, plan, {v: Var(v) for v in plan.loops}, prec, plan.dims[-1])
    inner = sites[-1]
    kernel = common.replace_at(kernel, inner.path, dataclasses.replace(
        inner.stmt, body=redirect_reads(inner.stmt.body, op, plan, tuple(outer_idx) + tidx)))
    sidx = tuple(norm_index(BinOp("+", BinOp("*", Int(plan.dims[d]), Var(o)), Var(t)))
                 for d, (o, t) in enumerate(pack_env))
    cell = tuple(Var(o) for o, _ in pack_env) + tuple(Var(t) for _, t in pack_env)
    value = Load(op.source, sidx)
    if prec != src.prec:
        value = Cast(prec, value)
    guard = None
    for e, dim in zip(sidx, src.dims):
        g = Cmp("<", e, dim)
        guard = g if guard is None else And(guard, g)
    body = (If(guard, (Assign(op.tile, cell, value, sid=load_sid(op.tile)),),
               (Assign(op.tile, cell, zero_value(prec), sid=load_sid(op.tile) + "_fill"),)),)
    for d in range(len(pack_env) - 1, -1, -1):
        body = (For(pack_env[d][1], Int(0), Int(plan.dims[d]), "serial", body),)
    for d in range(len(pack_env) - 1, -1, -1):
        body = (For(pack_env[d][0], Int(0), dims[d], "serial", body),)
    kernel = dataclasses.replace(kernel, body=body + kernel.body)
    packed = Tensor(op.tile, tuple(dims) + tuple(Int(t) for t in plan.dims), prec, "local", loc=op.loc)
    program = program.with_tensor(packed)
    return program.with_kernel(simplify_kernel(program, kernel))
