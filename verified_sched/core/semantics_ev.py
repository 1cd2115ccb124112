"""The exact-evaluation column of the semantics table (`semantics.Row.ev`): each operation per
compute type, on numpy scalars with IEEE-754 round to nearest even (f32, f64), wrapping int32
(i32) and exact Python integers (index); exp/log/sqrt/fma through the very libm functions the
compiled C calls. Its own module so that reading the table (the verifier, the parser, the
translators to isl and z3) imports no numpy: `Row.ev` imports this on first use.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import operator

import numpy as np

from .errors import KernelError
from .precisions import CMP_NAMES, COMPUTE, I32_MAX, I32_MIN, PRECISIONS
from .semantics_z3 import CMP_FN, FLOATS


_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_SCALAR = {"f32": np.float32, "f64": np.float64}


def _libm(name: str, ctype, nargs: int):
    fn = getattr(_LIBM, name)
    fn.restype = ctype
    fn.argtypes = [ctype] * nargs
    return fn


def wrap32(x: int) -> int:
    """Two's complement wrap of an integer to int32."""
    return ((x + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def trunc_i32(x) -> int:
    """C's conversion to int32: an integer wraps, a float truncates toward zero (outside int32
    undefined in C: a KernelError here)."""
    if isinstance(x, (int, np.integer)):
        return wrap32(int(x))
    if not np.isfinite(x) or not I32_MIN <= int(x) <= I32_MAX:
        raise KernelError(f"conversion of {x} to i32 is out of range")
    return int(x)


def _idiv(a: int, b: int) -> int:
    """int32 division: truncating, x / 0 = 0, wrapping (INT_MIN / -1 = INT_MIN)."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return wrap32(q if (a < 0) == (b < 0) else -q)


def _ieee_pick(scalar, lower: bool):
    """IEEE 754-2019 minimum (`lower`) or maximum in `scalar`'s type, as the C helpers
    vs_min_f32/...: a NaN operand gives the canonical quiet NaN (np.nan's bits), -0 < +0."""
    nan = scalar(np.nan)

    def pick(a, b):
        if a != a or b != b:
            return nan
        if a == b:  # -0 and +0: the minimum is the negative one
            return a if bool(np.signbit(a)) == lower else b
        return a if (a < b) == lower else b
    return pick


def _int_pick(lower: bool):
    return (lambda a, b: a if a < b else b) if lower else (lambda a, b: a if a > b else b)


def _f2bf(v) -> int:
    """One float -> bf16 bits, round to nearest even, a NaN kept quiet (verified_sched.core.dtypes' rule)."""
    u = int(np.float32(v).view(np.uint32))
    if (u & 0x7FFFFFFF) > 0x7F800000:
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


# compute-type value -> storage element (rounding to nearest even) and back
TO_STORAGE = {"f32": np.float32, "f64": np.float64, "f16": lambda v: np.float16(np.float32(v)),
              "bf16": _f2bf, "i32": trunc_i32}
FROM_STORAGE = {"f32": lambda v: v, "f64": lambda v: v, "f16": np.float32,
                "bf16": lambda v: (np.uint32(v) << np.uint32(16)).view(np.float32), "i32": int}
# a value of any compute type -> this compute type (C's implicit conversion)
CONVERT = {"f32": np.float32, "f64": np.float64, "i32": trunc_i32, "index": int}


def round_to(prec: str, v):
    """A value of `prec`'s compute type rounded to `prec` (the meaning of a cast and a store)."""
    if prec == "index":
        return int(v)
    return FROM_STORAGE[prec](TO_STORAGE[prec](v))


def const(ct: str, v):
    """A literal (Int or Float value) in compute type ct (C: i32 literals wrap, a non-finite
    float literal is 0; an index literal is exact)."""
    if ct == "i32":
        return wrap32(int(v)) if np.isfinite(v) else 0
    if ct == "index":
        return int(v)
    return _SCALAR[ct](v)


# the libm functions of one argument: the same call in C and, through ctypes, here
LIBM_UNARY = ("exp", "log", "sqrt", "tanh", "erf")


def _float_ev():
    """Per float compute type: the libm-backed evaluations."""
    out = {}
    for ct in FLOATS:
        c_type = ctypes.c_float if ct == "f32" else ctypes.c_double
        sfx, scalar = ("f" if ct == "f32" else ""), _SCALAR[ct]
        fns = {f: _libm(f + sfx, c_type, 1) for f in LIBM_UNARY}
        fma = _libm("fma" + sfx, c_type, 3)
        ev = {f: (lambda a, fn=fn, s=scalar: s(fn(float(a)))) for f, fn in fns.items()}
        ev["fma"] = lambda a, b, c, fma=fma, s=scalar: s(fma(float(a), float(b), float(c)))
        pw = _libm("pow" + sfx, c_type, 2)
        ev["pow"] = lambda a, b, pw=pw, s=scalar: s(pw(float(a), float(b)))
        # 1 / sqrt(a): two roundings, in every backend (no approximate reciprocal square root)
        ev["rsqrt"] = lambda a, q=ev["sqrt"], s=scalar: s(1) / q(a)
        out[ct] = ev
    return out


_FEV = _float_ev()
_DEXP = {f: _libm(f, ctypes.c_double, 1) for f in LIBM_UNARY}
_DPOW = _libm("pow", ctypes.c_double, 2)


def _i32_libm(f: str):
    """i32 exp/log/sqrt: no integer transcendental, through double (C: `(int32_t)f((double)x)`)."""
    fn = _DEXP[f]
    return lambda a: trunc_i32(fn(float(a)))


_ALL = ("f32", "f64", "i32", "index")


def _per(fn_of_ct, cts=_ALL) -> dict:
    return {ct: fn_of_ct(ct) for ct in cts}


def _float_or_int(float_fn, i32_fn, index_fn=None) -> dict:
    ev = {ct: float_fn for ct in FLOATS}
    ev["i32"] = i32_fn
    if index_fn is not None:
        ev["index"] = index_fn
    return ev


# row name -> compute type -> evaluation
EV = {
    "add": _float_or_int(operator.add, lambda a, b: wrap32(a + b), operator.add),
    "sub": _float_or_int(operator.sub, lambda a, b: wrap32(a - b), operator.sub),
    "mul": _float_or_int(operator.mul, lambda a, b: wrap32(a * b), operator.mul),
    "div": _float_or_int(operator.truediv, _idiv),
    "min": {"f32": _ieee_pick(np.float32, True), "f64": _ieee_pick(np.float64, True),
             "i32": _int_pick(True), "index": _int_pick(True)},
    "max": {"f32": _ieee_pick(np.float32, False), "f64": _ieee_pick(np.float64, False),
             "i32": _int_pick(False), "index": _int_pick(False)},
    "fma": {"f32": _FEV["f32"]["fma"], "f64": _FEV["f64"]["fma"], "i32": lambda a, b, c: wrap32(a * b + c)},
    "neg": _float_or_int(operator.neg, lambda a: wrap32(-a), operator.neg),
    "exp": {"f32": _FEV["f32"]["exp"], "f64": _FEV["f64"]["exp"], "i32": _i32_libm("exp")},
    "log": {"f32": _FEV["f32"]["log"], "f64": _FEV["f64"]["log"], "i32": _i32_libm("log")},
    "sqrt": {"f32": _FEV["f32"]["sqrt"], "f64": _FEV["f64"]["sqrt"], "i32": _i32_libm("sqrt")},
    "tanh": {"f32": _FEV["f32"]["tanh"], "f64": _FEV["f64"]["tanh"], "i32": _i32_libm("tanh")},
    "erf": {"f32": _FEV["f32"]["erf"], "f64": _FEV["f64"]["erf"], "i32": _i32_libm("erf")},
    "rsqrt": {"f32": _FEV["f32"]["rsqrt"], "f64": _FEV["f64"]["rsqrt"],
             "i32": lambda a, q=_DEXP["sqrt"]: trunc_i32(1.0 / q(float(a)))},
    "pow": {"f32": _FEV["f32"]["pow"], "f64": _FEV["f64"]["pow"],
             "i32": lambda a, b: trunc_i32(_DPOW(float(a), float(b)))},
    "relu": {"f32": lambda a, m=_ieee_pick(np.float32, False): m(a, np.float32(0)),
             "f64": lambda a, m=_ieee_pick(np.float64, False): m(a, np.float64(0)),
             "i32": lambda a: a if a > 0 else 0, "index": lambda a: a if a > 0 else 0},
    "abs": {"f32": lambda a: -a if a < 0 else a, "f64": lambda a: -a if a < 0 else a,
             "i32": lambda a: wrap32(-a) if a < 0 else a, "index": lambda a: -a if a < 0 else a},
    "floordiv": {"f32": lambda a, c: np.float32(np.floor(a / np.float32(c))),
             "f64": lambda a, c: np.float64(np.floor(a / np.float64(c))),
             "i32": operator.floordiv, "index": operator.floordiv},
    "mod": {"f32": lambda a, c: a - np.float32(c) * np.float32(np.floor(a / np.float32(c))),
             "f64": lambda a, c: a - np.float64(c) * np.float64(np.floor(a / np.float64(c))),
             "i32": operator.mod, "index": operator.mod},
}
EV.update({name: _per(lambda ct, op=op: CMP_FN[op]) for op, name in CMP_NAMES.items()})
EV.update({p: {COMPUTE[p]: (lambda a, p=p: round_to(p, a))} for p in PRECISIONS if p != "index"})
