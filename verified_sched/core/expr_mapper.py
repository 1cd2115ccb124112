"""The one base of every expression translator (interpreter, C/CUDA/MLIR spelling, ranges,
linear forms, isl, z3): a method per expression and condition node kind, and a default that
raises, so a translator that misses a node kind fails loudly (and `tests/test_translators.py`
checks that every registered translator defines every method of `NODE_METHODS`).

A subclass implements `map_<kind>(self, node, *args)` for each kind in `NODE_METHODS`;
`mapper(node, *args)` dispatches on the node's exact class. `Call` nodes come to `map_call`,
which translators usually dispatch further on `node.fn` through the semantics table:
`map_row(node, ...)` calls the method of the node's row (`semantics.Row.method`, e.g.
`fn_min`, `binop_add`, `cmp_lt`, `cast_f16`, `node_floordiv`). A translator that has no
meaning for a row names it in `DECLINED` (method name -> reason) instead: every registered
translator translates or declines every row (`tests/test_translators.py`).
"""
from __future__ import annotations

from .errors import InternalError
from .semantics import row_of
from .ir_nodes import (
    And, BinOp, BoolConst, Call, Cast, Cmp, Float, FloorDiv, Int, Load, Mod, Not, Or, Var, Where,
)

# node class -> the method that translates it
NODE_METHODS = {
    Int: "map_int", Float: "map_float", Var: "map_var", BinOp: "map_binop",
    FloorDiv: "map_floordiv", Mod: "map_mod", Call: "map_call", Where: "map_where",
    Cast: "map_cast", Load: "map_load",
    Cmp: "map_cmp", And: "map_and", Or: "map_or", Not: "map_not", BoolConst: "map_boolconst",
}


class ExprMapper:
    """Dispatch on the node's class; every `map_<kind>` not overridden raises."""

    def __call__(self, node, *args, **kwargs):
        name = NODE_METHODS.get(type(node))
        if name is None:
            raise InternalError(f"{type(self).__name__}: not an expression node: {node!r}")
        return getattr(self, name)(node, *args, **kwargs)

    DECLINED: dict = {}  # row method name -> why this translator has no meaning for it

    def map_row(self, node, *args, **kwargs):
        """Dispatch a BinOp, Call, Cmp, Cast, FloorDiv or Mod node to its table row's method."""
        method = row_of(node).method
        if method in self.DECLINED:
            return self.declined(node, self.DECLINED[method], *args, **kwargs)
        return getattr(self, method)(node, *args, **kwargs)

    def declined(self, node, reason: str, *args, **kwargs):
        """A row named in DECLINED (default: raise)."""
        raise InternalError(f"{type(self).__name__}: {reason}")

    def unsupported(self, node, *args, **kwargs):
        raise InternalError(f"{type(self).__name__} does not translate {type(node).__name__}")

    map_int = map_float = map_var = map_binop = map_floordiv = map_mod = unsupported
    map_call = map_where = map_cast = map_load = unsupported
    map_cmp = map_and = map_or = map_not = map_boolconst = unsupported



class IndexMapper(ExprMapper):
    """Base of the translators of integer-typed (index) expressions (C's int64, MLIR's
    `index`): float literals and condition nodes are not index expressions; every operator,
    function, cast and division dispatches through its table row (`map_row`)."""

    NOT_INDEX = "not an index expression"

    def declined(self, node, reason: str, *args, **kwargs):
        raise InternalError(f"{reason}: {node!r}")

    def not_index(self, node, *args, **kwargs):
        raise InternalError(f"{self.NOT_INDEX}: {node!r}")

    map_float = map_and = map_or = map_not = map_boolconst = not_index
    map_binop = map_call = map_floordiv = map_mod = map_cast = map_cmp = ExprMapper.map_row

REGISTERED: list = []


def register(cls):
    """Class decorator: a translator that `tests/test_translators.py` checks for every node kind
    and every table row."""
    REGISTERED.append(cls)
    return cls
