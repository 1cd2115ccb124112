"""IR index expressions and conditions as z3 integer terms (floor semantics).

For what isl cannot state: products of symbols (`i * N + j` flattened indexing) and dynamic
indices. A tensor read has an integer meaning only when the caller passes `load` (a function
from the Load node to a z3 term, e.g. an unconstrained symbol); otherwise `NoTerm` is raised
and the caller stays "unknown".
"""
from __future__ import annotations

import z3

from verified_sched.ir import And, BinOp, BoolConst, Call, Cmp, FloorDiv, Int, Load, Mod, Not, Or, Var


class NoTerm(Exception):
    """The expression has no integer z3 term (a tensor read, a float, a real division);
    `node` is the sub-expression or condition that has none, `in_condition` whether it stands
    where a condition was expected."""

    def __init__(self, message: str, node=None, in_condition: bool = False):
        super().__init__(message)
        self.node, self.in_condition = node, in_condition


def term(e, env: dict, load=None):
    """z3 term of an integer expression; `env` maps names to z3 Int constants (created on
    first use); `load(node)` gives the term of a tensor read (None: reads have no term)."""
    match e:
        case Load() if load is not None:
            return load(e)
        case Int(value=v):
            return z3.IntVal(v)
        case Var(name=n):
            if n not in env:
                env[n] = z3.Int(n)
            return env[n]
        case BinOp(op="+", a=a, b=b):
            return term(a, env, load) + term(b, env, load)
        case BinOp(op="-", a=a, b=b):
            return term(a, env, load) - term(b, env, load)
        case BinOp(op="*", a=a, b=b):
            return term(a, env, load) * term(b, env, load)
        case FloorDiv(a=a, divisor=d):
            return term(a, env, load) / d  # z3 integer division is floor for a positive divisor
        case Mod(a=a, divisor=d):
            return term(a, env, load) % d
        case Call(fn="min", args=(a, b)):
            x, y = term(a, env, load), term(b, env, load)
            return z3.If(x <= y, x, y)
        case Call(fn="max", args=(a, b)):
            x, y = term(a, env, load), term(b, env, load)
            return z3.If(x >= y, x, y)
    raise NoTerm(f"{type(e).__name__} has no integer meaning", e)


_CMP = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y,
        ">=": lambda x, y: x >= y, "==": lambda x, y: x == y, "!=": lambda x, y: x != y}


def cond(c, env: dict, load=None):
    match c:
        case Cmp(op=op, a=a, b=b):
            return _CMP[op](term(a, env, load), term(b, env, load))
        case And(a=a, b=b):
            return z3.And(cond(a, env, load), cond(b, env, load))
        case Or(a=a, b=b):
            return z3.Or(cond(a, env, load), cond(b, env, load))
        case Not(a=a):
            return z3.Not(cond(a, env, load))
        case BoolConst(value=v):
            return z3.BoolVal(v)
    raise NoTerm(f"{type(c).__name__} has no integer meaning", c, in_condition=True)
