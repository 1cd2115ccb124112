"""Value expressions as z3 terms over the IEEE-754 theory: what "bitwise equal" means.

Floats are FP sorts with round to nearest even, one per precision (f16 = FP(5, 11), bf16 =
FP(8, 8), f32 = FP(8, 24), f64 = FP(11, 53)); i32 is a 32-bit bit-vector (wrapping); indices
are Int. A statement computes in its stored precision's compute type (`COMPUTE`: f16 and bf16
in f32, as the interpreter and the C backend do), a read converts its cell's storage value
into that type, a cast rounds to the named precision and converts back, a store rounds to the
tensor's precision. `min`/`max` are IEEE 754-2019 minimum/maximum (a NaN operand gives NaN,
-0 < +0). Two values are bitwise equal in the project's sense (`vsched run` compares bits and
identifies every NaN, whatever its payload) exactly when SMT-LIB `=` holds on their terms:
it distinguishes -0.0 from +0.0 and identifies NaNs.

Each operation's encoding is one row of `BINARY`, `CALLS_FP`, `CALLS_INT` (one place, to be
pointed at the semantics table's rows). `equal(a, b, facts, timeout)` decides SMT `=` with a timeout: z3 giving up is
unknown, never equal.
"""
from __future__ import annotations

import math
import struct

import z3

from .solver import solver
from verified_sched.core import budget

RNE = z3.RNE()
SORTS = {"f16": z3.FPSort(5, 11), "bf16": z3.FPSort(8, 8), "f32": z3.Float32(), "f64": z3.Float64()}
COMPUTE = {"f32": "f32", "f16": "f32", "bf16": "f32", "f64": "f64", "i32": "i32"}
BV32 = z3.BitVecSort(32)
# the largest finite value of each precision (i32: its largest magnitude)
MAX_FINITE = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": 3.4028234663852886e38,
              "f64": 1.7976931348623157e308, "i32": 2.0 ** 31}


class NoFp(Exception):
    """The expression has no modelled meaning here (a float converted to i32, say): unknown."""


def sort(prec: str):
    return BV32 if prec == "i32" else SORTS[prec]


def is_int(prec: str) -> bool:
    return prec == "i32"


def _wrap32(v: int) -> int:
    return ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def const(v, prec: str):
    """A literal in compute type `prec` (the interpreter's `Num.const`: i32 literals wrap, a
    non-finite literal is 0 there; floats round to nearest even)."""
    if is_int(prec):
        return z3.BitVecVal(_wrap32(int(v)) if math.isfinite(v) else 0, 32)
    v = float(v)
    if math.isnan(v):
        return z3.fpNaN(SORTS[prec])
    if prec == "f64":
        return z3.FPVal(v, SORTS["f64"])
    return z3.simplify(z3.fpToFP(RNE, z3.FPVal(v, SORTS["f64"]), SORTS[prec]))


def convert(x, src: str, dst: str):
    """A value of type `src` (a precision or "int" for an index) as type `dst`, rounding to
    nearest even; float -> i32 (C's truncation, undefined outside i32) is not modelled."""
    if src == dst:
        return x
    if src == "int":
        if is_int(dst):
            raise NoFp("an index used as an i32 value")
        return z3.fpToFP(RNE, z3.ToReal(x), SORTS[dst])
    if is_int(src):
        return z3.fpSignedToFP(RNE, x, SORTS[dst])
    if is_int(dst):
        raise NoFp("a float converted to i32 (truncation out of range is an error) is not modelled")
    return z3.fpToFP(RNE, x, SORTS[dst])


def round_to(x, compute: str, storage: str):
    """A compute-type value stored in a `storage` cell and read back into `compute`."""
    return convert(convert(x, compute, storage), storage, compute)


# ---------------------------------------------------------------- one row per operation

def _ieee_pick(lower: bool):
    def pick(a, b):
        neg = z3.fpIsNegative(a)
        tie = z3.If(neg, a, b) if lower else z3.If(neg, b, a)  # -0 < +0
        first = z3.fpLT(a, b) if lower else z3.fpGT(a, b)
        other = z3.fpLT(b, a) if lower else z3.fpGT(b, a)
        return z3.If(z3.Or(z3.fpIsNaN(a), z3.fpIsNaN(b)), z3.fpNaN(a.sort()),
                     z3.If(first, a, z3.If(other, b, tie)))
    return pick


def _idiv(a, b):
    return z3.If(b == 0, z3.BitVecVal(0, 32), a / b)  # C's truncating division, x / 0 = 0


