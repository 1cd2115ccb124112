"""z3 obligations of `stage`: the XOR swizzle is a bijection of each tile row (bit-vectors, over
the actual tile shape), and pipeline=2's buffer rotation reads the copy the unpipelined form
reads (integers, the loop counter mod 2).

The swizzle reaches the IR written bit by bit with floor/mod (the IR has no XOR); the
bijection obligation proves that this rendering equals the bit-vector XOR and permutes the row.
"""
from __future__ import annotations

import z3

from verified_sched import ir
from verified_sched.ir import BinOp, FloorDiv, Int, Load, Mod, Var
from .solver import solver

WIDTH = 32
BIJECTION = ("forall row in [0, R), col, col2 in [0, C): the rendered swizzle f(row, col) equals the XOR spec, "
             "lies in [0, C), and f(row, col) = f(row, col2) implies col = col2")
ROTATION = ("forall H >= 1, k in [0, H): the buffer iteration k reads is the one its data was written to "
            "(the prologue for k = 0, the prefetch of iteration k - 1 otherwise), and the prefetch of "
            "iteration k writes the other buffer")


class Untranslatable(Exception):
    pass


def to_bv(e, env: dict):
    """An index expression as a 32-bit vector (floor/mod of non-negative values only)."""
    match e:
        case Int(value=v):
            return z3.BitVecVal(v, WIDTH)
        case Var(name=n) if n in env:
            return env[n]
        case BinOp(op="+", a=a, b=b):
            return to_bv(a, env) + to_bv(b, env)
        case BinOp(op="-", a=a, b=b):
            return to_bv(a, env) - to_bv(b, env)
        case BinOp(op="*", a=a, b=b):
            return to_bv(a, env) * to_bv(b, env)
        case FloorDiv(a=a, divisor=d):
            return z3.UDiv(to_bv(a, env), z3.BitVecVal(d, WIDTH))
        case Mod(a=a, divisor=d):
            return z3.URem(to_bv(a, env), z3.BitVecVal(d, WIDTH))
    raise Untranslatable(f"cannot translate {e!r}")


def to_int(e, env: dict):
    match e:
        case Int(value=v):
            return z3.IntVal(v)
        case Var(name=n) if n in env:
            return env[n]
        case BinOp(op="+", a=a, b=b):
            return to_int(a, env) + to_int(b, env)
        case BinOp(op="-", a=a, b=b):
            return to_int(a, env) - to_int(b, env)
        case BinOp(op="*", a=a, b=b):
            return to_int(a, env) * to_int(b, env)
        case FloorDiv(a=a, divisor=d):
            return to_int(a, env) / d  # z3 integer division: floor for a positive divisor
        case Mod(a=a, divisor=d):
            return to_int(a, env) % d
    raise Untranslatable(f"cannot translate {e!r}")


def check_bijection(rows: int, minor: int, unit: int, timeout: float = 10.0):
    """(status, message, witness) for the swizzle of a rows x minor tile on `unit`-element units."""
    from verified_sched.ops.stage import swizzle_col
    row, col, col2 = (z3.BitVec(n, WIDTH) for n in ("row", "col", "col2"))
    f = swizzle_col(Var("col"), Var("row"), minor, unit)
    f1 = to_bv(f, {"row": row, "col": col})
    f2 = to_bv(f, {"row": row, "col": col2})
    units = minor // unit
    u = z3.UDiv(col, z3.BitVecVal(unit, WIDTH))
    spec = (u ^ (row & z3.BitVecVal(units - 1, WIDTH))) * unit + z3.URem(col, z3.BitVecVal(unit, WIDTH))
    in_tile = [z3.ULT(row, rows), z3.ULT(col, minor), z3.ULT(col2, minor)]
    s = solver(timeout)
    s.add(*in_tile)
    s.add(z3.Or(f1 != spec, z3.Not(z3.ULT(f1, minor)), z3.And(col != col2, f1 == f2)))
    r = s.check()
    if r == z3.unsat:
        return "proved", f"the {rows}x{minor} tile's swizzle is the XOR and a bijection of every row", None
    if r == z3.unknown:
        return "unknown", f"z3: {s.reason_unknown()}", None
    m = s.model()
    vals = {n: m.eval(v, model_completion=True).as_long() for n, v in (("row", row), ("col", col), ("col2", col2))}
    a = m.eval(f1, model_completion=True).as_long()
    b = m.eval(f2, model_completion=True).as_long()
    if a >= minor:
        msg = f"row {vals['row']}: column {vals['col']} maps to {a}, outside the row of {minor}"
    elif vals["col"] != vals["col2"] and a == b:
        msg = f"row {vals['row']}: columns {vals['col']} and {vals['col2']} both map to {a}"
    else:
        msg = f"row {vals['row']}: column {vals['col']} maps to {a}, not the XOR swizzle"
    return "refuted", msg, {"row": vals["row"], "cols": [vals["col"], vals["col2"]], "images": [a, b]}


