"""Linear forms of integer expressions by the semantics table's linear-form rules.

`LinearForm(atom)(e)` is (coefficients: dict name -> int, constant: int), or None when `e` is
not linear in its names (a product of two symbols, floor/mod, min/max, a read, a float).
`atom(e)` may name a subtree to treat as one opaque symbol (e.g. one free of the loop variable:
`interp_vector` asks only for the loop variable's coefficient).
"""
from __future__ import annotations

from ..core.expr_mapper import ExprMapper, register
from ..core.semantics import ROWS, row_of

_NOT_LINEAR = "no linear-form rule"


@register
class LinearForm(ExprMapper):
    DECLINED = {r.method: _NOT_LINEAR for r in ROWS.values() if r.linear is None}

    def __init__(self, atom=None):
        self.atom = atom or (lambda e: None)

    def __call__(self, e, *args):
        name = self.atom(e)
        if name is not None:
            return {name: 1}, 0
        return super().__call__(e, *args)

    def declined(self, e, reason: str, *args, **kwargs):
        return None

    def not_linear(self, e):
        return None

    map_float = map_load = map_where = map_cast = not_linear
    map_cmp = map_and = map_or = map_not = map_boolconst = not_linear
    map_binop = map_call = map_floordiv = map_mod = ExprMapper.map_row

    def map_int(self, e):
        return {}, e.value

    def map_var(self, e):
        return {e.name: 1}, 0

    def rule(self, e, *operands):
        forms = [self(x) for x in operands]
        if any(f is None for f in forms):
            return None
        return row_of(e).linear(*forms)

    def binop_add(self, e):
        return self.rule(e, e.a, e.b)

    binop_sub = binop_mul = binop_add

    def fn_neg(self, e):
        return self.rule(e, *e.args)