BINARY = {  # op -> (float encoding, i32 encoding)
    "+": (lambda a, b: z3.fpAdd(RNE, a, b), lambda a, b: a + b),
    "-": (lambda a, b: z3.fpSub(RNE, a, b), lambda a, b: a - b),
    "*": (lambda a, b: z3.fpMul(RNE, a, b), lambda a, b: a * b),
    "/": (lambda a, b: z3.fpDiv(RNE, a, b), _idiv),
}
CALLS_FP = {
    "min": _ieee_pick(True), "max": _ieee_pick(False),
    "fma": lambda a, b, c: z3.fpFMA(RNE, a, b, c),
    # abs is `a < 0 ? -a : a` (the table, C's vs_abs_*): abs(-0.0) is -0.0, not fpAbs's +0.0
    "neg": z3.fpNeg, "abs": lambda a: z3.If(z3.fpLT(a, z3.FPVal(0.0, a.sort())), z3.fpNeg(a), a),
    "sqrt": lambda a: z3.fpSqrt(RNE, a),
    "relu": lambda a: _ieee_pick(False)(a, z3.FPVal(0.0, a.sort())),
    # libm's exp and log: deterministic functions of their argument, otherwise unknown
    "exp": lambda a: z3.Function(f"exp_{a.sort().ebits()}_{a.sort().sbits()}", a.sort(), a.sort())(a),
    "log": lambda a: z3.Function(f"log_{a.sort().ebits()}_{a.sort().sbits()}", a.sort(), a.sort())(a),
}
CALLS_INT = {
    "min": lambda a, b: z3.If(a < b, a, b), "max": lambda a, b: z3.If(a > b, a, b),
    "fma": lambda a, b, c: a * b + c, "neg": lambda a: -a,
    "abs": lambda a: z3.If(a < 0, -a, a), "relu": lambda a: z3.If(a > 0, a, z3.BitVecVal(0, 32)),
}


def binary(op: str, prec: str, a, b):
    return BINARY[op][1 if is_int(prec) else 0](a, b)


def call(fn: str, prec: str, args):
    table = CALLS_INT if is_int(prec) else CALLS_FP
    if fn not in table:
        raise NoFp(f"{fn} in {prec} is not modelled")
    return table[fn](*args)


# ---------------------------------------------------------------- deciding "bitwise equal"

def equal(a, b, facts=(), timeout: float = budget.DEFAULT_TIMEOUT):
    """("proved", None) when a = b (SMT-LIB `=`: bitwise, NaNs identified) under `facts`,
    ("refuted", model) with a z3 model where they differ, ("unknown", reason) when z3 gives up."""
    s = solver(timeout)
    s.add(*facts)
    s.add(a != b)
    r = s.check()
    if r == z3.unsat:
        return "proved", None
    if r == z3.sat:
        return "refuted", s.model()
    return "unknown", budget.z3_unknown(s.reason_unknown())


def finite(x):
    """x is finite (neither an infinity nor NaN); an i32 always is."""
    if z3.is_bv(x):
        return z3.BoolVal(True)
    return z3.Not(z3.Or(z3.fpIsInf(x), z3.fpIsNaN(x)))


def value_of(model, x, prec: str):
    """The Python value of term x in a model: an int for i32, a float (bits kept: -0.0, inf,
    nan) for the float precisions."""
    v = model.eval(x, model_completion=True)
    if is_int(prec):
        return _wrap32(v.as_long())
    if z3.is_true(model.eval(z3.fpIsNaN(v), model_completion=True)):
        return float("nan")  # (SMT-LIB gives NaN no bits: fpToIEEEBV of it is unspecified)
    bits = model.eval(z3.fpToIEEEBV(z3.fpToFP(RNE, v, SORTS["f64"])), model_completion=True)
    try:
        return struct.unpack("<d", struct.pack("<Q", bits.as_long()))[0]
    except (AttributeError, z3.Z3Exception):  # NaN has no single bit pattern in SMT-LIB
        return float("nan")


def bits_text(v: float, prec: str) -> str:
    """A float's bits in its precision, e.g. 0x80000000 for f32 -0.0."""
    import numpy as np
    if is_int(prec):
        return f"0x{v & 0xFFFFFFFF:08x}"
    if prec == "f64":
        return f"0x{struct.unpack('<Q', struct.pack('<d', v))[0]:016x}"
    if prec == "f16":
        return f"0x{int(np.float16(v).view(np.uint16)):04x}"
    u = int(np.float32(v).view(np.uint32))
    return f"0x{u >> 16:04x}" if prec == "bf16" else f"0x{u:08x}"
