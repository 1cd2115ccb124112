"""IR index expressions and conditions as isl text (affine, quasi-affine, piecewise min/max).

Everything polyhedral goes through isl's parser with positional, collision-free names
(`p0..` for size parameters, `i0..` for loop iterators by depth), so user names can never
clash with isl keywords. One isl context (islpy's default) serves the whole process.

Non-affine pieces (a tensor read used as an index, a product of two symbols, real division)
raise `NonAffine`; callers over-approximate soundly (see `approx_cond`).
"""
from __future__ import annotations

from .lazy_isl import isl

from verified_sched.core.expr_mapper import ExprMapper, register
from verified_sched.core.ir import And, BoolConst, Cmp, Int, Load, Not, Or, Var, nodes_of
from verified_sched.core.semantics import ROWS

_CONDITIONS = (Cmp, And, Or, Not, BoolConst)
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
    return bool(nodes_of(e, (Var, Load)))


def _const(e) -> int:
    from .evaluate import Dynamic, ev
    try:
        return ev(e, {})
    except (Dynamic, KeyError):
        raise NonAffine("non-integer factor") from None


_NOT_AFFINE = "not an integer affine expression"


@register
class IslText(ExprMapper):
    """`IslText(names)(e)`: the isl text of an index expression or an affine condition; the
    rows without a (quasi-)affine isl form raise NonAffine."""

    DECLINED = {r.method: _NOT_AFFINE for r in ROWS.values()
                if r.kind == "cast" or r.name in ("div", "fma", "exp", "log", "sqrt", "tanh", "erf", "rsqrt", "pow", "abs", "relu")}

    def __init__(self, names: dict):
        self.names = names

    def declined(self, e, reason: str, *args, **kwargs):
        raise NonAffine(reason)

    def unsupported(self, e, *args, **kwargs):
        raise NonAffine(f"unsupported {type(e).__name__}")

    def not_affine(self, e):
        raise NonAffine(_NOT_AFFINE)

    map_float = map_cast = map_where = not_affine

    def map_int(self, e):
        return str(e.value) if e.value >= 0 else f"({e.value})"

    def map_var(self, e):
        if e.name not in self.names:
            raise NonAffine(f"unknown symbol {e.name}")
        return self.names[e.name]

    def map_load(self, e):
        raise NonAffine("dynamic index (a tensor read)")

    map_binop = map_call = map_floordiv = map_mod = map_cmp = ExprMapper.map_row

    def binop_add(self, e):
        return f"({self(e.a)} {e.op} {self(e.b)})"

    binop_sub = binop_add

    def binop_mul(self, e):
        a, b = e.a, e.b
        if _has_symbol(a) and _has_symbol(b):
            raise NonAffine("product of two symbols")
        if _has_symbol(a):
            a, b = b, a
        return f"({_const(a)} * ({self(b)}))"  # isl's parser wants a bare integer literal factor

    def fn_min(self, e):
        return f"{e.fn}({self(e.args[0])}, {self(e.args[1])})"

    fn_max = fn_min

    def fn_neg(self, e):  # unary minus is in the index language
        return f"(0 - {self(e.args[0])})"

    def node_floordiv(self, e):
        return f"floor(({self(e.a)})/{e.divisor})"

    def node_mod(self, e):
        return f"(({self(e.a)}) mod {e.divisor})"

    def cmp(self, c):
        return f"({self(c.a)} {_CMP[c.op]} {self(c.b)})"

    cmp_lt = cmp_le = cmp_gt = cmp_ge = cmp_eq = cmp_ne = cmp

    def map_and(self, c):
        return f"({self(c.a)} and {self(c.b)})"

    def map_or(self, c):
        return f"({self(c.a)} or {self(c.b)})"

    def map_not(self, c):
        return f"(not {self(c.a)})"

    def map_boolconst(self, c):
        return TRUE if c.value else FALSE


def aff(e, names: dict) -> str:
    """isl text of an index expression; `names` maps IR variable names to isl names."""
    t = type(e)
    if t is Var:  # the common leaves (IslText.map_var, map_int) without building a translator
        if e.name not in names:
            raise NonAffine(f"unknown symbol {e.name}")
        return names[e.name]
    if t is Int:
        return str(e.value) if e.value >= 0 else f"({e.value})"
    if t in _CONDITIONS:
        raise NonAffine(f"unsupported index expression {type(e).__name__}")
    return IslText(names)(e)


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
    if type(c) not in _CONDITIONS:
        raise NonAffine(f"unsupported condition {type(c).__name__}")
    return IslText(names)(c)


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


def join_and(parts) -> str:
    parts = [p for p in parts if p and p != TRUE]
    return " and ".join(f"({p})" for p in parts) if parts else TRUE
