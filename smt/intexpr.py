"""IR index expressions and conditions as z3 integer terms (floor semantics).

For what isl cannot state: products of symbols (`i * N + j` flattened indexing) and dynamic
indices. A tensor read has an integer meaning only when the caller passes `load` (a function
from the Load node to a z3 term, e.g. an unconstrained symbol); otherwise `NoTerm` is raised
and the caller stays "unknown". Every operation is the semantics table's `index` z3 encoding
(`verified_sched.core.semantics`); the rows without an integer meaning are declined (`NoTerm`).
"""
from __future__ import annotations

import z3

from verified_sched.core.expr_mapper import ExprMapper, register
from verified_sched.core.semantics import ROWS, row_of


class NoTerm(Exception):
    """The expression has no integer z3 term (a tensor read, a float, a real division);
    `node` is the sub-expression or condition that has none, `in_condition` whether it stands
    where a condition was expected."""

    def __init__(self, message: str, node=None, in_condition: bool = False):
        super().__init__(message)
        self.node, self.in_condition = node, in_condition


_NO_INTEGER_MEANING = "has no integer meaning"


@register
class IntTerm(ExprMapper):
    """`IntTerm(env, load)(e)`: the z3 Int term of an integer expression or the z3 Bool of a
    condition; `env` maps names to z3 Int constants (created on first use)."""

    DECLINED = {ROWS[n].method: _NO_INTEGER_MEANING for n in ("div", "fma", "exp", "log", "sqrt", "tanh", "erf", "rsqrt", "pow")}
    DECLINED.update({r.method: _NO_INTEGER_MEANING for r in ROWS.values() if r.kind == "cast"})

    def __init__(self, env: dict, load=None):
        self.env, self.load = env, load

    def declined(self, node, reason: str, *args, **kwargs):
        raise NoTerm(f"{type(node).__name__} {reason}", node)

    def unsupported(self, node, *args, **kwargs):
        raise NoTerm(f"{type(node).__name__} {_NO_INTEGER_MEANING}", node)

    map_float = map_cast = unsupported

    def map_int(self, e):
        return z3.IntVal(e.value)

    def map_var(self, e):
        if e.name not in self.env:
            self.env[e.name] = z3.Int(e.name)
        return self.env[e.name]

    def map_load(self, e):
        if self.load is None:
            return self.unsupported(e)
        return self.load(e)

    def map_where(self, e):
        return z3.If(self.map_cond(e.cond), self(e.a), self(e.b))

    def _index(self, e, *operands):
        return row_of(e).z3("index", *operands)

    # rows: binops, functions, floor division and modulo (index encoding of the table)
    def binop(self, e):
        return self._index(e, self(e.a), self(e.b))

    binop_add = binop_sub = binop_mul = binop
    map_binop = ExprMapper.map_row

    def fn(self, e):
        return self._index(e, *[self(x) for x in e.args])

    fn_min = fn_max = fn_neg = fn_abs = fn_relu = fn
    map_call = ExprMapper.map_row

    def node(self, e):
        return self._index(e, self(e.a), e.divisor)

    node_floordiv = node_mod = node
    map_floordiv = map_mod = ExprMapper.map_row

    # conditions
    def map_cond(self, c):
        """A condition (a NoTerm raised for a non-condition is marked in_condition)."""
        if type(c).__name__ not in ("Cmp", "And", "Or", "Not", "BoolConst"):
            raise NoTerm(f"{type(c).__name__} {_NO_INTEGER_MEANING}", c, in_condition=True)
        return self(c)

    def cmp(self, c):
        return self._index(c, self(c.a), self(c.b))

    cmp_lt = cmp_le = cmp_gt = cmp_ge = cmp_eq = cmp_ne = cmp
    map_cmp = ExprMapper.map_row

    def map_and(self, c):
        return z3.And(self.map_cond(c.a), self.map_cond(c.b))

    def map_or(self, c):
        return z3.Or(self.map_cond(c.a), self.map_cond(c.b))

    def map_not(self, c):
        return z3.Not(self.map_cond(c.a))

    def map_boolconst(self, c):
        return z3.BoolVal(c.value)


def term(e, env: dict, load=None):
    """z3 term of an integer expression; `env` maps names to z3 Int constants (created on
    first use); `load(node)` gives the term of a tensor read (None: reads have no term)."""
    return IntTerm(env, load)(e)


def cond(c, env: dict, load=None):
    return IntTerm(env, load).map_cond(c)
