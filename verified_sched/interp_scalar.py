"""Scalar arithmetic of the reference interpreter, one compute type at a time.

Why a module of its own: this is the part that must agree bitwise with the C backend
(codegen/c.py states the same rules): numpy float32 scalars for f32/f16/bf16 targets,
float64 for f64, wrapped 32-bit ints for i32 (`/` truncating, `x / 0 == 0`); float min/max
as IEEE 754-2019 minimum/maximum (a NaN operand gives the canonical quiet NaN, -0 < +0, so
the result does not depend on the operands' order); exp/log/sqrt/tanh/erf/pow/fma
through the very libm functions the compiled C calls (ctypes), so even fma is exact;
rsqrt(x) = 1 / sqrt(x), two roundings, as in C.
"""
from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np

from .errors import InternalError, VschedError


class KernelError(VschedError):
    """The kernel failed while running: an index outside storage, a divergent barrier, an
    integer division by zero. A finding about the kernel, not a usage error."""


# ---------------------------------------------------------------- scalar arithmetic

_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")


def _libm(name: str, ctype, nargs: int):
    fn = getattr(_LIBM, name)
    fn.restype = ctype
    fn.argtypes = [ctype] * nargs
    return fn


def _wrap32(x: int) -> int:
    return ((x + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def _trunc_i32(x) -> int:
    """C's float -> int32 conversion (toward zero); undefined in C outside int32, refused here."""
    if isinstance(x, (int, np.integer)):
        return _wrap32(int(x))
    if not np.isfinite(x) or not -2**31 <= int(x) < 2**31:
        raise KernelError(f"conversion of {x} to i32 is out of range")
    return int(x)


class Num:
    """One compute type: conversion in, the operations, conversion to storage."""

    def __init__(self, name: str):
        self.name = name
        if name == "i32":
            self.conv = _trunc_i32
            self.add = lambda a, b: _wrap32(a + b)
            self.sub = lambda a, b: _wrap32(a - b)
            self.mul = lambda a, b: _wrap32(a * b)
            self.div = _idiv
            self.fma = lambda a, b, c: _wrap32(a * b + c)
            self.neg = lambda a: _wrap32(-a)
            self.abs = lambda a: _wrap32(-a) if a < 0 else a
            self.min = lambda a, b: a if a < b else b
            self.max = lambda a, b: a if a > b else b
            for f in ("exp", "log", "sqrt", "tanh", "erf"):  # no integer transcendental: through double
                fn = _libm(f, ctypes.c_double, 1)
                setattr(self, f, lambda a, fn=fn: _trunc_i32(fn(float(a))))
            dsqrt, dpow = _libm("sqrt", ctypes.c_double, 1), _libm("pow", ctypes.c_double, 2)
            self.rsqrt = lambda a: _trunc_i32(1.0 / dsqrt(float(a)))
            self.pow = lambda a, b: _trunc_i32(dpow(float(a), float(b)))
            self.zero = 0
            return
        ctype = ctypes.c_float if name == "f32" else ctypes.c_double
        suffix = "f" if name == "f32" else ""
        scalar = np.float32 if name == "f32" else np.float64
        self.conv = scalar
        self.add = lambda a, b: a + b
        self.sub = lambda a, b: a - b
        self.mul = lambda a, b: a * b
        self.div = lambda a, b: a / b
        self.neg = lambda a: -a
        self.abs = np.abs
        self.min, self.max = ieee_minimum(scalar), ieee_maximum(scalar)
        self.zero = scalar(0)
        libm = {f: _libm(f + suffix, ctype, 1) for f in ("exp", "log", "sqrt", "tanh", "erf")}
        fma = _libm("fma" + suffix, ctype, 3)
        powf = _libm("pow" + suffix, ctype, 2)
        for f, fn in libm.items():
            setattr(self, f, lambda a, fn=fn: scalar(fn(float(a))))
        self.rsqrt = lambda a: scalar(1) / self.sqrt(a)  # 1 / sqrt(a): two roundings, as in C
        self.pow = lambda a, b: scalar(powf(float(a), float(b)))
        self.fma = lambda a, b, c: scalar(fma(float(a), float(b), float(c)))

    def relu(self, a):
        return self.max(a, self.zero)

    def const(self, v):
        """A literal in this type (C: i32 literals wrap, a non-finite float literal is 0)."""
        if self.name == "i32":
            return _wrap32(int(v)) if np.isfinite(v) else 0
        return self.conv(v)


def ieee_minimum(scalar):
    """IEEE 754-2019 minimum in `scalar`'s type, as the C helpers vs_min_f32/f64: a NaN
    operand gives the canonical quiet NaN (np.nan's bits), -0 < +0."""
    return _ieee_pick(scalar, True)


def ieee_maximum(scalar):
    """IEEE 754-2019 maximum (see ieee_minimum)."""
    return _ieee_pick(scalar, False)


def _ieee_pick(scalar, lower: bool):
    """The IEEE 754-2019 minimum (`lower`) or maximum of two values of `scalar`'s type."""
    nan = scalar(np.nan)

    def pick(a, b):
        if a != a or b != b:
            return nan
        if a == b:  # -0 and +0: the minimum is the negative one
            return a if bool(np.signbit(a)) == lower else b
        return a if (a < b) == lower else b
    return pick


def _idiv(a: int, b: int) -> int:
    """The C backend's int32 division: truncating, x / 0 = 0."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return _wrap32(q if (a < 0) == (b < 0) else -q)


NUMS = {p: Num(p) for p in ("f32", "f64", "i32")}
COMPUTE = {"f32": "f32", "f16": "f32", "bf16": "f32", "f64": "f64", "i32": "i32"}


def _f32_to_bf16(v) -> int:
    """One float -> bf16 bits, round to nearest even, NaN kept quiet (codegen.dtypes' rule)."""
    u = int(np.float32(v).view(np.uint32))
    if (u & 0x7FFFFFFF) > 0x7F800000:
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def read_scalar(prec: str):
    """Storage element -> value in its own compute type."""
    match prec:
        case "f32" | "f64":
            return lambda v: v
        case "f16":
            return np.float32
        case "bf16":
            return lambda v: (np.uint32(v) << np.uint32(16)).view(np.float32)
        case "i32":
            return int
    raise InternalError(prec)


def to_storage(prec: str):
    """Compute-type value -> storage element (rounding to nearest even)."""
    match prec:
        case "f32":
            return np.float32
        case "f64":
            return np.float64
        case "f16":
            return lambda v: np.float16(np.float32(v))
        case "bf16":
            return _f32_to_bf16
        case "i32":
            return _trunc_i32
    raise InternalError(prec)


# ---------------------------------------------------------------- errors


def bounds_checker(params: set):
    """`check(name, cell, shape, env, st, loc)`: a KernelError naming the tensor, the index and
    the instance (its iterators: the names of `env` not in `params`) unless `cell` is inside
    `shape`."""
    def check(name, cell, shape, env, st, loc):
        for i, n in zip(cell, shape):
            if not 0 <= i < n:
                raise KernelError(
                    f"index out of bounds: {name}[{', '.join(map(str, cell))}] outside its storage "
                    f"[{', '.join(map(str, shape))}] at {describe_instance(env, params, st)}", loc)
    return check


def describe_instance(env: dict, params: set, st) -> str:
    """The loop instance (iterators, hardware indices) of an executing statement."""
    parts = [f"{k}={v}" for k, v in env.items() if k not in params]
    parts += [f"{ax}={i}" for ax, i in st.hw.items()]
    return ", ".join(parts) if parts else "top level"
