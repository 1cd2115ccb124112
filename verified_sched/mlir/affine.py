"""Index expressions of a kernel at fixed sizes: linear forms, MLIR affine-map text, intervals.

Every function takes an IR index expression whose size parameters are already substituted by
numbers; loop iterators stay `Var`s. What linalg's affine maps cannot express (min/max,
dynamic indices, products of iterators) raises `NotAffine` with a readable reason; the emitter
turns it into a UsageError naming the statement.
"""
from __future__ import annotations

from verified_sched.core import ir
from verified_sched.core.printer import expr_text
from verified_sched.analysis.simplify import add_linear, scale_linear


class NotAffine(Exception):
    """An index expression an affine map cannot express (the message says why)."""


def text(e) -> str:
    return expr_text(e)


def linear(e):
    """(coeffs {iterator: int}, const) when `e` is affine without floor/mod, else None."""
    match e:
        case ir.Int(value=v):
            return {}, v
        case ir.Var(name=n):
            return {n: 1}, 0
        case ir.BinOp(op=("+" | "-") as op, a=a, b=b):
            la, lb = linear(a), linear(b)
            if la is None or lb is None:
                return None
            return add_linear(la, lb, 1 if op == "+" else -1)
        case ir.BinOp(op="*", a=a, b=b):
            la, lb = linear(a), linear(b)
            if la is None or lb is None or (la[0] and lb[0]):
                return None
            c, other = (la[1], lb) if not la[0] else (lb[1], la)
            return scale_linear(other, c)
        case ir.Call(fn="neg", args=(a,)):
            la = linear(a)
            return None if la is None else scale_linear(la, -1)
    return None


def iterator_plus_const(e):
    """(iterator, c) when `e` is `i + c` (coefficient one), else None."""
    lin = linear(e)
    if lin is None or len(lin[0]) != 1:
        return None
    (name, coeff), = lin[0].items()
    return (name, lin[1]) if coeff == 1 else None


def affine_text(e, dims: dict) -> str:
    """MLIR affine expression text; `dims` maps iterator -> (dim name, lower bound)."""
    match e:
        case ir.Int(value=v):
            return str(v)
        case ir.Var(name=n):
            if n not in dims:
                raise NotAffine(f"'{n}' is not an enclosing loop iterator")
            d, lo = dims[n]
            return d if lo == 0 else f"({d} + {lo})"
        case ir.BinOp(op=("+" | "-") as op, a=a, b=b):
            return f"({affine_text(a, dims)} {op} {affine_text(b, dims)})"
        case ir.BinOp(op="*", a=a, b=b):
            la, lb = linear(a), linear(b)
            if not ((la is not None and not la[0]) or (lb is not None and not lb[0])):
                raise NotAffine(f"the product {text(e)} of two iterator expressions")
            return f"({affine_text(a, dims)} * {affine_text(b, dims)})"
        case ir.FloorDiv(a=a, divisor=c):
            return f"({affine_text(a, dims)} floordiv {c})"
        case ir.Mod(a=a, divisor=c):
            return f"({affine_text(a, dims)} mod {c})"
        case ir.Call(fn="neg", args=(a,)):
            return f"(-{affine_text(a, dims)})"
        case ir.Call(fn=("min" | "max") as fn):
            raise NotAffine(f"the {fn} index {text(e)}")
        case ir.Load():
            raise NotAffine(f"the non-affine (dynamic) index {text(e)}")
    raise NotAffine(f"the index {text(e)}")


def interval(e, ranges: dict) -> tuple:
    """(lo, hi), both inclusive, of an affine index over iterator ranges {name: (lo, hi)}."""
    match e:
        case ir.Int(value=v):
            return v, v
        case ir.Var(name=n):
            return ranges[n]
        case ir.BinOp(op="+", a=a, b=b):
            (a0, a1), (b0, b1) = interval(a, ranges), interval(b, ranges)
            return a0 + b0, a1 + b1
        case ir.BinOp(op="-", a=a, b=b):
            (a0, a1), (b0, b1) = interval(a, ranges), interval(b, ranges)
            return a0 - b1, a1 - b0
        case ir.BinOp(op="*", a=a, b=b):
            (a0, a1), (b0, b1) = interval(a, ranges), interval(b, ranges)
            corners = [a0 * b0, a0 * b1, a1 * b0, a1 * b1]
            return min(corners), max(corners)
        case ir.FloorDiv(a=a, divisor=c):
            a0, a1 = interval(a, ranges)
            return a0 // c, a1 // c
        case ir.Mod(a=a, divisor=c):
            a0, a1 = interval(a, ranges)
            return (a0 % c, a1 % c) if a0 // c == a1 // c else (0, c - 1)
        case ir.Call(fn="neg", args=(a,)):
            a0, a1 = interval(a, ranges)
            return -a1, -a0
    raise NotAffine(f"the index {text(e)}")
