"""Closure builders shared by the interpreter's two compilers: the scalar one (interpreter.py) and
the numpy-lane one (vector.py).

A closure is `f(env, st)` (env: iterators and sizes; st: the executing instance's memory).
The two compilers differ in their arithmetic (a compute type's scalar operations or numpy
lanes), not in how an integer index, a boolean connective or a tensor cell access is put
together; that part lives here once. `rec` is the calling compiler's own method for the
operands.
"""
from __future__ import annotations

import operator

from ..core import ir

__all__ = ["ARITH", "binary", "connective", "integer", "lazy_and", "lazy_or", "reader", "unary",
           "writer"]

ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def unary(op, fa):
    return lambda env, st: op(fa(env, st))


def binary(op, fa, fb):
    return lambda env, st: op(fa(env, st), fb(env, st))


def lazy_and(fa, fb):
    """`a and b`, the right operand evaluated only when the left holds (as C's `&&`)."""
    return lambda env, st: fa(env, st) and fb(env, st)


def lazy_or(fa, fb):
    """`a or b`, the right operand evaluated only when the left fails (as C's `||`)."""
    return lambda env, st: fa(env, st) or fb(env, st)


def integer(e, rec, pick):
    """The closure of an exact integer node: a literal, a variable, `+ - *`, floor division,
    modulo, or min/max through `pick["min" | "max"]`; None for any other node."""
    match e:
        case ir.Int(value=v):
            return lambda env, st: v
        case ir.Var(name=n):
            return lambda env, st: env[n]
        case ir.BinOp(op=("+" | "-" | "*") as op, a=a, b=b):
            return binary(ARITH[op], rec(a), rec(b))
        case ir.FloorDiv(a=a, divisor=c):
            fa = rec(a)
            return lambda env, st: fa(env, st) // c
        case ir.Mod(a=a, divisor=c):
            fa = rec(a)
            return lambda env, st: fa(env, st) % c
        case ir.Call(fn=("min" | "max") as fn, args=(a, b)):
            return binary(pick[fn], rec(a), rec(b))
    return None


def connective(c, rec, not_, and_, or_):
    """The closure of a boolean constant or connective: `not_` applies to a value, `and_` and
    `or_` combine two closures (so a scalar `and` can stay lazy); None for any other node."""
    match c:
        case ir.BoolConst(value=v):
            return lambda env, st: v
        case ir.Not(a=a):
            return unary(not_, rec(a))
        case ir.And(a=a, b=b):
            return and_(rec(a), rec(b))
        case ir.Or(a=a, b=b):
            return or_(rec(a), rec(b))
    return None


def cell_of(idx: list):
    """The closure of an index tuple: its components' closures evaluated left to right (spelled
    out for up to 3 components, the common case: no list built per access)."""
    match len(idx):
        case 1:
            (g0,) = idx
            return lambda env, st: (g0(env, st),)
        case 2:
            g0, g1 = idx
            return lambda env, st: (g0(env, st), g1(env, st))
        case 3:
            g0, g1, g2 = idx
            return lambda env, st: (g0(env, st), g1(env, st), g2(env, st))
    return lambda env, st: tuple([g(env, st) for g in idx])


def reader(name: str, idx: list, bounds, loc, read):
    """The closure reading tensor `name` at the index closures `idx`: the cell is checked by
    `bounds(name, cell, shape, env, st, loc)`, its raw element converted by `read`."""
    cell_at = cell_of(idx)

    def load(env, st):
        arr = st.mem[name]
        cell = cell_at(env, st)
        bounds(name, cell, arr.shape, env, st, loc)
        return read(arr[cell])
    return load


def writer(name: str, idx: list, bounds, loc, fv, store):
    """The closure storing `store(fv(...))` into tensor `name` at the index closures `idx`
    (the value first, then the cell, checked by `bounds` as in `reader`)."""
    cell_at = cell_of(idx)

    def run(env, st):
        value = fv(env, st)
        arr = st.mem[name]
        cell = cell_at(env, st)
        bounds(name, cell, arr.shape, env, st, loc)
        arr[cell] = store(value)
    return run
