"""MLIR affine maps and integer sets (as xdsl parses them) as DSL index expressions and
conditions.

`map_results(map, operands)` gives one IR expression per result of an affine map whose dims
and symbols are bound to the operands' expressions (dims first, as MLIR passes them);
`set_cond(set, operands)` the conjunction of an integer set's constraints. `floordiv`, `mod`
and `ceildiv` need a positive constant right operand, as MLIR's affine expressions do.
"""
from __future__ import annotations

from verified_sched.core import ir

from .import_body import add, mul


class NotAffineMap(Exception):
    """An affine expression form the DSL cannot hold (the message says which)."""


def expr_of(e, dims: list, syms: list):
    from xdsl.ir.affine import (AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr,
                                AffineSymExpr)

    if isinstance(e, AffineConstantExpr):
        return ir.Int(int(e.value))
    if isinstance(e, AffineDimExpr):
        return dims[e.position]
    if isinstance(e, AffineSymExpr):
        return syms[e.position]
    if isinstance(e, AffineBinaryOpExpr):
        a, b = expr_of(e.lhs, dims, syms), expr_of(e.rhs, dims, syms)
        kind = e.kind
        if kind == AffineBinaryOpKind.Add:
            if isinstance(b, ir.Int) and b.value < 0:
                return add(a, b)
            if isinstance(b, ir.BinOp) and b.op == "*" and isinstance(b.b, ir.Int) and b.b.value == -1:
                return ir.BinOp("-", a, b.a)
            return add(a, b)
        if kind == AffineBinaryOpKind.Mul:
            if isinstance(a, ir.Int) and not isinstance(b, ir.Int):
                a, b = b, a
            return mul(a, b)
        if not isinstance(b, ir.Int) or b.value <= 0:
            raise NotAffineMap(f"'{e}': a division or modulo by a non-constant or non-positive value")
        c = b.value
        if c == 1:
            return ir.Int(0) if kind == AffineBinaryOpKind.Mod else a
        if kind == AffineBinaryOpKind.Mod:
            return ir.Mod(a, c)
        if kind == AffineBinaryOpKind.FloorDiv:
            return ir.FloorDiv(a, c)
        return ir.FloorDiv(add(a, ir.Int(c - 1)), c)  # ceildiv
    raise NotAffineMap(f"the affine expression '{e}'")


def map_of(attr):
    """The xdsl AffineMap of an AffineMapAttr (or the map itself)."""
    return getattr(attr, "data", attr)


def map_results(amap, operands: list) -> list:
    amap = map_of(amap)
    nd = amap.num_dims
    dims, syms = list(operands[:nd]), list(operands[nd:])
    return [expr_of(r, dims, syms) for r in amap.results]


def set_cond(aset, operands: list):
    aset = getattr(aset, "data", aset)
    nd = aset.num_dims
    dims, syms = list(operands[:nd]), list(operands[nd:])
    conds = []
    for c in aset.constraints:
        lhs = expr_of(c.lhs, dims, syms)
        rhs = expr_of(c.rhs, dims, syms)
        op = {"eq": "==", "ge": ">=", "le": "<="}.get(getattr(c.kind, "name", str(c.kind)), None)
        if op is None:
            raise NotAffineMap(f"the constraint '{c}'")
        conds.append(ir.Cmp(op, lhs, rhs))
    if not conds:
        return ir.BoolConst(True)
    out = conds[0]
    for c in conds[1:]:
        out = ir.And(out, c)
    return out


def fold(es: list, fn: str):
    """min/max of several expressions (the one expression when alone)."""
    out = es[0]
    for e in es[1:]:
        out = ir.Call(fn, (out, e))
    return out
