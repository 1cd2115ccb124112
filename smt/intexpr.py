"""IR index expressions and conditions as z3 integer terms (floor semantics).

For what isl cannot state: products of symbols (`i * N + j` flattened indexing). A tensor
read has no integer meaning here: `NoTerm` is raised and the caller stays "unknown".
"""
from __future__ import annotations

import z3

from verified_sched.ir import And, BinOp, BoolConst, Call, Cmp, FloorDiv, Int, Mod, Not, Or, Var


class NoTerm(Exception):
    """The expression has no integer z3 term (a tensor read, a float, a real division)."""


def term(e, env: dict):
    """z3 term of an integer expression; `env` maps names to z3 Int constants (created on
    first use)."""
    match e:
        case Int(value=v):
            return z3.IntVal(v)
        case Var(name=n):
            if n not in env:
                env[n] = z3.Int(n)
            return env[n]
        case BinOp(op="+", a=a, b=b):
            return term(a, env) + term(b, env)
        case BinOp(op="-", a=a, b=b):
            return term(a, env) - term(b, env)
        case BinOp(op="*", a=a, b=b):
            return term(a, env) * term(b, env)
        case FloorDiv(a=a, divisor=d):
            return term(a, env) / d  # z3 integer division is floor for a positive divisor
        case Mod(a=a, divisor=d):
            return term(a, env) % d
        case Call(fn="min", args=(a, b)):
            x, y = term(a, env), term(b, env)
            return z3.If(x <= y, x, y)
        case Call(fn="max", args=(a, b)):
            x, y = term(a, env), term(b, env)
            return z3.If(x >= y, x, y)
    raise NoTerm(f"{type(e).__name__} has no integer meaning")


_CMP = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y,
        ">=": lambda x, y: x >= y, "==": lambda x, y: x == y, "!=": lambda x, y: x != y}


def cond(c, env: dict):
    match c:
        case Cmp(op=op, a=a, b=b):
            return _CMP[op](term(a, env), term(b, env))
        case And(a=a, b=b):
            return z3.And(cond(a, env), cond(b, env))
        case Or(a=a, b=b):
            return z3.Or(cond(a, env), cond(b, env))
        case Not(a=a):
            return z3.Not(cond(a, env))
        case BoolConst(value=v):
            return z3.BoolVal(v)
    raise NoTerm(f"{type(c).__name__} has no integer meaning")
