"""IR index expressions and conditions as isl text (affine, quasi-affine, piecewise min/max).

Everything polyhedral goes through isl's parser with positional, collision-free names
(`p0..` for size parameters, `i0..` for loop iterators by depth), so user names can never
clash with isl keywords. One isl context (islpy's default) serves the whole process.

Non-affine pieces (a tensor read used as an index, a product of two symbols, real division)
raise `NonAffine`; callers over-approximate soundly (see `approx_cond`).
"""
from __future__ import annotations

import islpy as isl

from verified_sched.ir import (And, BinOp, BoolConst, Call, Cast, Cmp, Float, FloorDiv, Int, Load,
                               Mod, Not, Or, Var, Where, walk)

CTX = isl.DEFAULT_CONTEXT
TRUE = "(1 = 1)"
FALSE = "(1 = 0)"
_CMP = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "=", "!=": "!="}


class NonAffine(Exception):
    """The expression or condition has no (quasi-)affine isl form."""


def _has_symbol(e) -> bool:
    if isinstance(e, Int):  # the common leaves first: no walk (aff asks this of every factor)
        return False
    if isinstance(e, (Var, Load)):
        return True
    return any(isinstance(n, (Var, Load)) for n in walk(e))


def _const(e) -> int:
    from .evaluate import Dynamic, ev
    try:
        return ev(e, {})
    except (Dynamic, KeyError):
        raise NonAffine("non-integer factor") from None


def aff(e, names: dict) -> str:
    """isl text of an index expression; `names` maps IR variable names to isl names."""
    match e:
        case Int(value=v):
            return str(v) if v >= 0 else f"({v})"
        case Var(name=n):
            if n not in names:
                raise NonAffine(f"unknown symbol {n}")
            return names[n]
        case BinOp(op="+" | "-" as op, a=a, b=b):
            return f"({aff(a, names)} {op} {aff(b, names)})"
        case BinOp(op="*", a=a, b=b):
            if _has_symbol(a) and _has_symbol(b):
                raise NonAffine("product of two symbols")
            if _has_symbol(a):
                a, b = b, a
            c = _const(a)  # isl's parser wants a bare integer literal as the factor
            return f"({c} * ({aff(b, names)}))"
        case FloorDiv(a=a, divisor=d):
            return f"floor(({aff(a, names)})/{d})"
        case Mod(a=a, divisor=d):
            return f"(({aff(a, names)}) mod {d})"
        case Call(fn="min" | "max" as fn, args=(a, b)):
            return f"{fn}({aff(a, names)}, {aff(b, names)})"
        case Call(fn="neg", args=(a,)):  # unary minus is in the index language
            return f"(0 - {aff(a, names)})"
        case Load():
            raise NonAffine("dynamic index (a tensor read)")
        case Float() | Cast() | Where() | Call() | BinOp():
            raise NonAffine("not an integer affine expression")
    raise NonAffine(f"unsupported index expression {type(e).__name__}")


def is_affine(e, names: dict) -> bool:
    return _expressible(aff, e, names)


def _expressible(text_of, x, names: dict) -> bool:
    """Whether `text_of(x, names)` (aff or cond) has an isl text (raises no NonAffine)."""
    try:
        text_of(x, names)
        return True
    except NonAffine:
        return False


def _connective(c, sub) -> str | None:
    """isl text of an and/or/not node whose operands' texts are `sub(operand, negated)`
    (negated: the operand stands under the `not`); None for any other node."""
    match c:
        case And(a=a, b=b):
            return f"({sub(a, False)} and {sub(b, False)})"
        case Or(a=a, b=b):
            return f"({sub(a, False)} or {sub(b, False)})"
        case Not(a=a):
            return f"(not {sub(a, True)})"
    return None


def cond(c, names: dict) -> str:
    """isl constraint text of an affine condition (raises NonAffine otherwise)."""
    text = _connective(c, lambda x, _: cond(x, names))
    if text is not None:
        return text
    match c:
        case Cmp(op=op, a=a, b=b):
            return f"({aff(a, names)} {_CMP[op]} {aff(b, names)})"
        case BoolConst(value=v):
            return TRUE if v else FALSE
    raise NonAffine(f"unsupported condition {type(c).__name__}")


def approx_cond(c, names: dict, over: bool) -> str:
    """Sound affine approximation of a condition with data-dependent atoms.

    over=True: a superset of the points where `c` may hold (each data atom taken as true
    where it appears positively, false under a negation); over=False: a subset where it
    surely holds.
    """
    text = _connective(c, lambda x, negated: approx_cond(x, names, over != negated))
    if text is not None:
        return text
    try:
        return cond(c, names)
    except NonAffine:
        return TRUE if over else FALSE


def conjuncts(c) -> list:
    """Top-level conjuncts of a condition."""
    match c:
        case And(a=a, b=b):
            return conjuncts(a) + conjuncts(b)
    return [c]


def negate(c):
    """Not(c), pushing through a double negation."""
    match c:
        case Not(a=a):
            return a
    return Not(c)


def is_data_cond(c, names: dict) -> bool:
    return not _expressible(cond, c, names)


def bounds_text(lo_hi_pairs) -> str:
    """Conjunction text of `lo <= v < hi` for (v, lo_text, hi_text) triples."""
    parts = [f"{lo} <= {v} < {hi}" for v, lo, hi in lo_hi_pairs]
    return " and ".join(parts) if parts else TRUE


def join_and(parts) -> str:
    parts = [p for p in parts if p and p != TRUE]
    return " and ".join(f"({p})" for p in parts) if parts else TRUE
