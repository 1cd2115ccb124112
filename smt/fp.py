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

Every operation's encoding is its row of the semantics table (`verified_sched.core.semantics`,
the `z3(ct, *terms)` column written in `core/semantics_z3.py`): `binary`, `call` and `cast` are
lookups of the rows, and an operation the table does not encode is `NoFp` (unknown, never
equal). What is fp's own: the sorts of the storage precisions, constants, conversions between
storage and compute types with their declines (a float or an index converted to i32 is not
modelled), `finite`, and deciding "bitwise equal": `equal(a, b, facts, timeout)` decides SMT
`=` with a timeout: z3 giving up is unknown, never equal.
"""
from __future__ import annotations

import math
import struct

import z3

from .solver import solver
from verified_sched.core import budget, semantics, semantics_z3
from verified_sched.core.precisions import COMPUTE

# the storage precisions the table has no compute sort for (f16 = FP(5, 11), bf16 = FP(8, 8))
NARROW = {"f16": z3.FPSort(5, 11), "bf16": z3.FPSort(8, 8)}
# the largest finite value of each precision (i32: its largest magnitude)
MAX_FINITE = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": 3.4028234663852886e38,
              "f64": 1.7976931348623157e308, "i32": 2.0 ** 31}


class NoFp(Exception):
    """The expression has no modelled meaning here (a float converted to i32, say): unknown."""


def sort(prec: str):
    """The z3 sort of a value of storage precision or compute type `prec`."""
    return NARROW.get(prec) or semantics_z3.z3_sort(prec)


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
        return z3.fpNaN(sort(prec))
    return z3.simplify(convert(z3.FPVal(v, sort("f64")), "f64", prec))


def convert(x, src: str, dst: str):
    """A value of type `src` (a storage precision, a compute type, or "index" for an iterator's
    value) as type `dst`: between compute types the table's conversion (`z3_convert`), from
    f16/bf16 exactly into f32 first, to f16/bf16 from a float rounding to nearest even; float ->
    i32 (C's truncation, undefined outside i32) and index -> i32 are not modelled (NoFp)."""
    if src == dst:
        return x
    if is_int(dst):
        raise NoFp("an index used as an i32 value" if src == "index" else
                   "a float converted to i32 (truncation out of range is an error) is not modelled")
    if src in NARROW:
        return convert(z3.fpToFP(semantics_z3.rne(), x, sort("f32")), "f32", dst)
    if dst in NARROW:
        if src not in semantics_z3.FLOATS:
            raise NoFp(f"{src} converted to {dst} is not modelled")
        return z3.fpToFP(semantics_z3.rne(), x, sort(dst))
    return semantics_z3.z3_convert(x, src, dst)


def round_to(x, compute: str, storage: str):
    """A compute-type value stored in a `storage` cell and read back into `compute` (the
    table's rounding, `z3_round`, where compute is storage's compute type)."""
    if compute == COMPUTE[storage]:
        return semantics_z3.z3_round(storage, x)
    return convert(convert(x, compute, storage), storage, compute)


# ---------------------------------------------------------------- operations: the table's rows

def _row_z3(row, ct: str, args):
    if row is None or len(args) != row.arity:
        raise NoFp("an operation the semantics table does not encode")
    return row.z3(ct, *args)


def binary(op: str, ct: str, a, b):
    """`a op b` in compute type ct: the table's row for the operator (`+ - * /`)."""
    return _row_z3(semantics.BINOPS.get(op), ct, (a, b))


def call(fn: str, ct: str, args):
    """`fn(*args)` in compute type ct: the table's row for the function."""
    if fn not in semantics.FUNCS:
        raise NoFp(f"{fn} in {ct} is not modelled")
    return _row_z3(semantics.FUNCS[fn], ct, tuple(args))


def operation(name: str, ct: str, args):
    """A value tree's operation node (a binary operator's symbol or a function's name)."""
    if name in semantics.BINOPS and len(args) == 2:
        return binary(name, ct, *args)
    return call(name, ct, args)


def cast(prec: str, x):
    """`prec(x)`, x in prec's compute type: the table's cast row (rounded to prec, back in the
    compute type)."""
    return semantics.CASTS[prec].z3(COMPUTE[prec], x)


# ---------------------------------------------------------------- deciding "bitwise equal"

def differ(a, b):
    """The z3 condition "a and b differ" in the project's sense: SMT-LIB's `=` negated (bitwise:
    -0.0 and +0.0 differ, every NaN equals every NaN), never IEEE's fpEQ."""
    return a != b


def equal(a, b, facts=(), timeout: float = budget.DEFAULT_TIMEOUT):
    """("proved", None) when a = b (SMT-LIB `=`: bitwise, NaNs identified) under `facts`,
    ("refuted", model) with a z3 model where they differ, ("unknown", reason) when z3 gives up."""
    s = solver(timeout)
    s.add(*facts)
    s.add(differ(a, b))
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
    bits = model.eval(z3.fpToIEEEBV(z3.fpToFP(semantics_z3.rne(), v, sort("f64"))), model_completion=True)
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