def bijection_obligation(ctx):
    """Formal statement: for the tile's actual shape (R rows = product of the leading dims, C =
    the minor storage dim), the swizzle rendered in the IR equals the bit-vector XOR of the
    column (or 16-byte unit) with the row's low bits and is a bijection of [0, C) for every row.
    Decided by z3 over 32-bit vectors; refuted with the colliding (or escaping) pair."""
    from verified_sched.ops import common
    from verified_sched.ops.stage import swizzle_unit
    from verified_sched.sizes import eval_int
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
    status, msg, wit = check_bijection(rows, minor, unit, ctx.timeout)
    cex = None
    if wit is not None:
        cex = {"params": {}, "cells": [{"tensor": op.tile, "index": [wit["row"], c]} for c in wit["cols"]],
               "images": wit["images"]}
    return common.obligation(ctx, "bijection", BIJECTION, status, msg, cex, "z3")


def _buffer_exprs(kernel, tile):
    reads = [n.index[0] for n in ir.walk(kernel.body) if isinstance(n, Load) and n.tensor == tile]
    writes = [n.index[0] for n in ir.walk(kernel.body) if isinstance(n, ir.Assign) and n.tensor == tile]
    return reads, writes


def rotation_obligation(ctx):
    """Formal statement: with H the anchor's trip count (H >= 1) and k in [0, H), the buffer
    index R(k) read by iteration k equals the prologue's buffer P when k = 0 and the buffer
    W(k - 1) the prefetch of iteration k - 1 wrote when k >= 1, and W(k) != R(k) (the prefetch
    overwrites the copy not being read). R, W, P are the IR's index expressions. z3 over
    integers."""
    from verified_sched.ops import common
    op = ctx.op
    reads, writes = _buffer_exprs(ctx.after.kernel(ctx.kernel), op.tile)
    rset = set(reads)
    consts = {w for w in writes if not ir.free_vars(w)}
    loops = {w for w in writes if ir.free_vars(w)}
    if len(rset) != 1 or len(consts) != 1 or len(loops) != 1:
        return common.obligation(ctx, "dataflow", ROTATION, "unknown",
                                 "the rotating buffer indices are not one read, one prologue and one prefetch form",
                                 engine="z3")
    r, p, w = rset.pop(), consts.pop(), loops.pop()
    names = ir.free_vars(r) | ir.free_vars(w)
    if len(names) != 1:
        return common.obligation(ctx, "dataflow", ROTATION, "unknown", "buffer index over several counters",
                                 engine="z3")
    kname = names.pop()
    k = z3.Int(kname)
    try:
        R, W, P = to_int(r, {kname: k}), to_int(w, {kname: k}), to_int(p, {})
        Wprev = to_int(ir.substitute(w, {kname: BinOp("-", Var(kname), Int(1))}), {kname: k})
    except Untranslatable as e:
        return common.obligation(ctx, "dataflow", ROTATION, "unknown", str(e), engine="z3")
    s = solver(ctx.timeout)
    s.add(k >= 0)
    s.add(z3.Or(z3.And(k == 0, P != R), z3.And(k >= 1, Wprev != R), W == R))
    res = s.check()
    if res == z3.unsat:
        return common.obligation(ctx, "dataflow", ROTATION, "proved",
                                 f"iteration {kname} reads buffer {kname} mod 2, filled one phase earlier; the "
                                 f"prefetch fills the other", engine="z3")
    if res == z3.unknown:
        return common.obligation(ctx, "dataflow", ROTATION, "unknown", f"z3: {s.reason_unknown()}", engine="z3")
    kv = s.model().eval(k, model_completion=True).as_long()
    return common.obligation(ctx, "dataflow", ROTATION, "refuted",
                             f"iteration {kname}={kv} reads a buffer its data was not written to",
                             {"params": {}, "instances": [{"stmt": "read", "at": {kname: kv}}]}, "z3")
