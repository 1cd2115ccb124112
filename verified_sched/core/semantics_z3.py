"""The z3 column of the semantics table (`verified_sched.core.semantics`): each operation's
encoding as a small function over z3 terms of one compute type, z3 imported lazily.

The one z3 meaning of every operation: the claim comparison (smt/fp.py) and the integer
translator (smt/intexpr.py) look the rows up, they keep no copy. Sorts: Float32/Float64 with
round to nearest even (`rne`, the one rounding mode) for f32 (also f16 and bf16 arithmetic,
narrowed by `z3_round`) and f64; 32-bit bit-vectors for i32 (wrapping, `/` truncating with
x / 0 = 0); Int for index expressions (floor division and modulo). exp and log (libm's, no
exact IEEE definition) and the i32 transcendental functions (through double) are one
uninterpreted function per compute type, so equal arguments give equal results and nothing
else is assumed. min/max are IEEE 754-2019 minimum/maximum written out (z3's fpMin leaves
-0/+0 unspecified); comparisons are IEEE (`==` is fpEQ: -0 == +0, NaN unequal).
"""
from __future__ import annotations

import operator

FLOATS = ("f32", "f64")  # the float compute types
CMP_FN = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
          "==": operator.eq, "!=": operator.ne}


def rne():
    """The rounding mode of every float operation, conversion and narrowing of the table: round
    to nearest even (one place; the semantic mutant z3_round_toward_zero plants RTZ here)."""
    import z3
    return z3.RNE()


def z3_sort(ct: str):
    import z3
    return {"f32": z3.Float32(), "f64": z3.Float64(), "i32": z3.BitVecSort(32),
            "index": z3.IntSort()}[ct]


def _z3_uf(name: str, ct: str, arity: int = 1):
    import z3
    s = z3_sort(ct)
    return z3.Function(f"vs_{name}_{ct}", *([s] * arity), s)


def z_arith(op: str):
    def enc(ct, a, b):
        import z3
        if ct in FLOATS:
            return {"+": z3.fpAdd, "-": z3.fpSub, "*": z3.fpMul, "/": z3.fpDiv}[op](rne(), a, b)
        if op == "/":  # i32 only: truncating (bvsdiv), x / 0 = 0
            return z3.If(b == 0, z3.BitVecVal(0, 32), z3.If(b == -1, -a, a / b))
        return {"+": operator.add, "-": operator.sub, "*": operator.mul}[op](a, b)
    return enc


def z_pick(lower: bool):
    def enc(ct, a, b):
        import z3
        if ct not in FLOATS:
            return z3.If(a <= b if lower else a >= b, a, b)
        tie = z3.If(z3.fpIsNegative(a), a if lower else b, b if lower else a)
        less = z3.fpLT(a, b) if lower else z3.fpGT(a, b)
        return z3.If(z3.Or(z3.fpIsNaN(a), z3.fpIsNaN(b)), z3.fpNaN(a.sort()),
                     z3.If(z3.fpEQ(a, b), tie, z3.If(less, a, b)))
    return enc


def z_zero(ct: str):
    import z3
    if ct in FLOATS:
        return z3.FPVal(0.0, z3_sort(ct))
    return z3.BitVecVal(0, 32) if ct == "i32" else z3.IntVal(0)


def z_neg(ct, a):
    import z3
    return z3.fpNeg(a) if ct in FLOATS else -a


def z_abs(ct, a):  # a < 0 ? -a : a, as C's vs_abs_* (so abs(-0.0) is -0.0)
    import z3
    if ct in FLOATS:
        return z3.If(z3.fpLT(a, z_zero(ct)), z3.fpNeg(a), a)
    return z3.If(a < 0, -a, a)


def z_fma(ct, a, b, c):
    import z3
    return z3.fpFMA(rne(), a, b, c) if ct in FLOATS else a * b + c


def z_libm(f: str):
    def enc(ct, a):
        import z3
        if f == "sqrt" and ct in FLOATS:
            return z3.fpSqrt(rne(), a)
        return _z3_uf(f, ct)(a)  # exp/log: libm's, no exact IEEE definition; i32: via double
    return enc


def z_rsqrt(ct, a):
    import z3
    if ct in FLOATS:
        return z3.fpDiv(rne(), z3.FPVal(1.0, a.sort()), z3.fpSqrt(rne(), a))
    return _z3_uf("rsqrt", ct)(a)


def z_pow(ct, a, b):
    return _z3_uf("pow", ct, 2)(a, b)  # libm's: no exact IEEE definition


def z_floordiv(ct, a, c):
    import z3
    if ct == "index":
        return a / c  # z3's integer division is floor for a positive divisor
    if ct == "i32":
        q, r = a / c, z3.SRem(a, c)
        return z3.If(r < 0, q - 1, q)
    return z3.fpRoundToIntegral(z3.RTN(), z3.fpDiv(rne(), a, z3.FPVal(c, a.sort())))


def z_mod(ct, a, c):
    import z3
    if ct == "index":
        return a % c
    if ct == "i32":
        r = z3.SRem(a, c)
        return z3.If(r < 0, r + c, r)
    k = z3.FPVal(c, a.sort())
    return z3.fpSub(rne(), a, z3.fpMul(rne(), k, z_floordiv(ct, a, c)))


def z_cmp(op: str):
    def enc(ct, a, b):
        import z3
        if ct in FLOATS:
            if op == "!=":
                return z3.Not(z3.fpEQ(a, b))
            return {"<": z3.fpLT, "<=": z3.fpLEQ, ">": z3.fpGT, ">=": z3.fpGEQ, "==": z3.fpEQ}[op](a, b)
        return CMP_FN[op](a, b)
    return enc


def z3_convert(term, src: str, dst: str):
    """A z3 term of compute type `src` as compute type `dst` (C's conversion: float -> int
    truncates toward zero, int -> int wraps, float -> float rounds to nearest even)."""
    import z3
    if src == dst:
        return term
    mode = rne()
    if dst in FLOATS:
        if src in FLOATS:
            return z3.fpToFP(mode, term, z3_sort(dst))
        if src == "i32":
            return z3.fpSignedToFP(mode, term, z3_sort(dst))
        return z3.fpToFP(mode, z3.ToReal(term), z3_sort(dst))
    if dst == "i32":
        if src in FLOATS:
            return z3.fpToSBV(z3.RTZ(), term, z3.BitVecSort(32))
        return z3.Int2BV(term, 32)
    if src == "i32":  # -> index
        return z3.BV2Int(term, is_signed=True)
    return z3.fpToReal(term)  # a float as an index has no integer meaning; callers decline


def z3_round(prec: str, term):
    """A term of `prec`'s compute type rounded to `prec` (f16: binary16, bf16: 8-bit exponent
    and 8-bit significand, round to nearest even), back in the compute type."""
    import z3
    narrow = {"f16": z3.FloatHalf(), "bf16": z3.FPSort(8, 8)}.get(prec)
    if narrow is None:
        return term
    return z3.fpToFP(rne(), z3.fpToFP(rne(), term, narrow), z3.Float32())
