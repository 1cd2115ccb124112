"""Integer expressions and conditions evaluated at given sizes (sizes, guards, dynamic
indices): the semantics table's `index` rows through one translator, `IntEval`; core/dtypes.py
re-exports these for the runners."""
from __future__ import annotations

from typing import Callable, Optional

from verified_sched.core import ir
from verified_sched.core.errors import UsageError
from verified_sched.core.expr_mapper import NODE_METHODS, ExprMapper, register
from verified_sched.core.semantics import ROWS, row_of

Loader = Optional[Callable[[str, tuple], object]]


@register
class IntEval(ExprMapper):
    """Exact integer evaluation (the semantics table's `index` rows): `IntEval(env, load)(e)`."""

    DECLINED = {ROWS[n].method: "not an integer expression" for n in ("div", "fma", "exp", "log", "sqrt", "tanh", "erf", "rsqrt", "pow")}
    DECLINED.update({r.method: "not an integer expression" for r in ROWS.values() if r.kind == "cast"})

    def __init__(self, env: dict, load: Loader = None):
        self.env, self.load = env, load

    def __call__(self, node, *args):
        if isinstance(node, int) and not isinstance(node, bool):
            return node  # a plain int stands for itself
        if type(node) not in NODE_METHODS:
            raise UsageError(f"not an integer expression: {node!r}")
        return super().__call__(node, *args)

    def declined(self, node, reason: str, *args, **kwargs):
        raise UsageError(f"{reason}: {node!r}")

    def unsupported(self, node, *args, **kwargs):
        what = "a condition" if type(node) in (ir.Cmp, ir.And, ir.Or, ir.Not, ir.BoolConst) else "an integer expression"
        raise UsageError(f"not {what}: {node!r}")

    map_float = map_cast = unsupported

    def map_int(self, e):
        return e.value

    def map_var(self, e):
        try:
            return self.env[e.name]
        except KeyError:
            raise UsageError(f"no value for '{e.name}'") from None

    def map_load(self, e):
        if self.load is None:
            return self.unsupported(e)
        return int(self.load(e.tensor, tuple(self(x) for x in e.index)))

    def map_where(self, e):
        return self(e.a if self.cond(e.cond) else e.b)

    def _row(self, e, *operands):
        return row_of(e).ev["index"](*operands)

    def binop(self, e):
        return self._row(e, self(e.a), self(e.b))

    binop_add = binop_sub = binop_mul = binop
    map_binop = map_call = map_floordiv = map_mod = map_cmp = ExprMapper.map_row

    def fn(self, e):
        return self._row(e, *[self(x) for x in e.args])

    fn_min = fn_max = fn_neg = fn_abs = fn_relu = fn

    def node(self, e):
        return self._row(e, self(e.a), e.divisor)

    node_floordiv = node_mod = node

    def cond(self, c) -> bool:
        if type(c) not in (ir.Cmp, ir.And, ir.Or, ir.Not, ir.BoolConst):
            raise UsageError(f"not a condition: {c!r}")
        return self(c)

    def cmp(self, c):
        return self._row(c, self(c.a), self(c.b))

    cmp_lt = cmp_le = cmp_gt = cmp_ge = cmp_eq = cmp_ne = cmp

    def map_and(self, c):
        return self.cond(c.a) and self.cond(c.b)

    def map_or(self, c):
        return self.cond(c.a) or self.cond(c.b)

    def map_not(self, c):
        return not self.cond(c.a)

    def map_boolconst(self, c):
        return c.value


def eval_int(expr, env: dict, load: Loader = None) -> int:
    """Value of an integer expression (a plain int stands for itself); `env` maps iterator and
    parameter names to ints and `load(tensor, index)` reads a tensor cell (dynamic indices)."""
    return IntEval(env, load)(expr)


def eval_cond(cond, env: dict, load: Loader = None) -> bool:
    """Truth of an integer condition (size constraints, guards on iterators)."""
    return IntEval(env, load).cond(cond)
