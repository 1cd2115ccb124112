"""Integer expressions and conditions evaluated at given sizes (sizes, guards, dynamic
indices). Without numpy, so `vsched verify` (through verified_sched/sizes.py) does not import
it; codegen/dtypes.py re-exports these for the runners."""
from __future__ import annotations

from typing import Callable, Optional

from verified_sched import ir
from verified_sched.errors import UsageError

Loader = Optional[Callable[[str, tuple], object]]


def eval_int(expr, env: dict, load: Loader = None) -> int:
    """Value of an integer expression (a plain int stands for itself); `env` maps iterator and
    parameter names to ints and `load(tensor, index)` reads a tensor cell (dynamic indices)."""
    match expr:
        case int():
            return expr
        case ir.Int(value=v):
            return v
        case ir.Var(name=n):
            try:
                return env[n]
            except KeyError:
                raise UsageError(f"no value for '{n}'") from None
        case ir.BinOp(op="+", a=a, b=b):
            return eval_int(a, env, load) + eval_int(b, env, load)
        case ir.BinOp(op="-", a=a, b=b):
            return eval_int(a, env, load) - eval_int(b, env, load)
        case ir.BinOp(op="*", a=a, b=b):
            return eval_int(a, env, load) * eval_int(b, env, load)
        case ir.FloorDiv(a=a, divisor=c):
            return eval_int(a, env, load) // c
        case ir.Mod(a=a, divisor=c):
            return eval_int(a, env, load) % c
        case ir.Call(fn="min", args=(a, b)):
            return min(eval_int(a, env, load), eval_int(b, env, load))
        case ir.Call(fn="max", args=(a, b)):
            return max(eval_int(a, env, load), eval_int(b, env, load))
        case ir.Call(fn="neg", args=(a,)):
            return -eval_int(a, env, load)
        case ir.Call(fn="abs", args=(a,)):
            return abs(eval_int(a, env, load))
        case ir.Call(fn="relu", args=(a,)):
            return max(eval_int(a, env, load), 0)
        case ir.Where(cond=c, a=a, b=b):
            return eval_int(a if eval_cond(c, env, load) else b, env, load)
        case ir.Load(tensor=t, index=index) if load is not None:
            return int(load(t, tuple(eval_int(x, env, load) for x in index)))
    raise UsageError(f"not an integer expression: {expr!r}")


_CMP = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def eval_cond(cond, env: dict, load: Loader = None) -> bool:
    """Truth of an integer condition (size constraints, guards on iterators)."""
    match cond:
        case ir.Cmp(op=op, a=a, b=b):
            return _CMP[op](eval_int(a, env, load), eval_int(b, env, load))
        case ir.And(a=a, b=b):
            return eval_cond(a, env, load) and eval_cond(b, env, load)
        case ir.Or(a=a, b=b):
            return eval_cond(a, env, load) or eval_cond(b, env, load)
        case ir.Not(a=a):
            return not eval_cond(a, env, load)
        case ir.BoolConst(value=v):
            return v
    raise UsageError(f"not a condition: {cond!r}")
