"""Concrete evaluation of index expressions (floor semantics).

Used to describe counterexamples (cells, original instances) and by brute-force
enumeration. A tensor read inside an index has no concrete value here: `Dynamic` is raised.
"""
from __future__ import annotations

from verified_sched.core.ir import BinOp, Call, FloorDiv, Int, Load, Mod, Var


class Dynamic(Exception):
    """The expression depends on tensor data."""


def ev(e, env: dict) -> int:
    match e:
        case Int(value=v):
            return v
        case Var(name=n):
            return env[n]
        case BinOp(op="+", a=a, b=b):
            return ev(a, env) + ev(b, env)
        case BinOp(op="-", a=a, b=b):
            return ev(a, env) - ev(b, env)
        case BinOp(op="*", a=a, b=b):
            return ev(a, env) * ev(b, env)
        case FloorDiv(a=a, divisor=d):
            return ev(a, env) // d
        case Mod(a=a, divisor=d):
            return ev(a, env) % d
        case Call(fn="min", args=(a, b)):
            return min(ev(a, env), ev(b, env))
        case Call(fn="max", args=(a, b)):
            return max(ev(a, env), ev(b, env))
        case Load():
            raise Dynamic("tensor read in an index")
    raise Dynamic(f"cannot evaluate {type(e).__name__} as an integer")




