"""Scalar arithmetic of the reference interpreter, one compute type at a time.

Why a module of its own: this is the part that must agree bitwise with the C backend
(codegen/c.py states the same rules): numpy float32 scalars for f32/f16/bf16 targets,
float64 for f64, wrapped 32-bit ints for i32 (`/` truncating, `x / 0 == 0`); float min/max
as IEEE 754-2019 minimum/maximum (a NaN operand gives the canonical quiet NaN, -0 < +0, so
the result does not depend on the operands' order); exp/log/sqrt/fma
through the very libm functions the compiled C calls (ctypes), so even fma is exact.
"""
from __future__ import annotations

from ..core.errors import InternalError, KernelError
from ..core.semantics import COMPUTE as SEM_COMPUTE
from ..core.semantics import ROWS
from ..core.semantics_ev import CONVERT, FROM_STORAGE, TO_STORAGE, const

__all__ = ["COMPUTE", "NUMS", "KernelError", "Num", "bounds_checker", "describe_instance",
           "read_scalar", "to_storage"]


class Num:
    """One compute type (f32, f64, i32): its conversion in, the operations, a literal; every
    operation is the semantics table's evaluation (`semantics.ROWS[...].ev`)."""

    def __init__(self, name: str):
        self.name = name
        self.conv = CONVERT[name]
        for row in ROWS.values():
            if row.kind in ("binop", "fn") and name in row.ev:
                setattr(self, row.name, row.ev[name])
        self.zero = const(name, 0)

    def const(self, v):
        """A literal in this type (C: i32 literals wrap, a non-finite float literal is 0)."""
        return const(self.name, v)


NUMS = {p: Num(p) for p in ("f32", "f64", "i32")}
COMPUTE = {p: c for p, c in SEM_COMPUTE.items() if p != "index"}


def read_scalar(prec: str):
    """Storage element -> value in its own compute type."""
    if prec not in FROM_STORAGE:
        raise InternalError(prec)
    return FROM_STORAGE[prec]


def to_storage(prec: str):
    """Compute-type value -> storage element (rounding to nearest even)."""
    if prec not in TO_STORAGE:
        raise InternalError(prec)
    return TO_STORAGE[prec]


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
