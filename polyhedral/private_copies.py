"""Dependences through scratch storage that an op splits into separate copies.

A `local` tensor has one copy per thread (per block and thread indices), a `shared` one per
block: the README's Semantics, the emulator and the interpreter allocate them so, and the
model qualifies their cells by those indices (`KernelModel.copy_indices`). When an op puts
two instances that conflict on such a tensor before it into different threads (or blocks)
after it, they touch different copies and no longer interact: their order need not be kept.
Unless the second reads the value the first wrote: that value cannot reach another copy, so
such a pair stays a dependence (and the op, which makes them unordered, is refuted).

Formal statement: a dependence (b1, b2) of `before` is separated when
 (1) every cell b1 and b2 conflict on is a cell of a `local` or `shared` tensor;
 (2) for each such tensor T they conflict on, every pair of after instances (a1, a2) that
     stand for (b1, b2) through provenance accesses T in two different copies;
 (3) b1 is not the last writer of a read of b2 (the before kernel's value flow,
     `polyhedral/valueflow.py`; where it is not modelled, every write-read pair counts).
Every other dependence keeps its order (the `dependence` obligation). Why that suffices:
instances touching one copy after the op keep every mutual order they had on the cell before
it, so a read of the copy sees, among the writes of the copy, the last one before it in the
old order; by (3) its old last writer is among them and kept before it, and any write of the
copy between the two would conflict with both and keep its place too.
"""
from __future__ import annotations

import islpy as isl

from .describe import maps_of
from .model import KernelModel, safe_name

SCRATCH = ("local", "shared")


def _cells_of(u: isl.UnionMap, tensor: str) -> isl.UnionMap:
    """The part of an instance -> cell relation on one tensor's cells."""
    name = f"T_{safe_name(tensor)}"
    out = u.empty(u.get_space())
    for m in maps_of(u):
        if m.get_tuple_name(isl.dim_type.out) == name:
            out = out.union(isl.UnionMap.from_map(m))
    return out


def _conflicts_on(model: KernelModel, tensors) -> isl.UnionMap:
    out = model.union_map([])
    for t in tensors:
        w, a = _cells_of(model.writes, t), _cells_of(model.accesses, t)
        out = out.union(w.apply_range(a.reverse())).union(a.apply_range(w.reverse()))
    return out


def _copies(model: KernelModel, tensor: str) -> isl.UnionMap:
    """instance -> the copy of `tensor` it accesses (COPY[block and thread indices])."""
    maps = []
    for st in model.stmts:
        if any(a.tensor == tensor for a in st.accesses):
            pre = model.copy_indices(st, tensor)
            m = isl.Map(model.space(f"{model.tup(st)} -> COPY[{', '.join(pre)}]"))
            maps.append(m.intersect_domain(model.domains[st.name]))
    return model.union_map(maps)


def _flows(before: KernelModel, tensors) -> isl.UnionMap:
    """write -> read pairs of `before` where the write is the read's last writer, on `tensors`
    (every ordered write-read pair when the value flow is not modelled)."""
    from .valueflow import Unsupported, ValueFlow
    try:  # data-dependent guards: every write a read may see (exact writes still kill)
        flow = ValueFlow(before, may=True)
    except Unsupported:
        flow = None
    if flow is None:
        w = before.union_map(_cells_of(before.writes, t) for t in tensors)
        r = before.union_map(_cells_of(before.reads, t) for t in tensors)
        return w.apply_range(r.reverse()).intersect(before.before)
    out = before.union_map([])
    for st, k, acc in flow.reads():
        if acc.tensor in tensors:
            src = flow.source_of(st, k)
            for m in maps_of(src):
                out = out.union(isl.UnionMap.from_map(m.set_tuple_name(isl.dim_type.in_, st.name).reverse()))
    return out


def _to_before(pairs: isl.UnionMap, before: KernelModel, after: KernelModel) -> isl.UnionMap:
    """After-instance pairs as the before-instance pairs they stand for (through provenance)."""
    back = after.prov.apply_range(before.prov.reverse())
    return pairs.apply_domain(back).apply_range(back)


def separated_pairs(before: KernelModel, after: KernelModel) -> isl.UnionMap:
    """The dependences of `before` that the op separates into different copies of scratch
    tensors (module doc): dropping them from the dependence obligation is sound."""
    tensors = sorted({a.tensor for st in before.stmts for a in st.accesses
                      if before.program.tensor(a.tensor).memory in SCRATCH})
    tensors = [t for t in tensors if t in {x.name for x in after.program.tensors}
               and after.program.tensor(t).memory == before.program.tensor(t).memory]
    if not tensors:
        return before.union_map([])
    others = sorted({a.tensor for st in before.stmts for a in st.accesses} - set(tensors))
    keep = _conflicts_on(before, others).union(_flows(before, tensors))
    candidate = before.union_map([])
    forth = _to_after(before, after)
    for t in tensors:
        conf = _conflicts_on(before, [t])
        c = _copies(after, t)
        differ = c.apply_range(_ne(c.range())).apply_range(c.reverse())
        # before pairs with some after image that does not touch two different copies of t:
        # only the images of the pairs in question (`_joined`)
        joined = _to_before(_images(conf, forth, after).subtract(differ), before, after)
        candidate = candidate.union(conf)
        keep = keep.union(conf.intersect(joined))
    return candidate.subtract(keep)


def _to_after(before: KernelModel, after: KernelModel) -> isl.UnionMap:
    """before instance -> the after instances that stand for it (provenance)."""
    return before.prov.apply_range(after.prov.reverse())


def _images(pairs: isl.UnionMap, forth: isl.UnionMap, after: KernelModel) -> isl.UnionMap:
    """The pairs of after instances that stand for `pairs` (before instances). In place of every
    pair of after instances (`universe`, what the subtraction was first taken from): a before
    pair (b1, b2) has an image outside `differ` among all after pairs exactly when it has one
    among the pairs that stand for (b1, b2), and those are far fewer (the subtraction of the
    universe took seconds on fuzz kernels of many statements)."""
    images = pairs.apply_domain(forth).apply_range(forth)
    return images.intersect_domain(after.domain).intersect_range(after.domain)


def _ne(copies: isl.UnionSet) -> isl.UnionMap:
    """COPY[x] -> COPY[y] with x != y (as a union of strict lexicographic orders)."""
    out = None
    for s in [copies.get_set_list().get_at(k) for k in range(copies.n_set())]:
        sp = s.get_space()
        m = isl.Map.lex_lt(sp).union(isl.Map.lex_gt(sp))
        u = isl.UnionMap.from_map(m)
        out = u if out is None else out.union(u)
    return out if out is not None else isl.UnionMap.empty(copies.get_space())
