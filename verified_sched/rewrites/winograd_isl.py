"""IR -> isl text for the Winograd obligations (affine and quasi-affine only).

Small on purpose: the Winograd nests are rectangular loops with affine indices, so a direct
rendering of loop bounds, guards and accesses is enough. Names are prefixed (`p_` for
parameters, `i_` for iterators) so that no user name collides with an isl keyword; points are
read back by position and mapped to the user's names.
"""
from __future__ import annotations

import islpy as isl

from .. import budget, ir


class NonAffine(Exception):
    """The expression is outside what isl accepts (a product of two unknowns, a load, ...)."""


def param_names(program: ir.Program) -> list[str]:
    return [p if isinstance(p, str) else p.name for p in program.params]


def aff(e, params: set) -> str:
    """isl text of an integer index expression."""
    pre = lambda n: ("p_" if n in params else "i_") + n  # noqa: E731
    match e:
        case ir.Int(value=v):
            return f"({v})"
        case ir.Var(name=n):
            return pre(n)
        case ir.BinOp(op=("+" | "-") as op, a=a, b=b):
            return f"({aff(a, params)} {op} {aff(b, params)})"
        case ir.BinOp(op="*", a=a, b=b):
            ca, cb = const_value(a), const_value(b)
            if ca is not None:
                return f"({ca} * {aff(b, params)})"
            if cb is not None:
                return f"({cb} * {aff(a, params)})"
            raise NonAffine("product of two non-constant expressions")
        case ir.FloorDiv(a=a, divisor=c):
            return f"floor(({aff(a, params)}) / {c})"
        case ir.Mod(a=a, divisor=c):
            return f"(({aff(a, params)}) mod {c})"
        case ir.Call(fn=("min" | "max") as fn, args=(a, b)):
            return f"{fn}({aff(a, params)}, {aff(b, params)})"
    raise NonAffine(f"not quasi-affine: {type(e).__name__}")


def const_value(e):
    """The integer value of a constant expression, else None."""
    match e:
        case ir.Int(value=v):
            return v
        case ir.BinOp(op=op, a=a, b=b) if op in "+-*":
            x, y = const_value(a), const_value(b)
            if x is None or y is None:
                return None
            return x + y if op == "+" else x - y if op == "-" else x * y
        case ir.FloorDiv(a=a, divisor=c):
            x = const_value(a)
            return None if x is None else x // c
        case ir.Mod(a=a, divisor=c):
            x = const_value(a)
            return None if x is None else x % c
    return None


_FLIP = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def cond(c, params: set, negate: bool = False) -> str:
    """isl text of a condition (negation pushed to the comparisons)."""
    match c:
        case ir.BoolConst(value=v):
            return "1 = 1" if v != negate else "1 = 0"
        case ir.Not(a=a):
            return cond(a, params, not negate)
        case ir.And(a=a, b=b) | ir.Or(a=a, b=b):
            word = "and" if isinstance(c, ir.And) != negate else "or"
            return f"({cond(a, params, negate)} {word} {cond(b, params, negate)})"
        case ir.Cmp(op=op, a=a, b=b):
            op = _FLIP[op] if negate else op
            x, y = aff(a, params), aff(b, params)
            if op == "!=":
                return f"({x} < {y} or {x} > {y})"
            return f"{x} {'=' if op == '==' else op} {y}"
    raise NonAffine(f"not an affine condition: {type(c).__name__}")


def context(program: ir.Program) -> tuple[str, str, set]:
    """("[p_N, ...]", "constraint text", parameter set) for the program's parameters."""
    names = param_names(program)
    ps = set(names)
    head = "[" + ", ".join("p_" + n for n in names) + "]"
    cons = " and ".join(cond(c, ps) for c in program.constraints) or "1 = 1"
    return head, cons, ps


def params_set(program: ir.Program, extra: str = "") -> isl.Set:
    head, cons, _ = context(program)
    more = f" and {extra}" if extra else ""
    return isl.Set(f"{head} -> {{ [] : {cons}{more} }}")


def implied(program: ir.Program, c) -> bool:
    """Do the parameter constraints imply `c` (an affine condition over params)? False when
    not decidable here (non-affine)."""
    try:
        _, _, ps = context(program)
        bad = params_set(program, cond(c, ps, negate=True))
    except NonAffine:
        return False
    except isl.Error:
        if budget.exhausted():  # out of budget: unknown, not "not implied"
            raise
        return False
    return bad.is_empty()


def sample(s: isl.Set, params: list[str], dims: list[str]) -> dict | None:
    """A point of `s` as {name: value} (parameters looked up by name, set dims by position),
    or None if `s` is empty."""
    if s.is_empty():
        return None
    pt = s.sample_point()
    space = pt.get_space()
    out = {}
    for name in params:
        pos = space.find_dim_by_name(isl.dim_type.param, "p_" + name)
        if pos >= 0:
            out[name] = int(pt.get_coordinate_val(isl.dim_type.param, pos).to_python())
    for pos, name in enumerate(dims):
        out[name] = int(pt.get_coordinate_val(isl.dim_type.set, pos).to_python())
    return out
