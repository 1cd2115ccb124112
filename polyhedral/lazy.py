"""Lazy evaluation of reads and blend stores, for the polyhedral model (model.py).

C and the interpreter evaluate `where(c, a, b)`, `and` and `or` lazily: a read in a branch
not taken is never made (a masked load of tail=predicate_loads touches no memory). A blend
`t[I] = where(c, v, t[I])` (tail=round_up_and_blend, shift_inward_and_blend) stores back the
value it read wherever c fails.
"""
from __future__ import annotations

from verified_sched.core import ir
from verified_sched.core.ir import And, Assign, Load, Or, Where
from .affine import is_data_cond, negate


def reads_in_context(node, ctx: tuple = ()) -> list:
    """(Load, conditions) for every read below `node` (pre-order, as `ir.reads`), with the
    conditions under which it is evaluated besides `ctx`. Evaluation is lazy, as in C and the
    interpreter: `where(c, a, b)` evaluates a only where c holds and b only where it fails;
    `a and b` evaluates b only where a holds, `a or b` only where a fails. A load's index is
    evaluated with the load."""
    if not ir.nodes_of(node, (Where, And, Or)):  # nothing lazy below: every read under `ctx`
        ctx = tuple(ctx)
        return [(r, ctx) for r in ir.nodes_of(node, Load)]
    return lazy_reads(node, ctx)


def lazy_reads(node, ctx: tuple = ()) -> list:
    """`reads_in_context` by descending every node (what it answers where something is lazy)."""
    out = []

    def go(n, ctx):
        match n:
            case Where(cond=c, a=a, b=b):
                go(c, ctx)
                go(a, ctx + (c,))
                go(b, ctx + (negate(c),))
            case And(a=a, b=b):
                go(a, ctx)
                go(b, ctx + (a,))
            case Or(a=a, b=b):
                go(a, ctx)
                go(b, ctx + (negate(a),))
            case Load(index=idx):
                out.append((n, ctx))
                for e in idx:
                    go(e, ctx)
            case tuple():
                for x in n:
                    go(x, ctx)
            case ir.Node():
                for _, v in ir.child_fields(n):
                    go(v, ctx)
    go(node, tuple(ctx))
    return out


def where_path(value, inner) -> tuple:
    """The conditions `reads_in_context` gives a read at `inner`, the value of nested blends."""
    path = []
    while value is not inner:
        path.append(value.cond)
        value = value.a
    return tuple(path)


def blend_of(s, names: dict):
    """(c, v) when `s` is the blend `t[I] = where(c, v, t[I])` with an affine c, else (None,
    s.value). Nested blends of one store (a split of each of two loops) peel to the
    conjunction of their conditions and the innermost value."""
    v, conds = getattr(s, "value", None), []
    target = Load(s.tensor, s.index) if isinstance(s, Assign) else None
    while isinstance(v, Where) and v.b == target and not is_data_cond(v.cond, names):
        conds.append(v.cond)
        v = v.a
    if not conds:
        return None, getattr(s, "value", None)
    c = conds[0]
    for d in conds[1:]:
        c = And(c, d)
    return c, v
