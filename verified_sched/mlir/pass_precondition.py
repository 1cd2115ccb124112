"""The sizes for which an imported MLIR function has no out-of-bounds access, as constraints.

MLIR gives a memref access outside its memref undefined behaviour, and dynamic dimensions of
different memrefs are independent params after import (`A_d1` and `B_d0` of a matmul), so the
function is only meaningful where its accesses stay in bounds. Translation validation assumes
exactly that of the *before* function: isl computes the params at which some affine access of
it leaves its storage (polyhedral/checks.py `access_violations`, projected on the params);
when the complement within the declared constraints is one conjunction of affine constraints
without existential variables, those constraints are added to the program (the after function
must then be in bounds, and equal, for every such size). Otherwise nothing is added and the
before function's own in_bounds obligation reports the sizes at which it fails.
"""
from __future__ import annotations

import islpy as isl

from polyhedral import checks
from polyhedral.model import KernelModel
from verified_sched.core import ir


def in_bounds_constraints(program: ir.Program, kernel: str) -> list | None:
    """Conditions over the params under which `kernel` stays in bounds (beyond the program's
    constraints), [] when it always does, None when they are not one affine conjunction."""
    model = KernelModel(program, kernel, tag="K")
    affine, _pending, _total = checks.split_accesses(model)
    context = isl.Set(f"{model.ptuple} -> {{ : {model.param_text} }}")
    bad = context.subtract(context)
    for st, acc in affine:
        bad = bad.union(checks.access_violations(model, st, acc).domain().params())
    if bad.is_empty():
        return []
    good = context.subtract(bad).coalesce()
    if good.is_empty():
        return None
    good = good.gist(context)
    pieces = good.get_basic_sets()
    if any(p.dim(isl.dim_type.div) > 0 for p in pieces):
        return None
    names = [model.pinv[good.get_dim_name(isl.dim_type.param, k)] for k in range(good.dim(isl.dim_type.param))]
    if len(pieces) == 1:
        return [_cond(c, names) for c in pieces[0].get_constraints()]
    out = None  # a disjunction of conjunctions
    for piece in pieces:
        conj = None
        for c in piece.get_constraints():
            conj = _cond(c, names) if conj is None else ir.And(conj, _cond(c, names))
        conj = conj if conj is not None else ir.BoolConst(True)
        out = conj if out is None else ir.Or(out, conj)
    return [out]


def _cond(c, names: list):
    pos, neg = [], []
    for k, name in enumerate(names):
        v = c.get_coefficient_val(isl.dim_type.param, k).to_python()
        if v:
            term = ir.Var(name) if abs(v) == 1 else ir.BinOp("*", ir.Int(abs(v)), ir.Var(name))
            (pos if v > 0 else neg).append(term)
    k = c.get_constant_val().to_python()
    if k > 0:
        pos.append(ir.Int(k))
    elif k < 0:
        neg.append(ir.Int(-k))
    return ir.Cmp("==" if c.is_equality() else ">=", _sum(pos), _sum(neg))


def _sum(terms: list):
    if not terms:
        return ir.Int(0)
    out = terms[0]
    for t in terms[1:]:
        out = ir.BinOp("+", out, t)
    return out
