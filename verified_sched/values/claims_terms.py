"""Term helpers of claims decided by value (claims_value.py): the kind of a value node, the
flattening of a reduction term into (domain, shape, leaves), the leaf maps of a term family,
and the per-cell restrictions of the term order relation."""
from __future__ import annotations

import math
import struct

import islpy as isl

from polyhedral.valueexpr import EXACT_IN, At, Const, Iter, Leaf, Op, Pw, Red
from polyhedral.valueflow import Unsupported


def node_kind(n) -> str:
    return {Const: "a constant", Leaf: "an input read", Iter: "an iterator value", Op: "an operation",
            Red: "a reduction"}.get(type(n), type(n).__name__)


def single_cell(u, dom: isl.Set) -> isl.Set:
    """The part of union set u in dom's space."""
    for s in (u.get_set_list().get_at(k) for k in range(u.get_set_list().n_set())) if isinstance(u, isl.UnionSet) \
            else [u]:
        if s.get_space().is_equal(dom.get_space()):
            return s.intersect(dom)
    return dom


def shape_text(shape) -> str:
    match shape:
        case ("c", v, *_):
            return f"{v:g}"
        case ("l", t):
            return f"{t}[..]"
        case ("i",):
            return "(iterator)"
        case ("o", name, *args):
            if name in ("+", "-", "*", "/") and len(args) == 2:
                return f"({shape_text(args[0])} {name} {shape_text(args[1])})"
            return f"{name}({', '.join(shape_text(a) for a in args if a != 'amb')})"
    return str(shape)


def continues(red: Red, init) -> bool:
    """`init` (the value before red's chain) is itself a chain of red's operator."""
    init = strip(init)
    return isinstance(init, Red) and init.op == red.op and init.prec == red.prec


def strip(n):
    while isinstance(n, At):
        n = n.body
    return n


def is_zero(n) -> bool:
    """+0.0 or -0.0 (a constant zero of either sign)."""
    n = strip(n)
    return isinstance(n, Const) and n.value == 0.0


def is_neg_zero(n) -> bool:
    """-0.0 by its sign bit: adding it to any value leaves the value's bits unchanged."""
    n = strip(n)
    return isinstance(n, Const) and n.value == 0.0 and math.copysign(1.0, n.value) < 0


def has_red(n) -> bool:
    n = strip(n)
    if isinstance(n, Red):
        return True
    if isinstance(n, Op):
        return any(has_red(a) for a in n.args)
    if isinstance(n, Pw):
        return any(has_red(e) for _, e in n.pieces)
    return False


def flat_terms(n, dom: isl.Set) -> list:
    """[(piece of dom, shape, [leaf maps])] of a term body: the shape abstracts leaf cells."""
    n = strip(n)
    if dom.is_empty():
        return []
    if isinstance(n, Pw):
        return [r for d, e in n.pieces for r in flat_terms(e, dom.intersect(d))]
    if isinstance(n, Const):  # the bits too: shapes are dict keys, and -0.0 == 0.0 in Python
        return [(dom, ("c", n.value, math.copysign(1.0, n.value) < 0), [])]
    if isinstance(n, Leaf):
        return [(dom, ("l", n.tensor), [n.map])]
    if isinstance(n, Iter):
        return [(dom, ("i",), [n.map])]
    if isinstance(n, Op):
        out = [(dom, (), [])]
        for a in n.args:
            out = [(d2, s + (s2,), l1 + l2) for d, s, l1 in out for d2, s2, l2 in flat_terms(a, d)]
            if len(out) > 64:
                raise Unsupported("a reduction term splits into too many cases")
        res = []
        for d, s, leaves in out:
            if n.name in ("+", "*") and len(s) == 2:
                if s[0] == s[1]:
                    s = s + ("amb",)  # a*a-like: the leaf order is not canonical
                elif repr(s[1]) < repr(s[0]):
                    k = leaf_count(s[0])
                    s, leaves = (s[1], s[0]), leaves[k:] + leaves[:k]
            res.append((d, ("o", n.name) + s, leaves))
        return res
    raise Unsupported(f"a reduction term holds {node_kind(n)} that is not a partial sum")


def has_amb(shape) -> bool:
    return shape == "amb" or (isinstance(shape, tuple) and any(has_amb(x) for x in shape))


def leaf_count(shape) -> int:
    if shape[0] in ("l", "i"):
        return 1
    if shape[0] == "o":
        return sum(leaf_count(a) for a in shape[2:] if a != "amb")
    return 0


def leaf_map(leaves, dom: isl.Set, name: str) -> isl.Map:
    m = None
    for lv in leaves:
        lv = lv.intersect_domain(dom)
        m = lv if m is None else m.flat_range_product(lv)
    if m is None:
        m = isl.Map.from_domain_and_range(dom, isl.Set("{ F[] }").align_params(dom.get_space()))
    return m.set_tuple_name(isl.dim_type.out, name)


