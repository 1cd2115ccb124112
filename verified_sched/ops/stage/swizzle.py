"""z3 obligations of `stage`: the XOR swizzle is a bijection of each tile row (bit-vectors, over
the actual tile shape), and pipeline=2's buffer rotation reads the copy the unpipelined form
reads (integers, the loop counter mod 2).

The swizzle reaches the IR written bit by bit with floor/mod (the IR has no XOR); the
bijection obligation proves that this rendering equals the bit-vector XOR and permutes the row.
"""
from __future__ import annotations

import z3

from verified_sched import budget, ir
from verified_sched.ir import BinOp, FloorDiv, Int, Mod, Var
from .intexpr import NoTerm, term
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
    """An integer index expression over the names in `env` as a z3 integer term."""
    if not ir.free_vars(e) <= set(env):
        raise Untranslatable(f"cannot translate {e!r}: free names {sorted(ir.free_vars(e) - set(env))}")
    try:
        return term(e, dict(env))
    except NoTerm as exc:
        raise Untranslatable(str(exc)) from None


def check_bijection(f, rows: int, minor: int, unit: int, timeout: float = budget.DEFAULT_TIMEOUT):
    """(status, message, witness): is `f` (the rendered swizzle, an IR index expression over
    Var("row") and Var("col")) the XOR swizzle of a rows x minor tile on `unit`-element units,
    and a bijection of every row?"""
    row, col, col2 = (z3.BitVec(n, WIDTH) for n in ("row", "col", "col2"))
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
        return "unknown", budget.z3_unknown(s.reason_unknown()), None
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


def check_rotation(r, w, p, kname: str, timeout: float = budget.DEFAULT_TIMEOUT):
    """(status, message, k): with the anchor counter `kname` >= 0, the buffer index r(k) read
    by iteration k equals the prologue's p when k = 0 and the prefetch w(k - 1) of iteration
    k - 1 when k >= 1, and w(k) != r(k). r, w, p are IR index expressions."""
    k = z3.Int(kname)
    try:
        R, W, P = to_int(r, {kname: k}), to_int(w, {kname: k}), to_int(p, {})
        Wprev = to_int(ir.substitute(w, {kname: BinOp("-", Var(kname), Int(1))}), {kname: k})
    except Untranslatable as e:
        return "unknown", str(e), None
    s = solver(timeout)
    s.add(k >= 0)
    s.add(z3.Or(z3.And(k == 0, P != R), z3.And(k >= 1, Wprev != R), W == R))
    res = s.check()
    if res == z3.unsat:
        return "proved", (f"iteration {kname} reads buffer {kname} mod 2, filled one phase earlier; the "
                          f"prefetch fills the other"), None
    if res == z3.unknown:
        return "unknown", budget.z3_unknown(s.reason_unknown()), None
    kv = s.model().eval(k, model_completion=True).as_long()
    return "refuted", f"iteration {kname}={kv} reads a buffer its data was not written to", kv