def sched_dims(u: isl.UnionMap) -> int:
    lst = u.get_map_list()
    return lst.get_at(0).dim(isl.dim_type.out)


def same_ctx(rel: isl.UnionMap) -> isl.UnionMap:
    """Pairs [ctx -> a] -> [ctx -> b] with equal ctx, over rel's spaces."""
    out = None
    for k in range(rel.get_map_list().n_map()):
        m = rel.get_map_list().get_at(k)
        dom = m.get_space().domain().unwrap()
        e = isl.Map.universe(m.get_space())
        nc = dom.dim(isl.dim_type.in_)
        for j in range(nc):
            e = e.equate(isl.dim_type.in_, j, isl.dim_type.out, j)
        u = isl.UnionMap.from_map(e)
        out = u if out is None else out.union(u)
    return out if out is not None else rel


def same_const(a: float, b: float) -> bool:
    """Bitwise equal constants (-0.0 is not 0.0; NaNs are one value), never Python `==`."""
    return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))


def plain(n) -> bool:
    """A value tree without reductions, recurrences or case splits (value_smt encodes it)."""
    n = strip(n)
    if isinstance(n, Op):
        return all(plain(a) for a in n.args)
    return isinstance(n, (Const, Leaf, Iter))


def same_init(n, init, to_ctx: isl.Map, d: isl.Set, rounds) -> bool:
    """Within one kernel: `n` (over a term context d) is the value `init` (over the cell context,
    d -> cell by to_ctx) has at the term's cell: the same constant (by its bits) or a read of the
    same cell or iterator value, through stores that keep the value (`rounds(at)` is None)."""
    n, init = _kept(n, rounds), _kept(init, rounds)
    if n is None or init is None or d.is_empty():
        return n is not None and init is not None
    if isinstance(n, Pw):
        return all(same_init(e, init, to_ctx, d.intersect(pd), rounds) for pd, e in n.pieces)
    if isinstance(init, Pw):
        back = to_ctx.intersect_domain(d)
        return all(same_init(n, e, to_ctx, back.intersect_range(pd).domain(), rounds) for pd, e in init.pieces)
    if isinstance(n, Const) and isinstance(init, Const):
        return same_const(n.value, init.value)
    if (isinstance(n, Leaf) and isinstance(init, Leaf) and n.tensor == init.tensor) or \
            (isinstance(n, Iter) and isinstance(init, Iter)):
        try:
            return n.map.intersect_domain(d).is_equal(to_ctx.intersect_domain(d).apply_range(init.map))
        except isl.Error:
            return False
    return False


def _kept(n, rounds):
    """n without its stores, or None when one of them rounds the value."""
    while isinstance(n, At):
        if rounds(n) is not None:
            return None
        n = n.body
    return n




def compute_type(models) -> str | None:
    """The one compute type (fp.COMPUTE of the stored tensor's precision) of the kernels'
    statements, or None when there is none. A plain copy of a tensor whose values that type
    holds exactly into a wider tensor (a tile packed in f64: `stage ... prec=f64`) does not count:
    the value stays exact there and back. Raises Unsupported for several."""
    from smt import fp
    from verified_sched.core import ir
    main, copies = set(), []
    for m in models:
        for st in m.stmts:
            prec = m.program.tensor(st.accesses[0].tensor).prec
            node = st.node
            v = node.value.a if isinstance(node, ir.Assign) and isinstance(node.value, ir.Cast) else \
                getattr(node, "value", None)
            if isinstance(v, ir.Load) and st.blend is None:  # a copy, or a cast copy (`f64(b[..])`)
                copies.append((fp.COMPUTE[prec], m.program.tensor(v.tensor).prec))
            elif isinstance(v, ir.Float) and v is node.value and st.blend is None and _f32_exact(v.value):
                copies.append((fp.COMPUTE[prec], "f32"))  # a constant every float type holds (a pad's 0.0)
            else:
                main.add(fp.COMPUTE[prec])
    if not main:
        main = {c for c, _ in copies}
        copies = []
    for c, src in copies:
        if len(main) == 1 and c not in main and src not in EXACT_IN.get(next(iter(main)), ()):
            main.add(c)
    if len(main) > 1:
        raise Unsupported(f"the kernels compute in several precisions ({', '.join(sorted(main))}): "
                          "conversions between compute types inside a value are not modelled")
    return next(iter(main), None)


def _f32_exact(v: float) -> bool:
    """v is an f32 value (by its bits)."""
    try:
        return same_const(struct.unpack("<f", struct.pack("<f", v))[0], v)
    except OverflowError:
        return False
