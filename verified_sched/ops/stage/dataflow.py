"""Exact value-based dataflow of a staged (or packed) tile: the `dataflow` obligation.

Formal statement: for all parameter values and every instance r of a statement reading TILE at
cell c (each read access separately), let D(r) be the tile writes w of cell c that happen
before r, where "happens before" is (a) the same thread (same block and thread indices) and w
earlier in the thread-agnostic program order, or (b) the same block and a barrier instance b
with w before b before r in that order. Then (1) D(r) is not empty, (2) it has exactly one
last element (a w in D(r) no other w' in D(r) follows in happens-before), (3) that last write
is a copy statement (not the zero fill of an edge guard) storing SRC[s] with s equal to the
source cell the original read of r read (its index in the kernel before the op, at r's
iterators), and (4) no write of cell c is unordered with r (neither happens before nor after
it). Order: top-level statements run in sequence (a tile written in one launch is visible in a
later one only when neither has hardware loops); serial/unrolled loops and statement positions
order lexicographically; thread loops do not order (they are transparent); block and
vectorized loops separate instances (equal indices required). Hardware axes a statement is
not inside count as index 0 (such statements run on thread 0 / block 0 only).

This does not rely on the race analysis: barriers are modelled here as instances.
"""
from __future__ import annotations

import islpy as isl

from polyhedral.affine import join_and
from polyhedral.describe import coords, instance, param_values
from polyhedral.model import HW_AXES, Access, KernelModel, Stmt, lex_before

from ...core import ir
from ...core.counterexample import Counterexample, Instance
from ...core.ir import Load
from ...core.obligations import AllOf, Decided, IslEmpty

STATEMENT = ("forall params and every read r of the tile: the writes of r's cell that happen before r "
             "(same thread earlier, or same block across a barrier) are non-empty with one last element, "
             "which copies exactly the source cell the original read saw, and no write of that cell is "
             "unordered with r")


def _hw_eq(s: Stmt, t: Stmt, axes) -> list:
    hs, ht = s.hw(), t.hw()
    out = []
    for axis in axes:
        a = f"a{hs[axis]}" if axis in hs else "0"
        b = f"b{ht[axis]}" if axis in ht else "0"
        if a != "0" or b != "0":
            out.append(f"{a} = {b}")
    return out


def agnostic_before(s: Stmt, t: Stmt, same_thread: bool) -> str | None:
    """Constraint (a* dims of s, b* dims of t) of `s before t` in the thread-agnostic order,
    same block (and same thread when asked), or None when never."""
    has_hw = bool(s.hw()) or bool(t.hw())
    if s.top != t.top and has_hw:
        return None
    order = lex_before(s, t, tie=lambda axis: axis == "vectorized")
    if order is None:
        return None
    axes = HW_AXES if same_thread else HW_AXES[:3]
    return join_and([order] + _hw_eq(s, t, axes))


class Dataflow:
    def __init__(self, model: KernelModel):
        self.m = model
        self.bars = model.barrier_stmts
        self.bar_dom = {b.name: isl.Set(model.space(f"{model.tup(b)} : {model.domain_text(b)}"))
                        for b in self.bars}

    def dom(self, st):
        return self.m.domains.get(st.name) or self.bar_dom[st.name]

    def pair(self, s, t, same_thread) -> isl.Map | None:
        c = agnostic_before(s, t, same_thread)
        if c is None:
            return None
        m = isl.Map(self.m.space(f"{self.m.tup(s, 'a')} -> {self.m.tup(t, 'b')} : {c}"))
        return m.intersect_domain(self.dom(s)).intersect_range(self.dom(t))

    def hb(self, sources, targets) -> isl.UnionMap:
        maps = []
        for s in sources:
            for t in targets:
                m = self.pair(s, t, True)
                if m is not None:
                    maps.append(m)
                for b in self.bars:
                    m1, m2 = self.pair(s, b, False), self.pair(b, t, False)
                    if m1 is not None and m2 is not None:
                        maps.append(m1.apply_range(m2))
        return self.m.union_map(maps)


def tile_dataflow(mb: KernelModel, ma: KernelModel, source: str, tile: str, note: str = "") -> AllOf:
    """The formal statement above for TILE standing for reads of SOURCE (mb: before the op), as
    a conjunction of queries decided in order (`parts`): one isl set could not carry them, each
    kind of violation has its message and a later read's sets are built only once the earlier
    ones are proved. `note` is added to every message."""
    return AllOf(lambda: parts(mb, ma, source, tile, note), lambda answers: proved(ma, source, tile, note))


def proved(ma: KernelModel, source: str, tile: str, note: str = "") -> Decided:
    """The answer when every part is proved."""
    return Decided("proved", f"{len(readers_of(ma, tile))} tile read(s) of {tile}: each sees exactly one load, of "
                             f"the {source} cell the original read{note}", STATEMENT)


def readers_of(ma: KernelModel, tile: str) -> list:
    """(statement, access) of every read of the tile."""
    return [(st, a) for st in ma.stmts for a in st.accesses if not a.write and a.tensor == tile]


def parts(mb: KernelModel, ma: KernelModel, source: str, tile: str, note: str = ""):
    """The queries of `tile_dataflow`, in order (a generator: a read's sets are built when its
    turn comes): the structural preconditions (an unknown Decided when one fails, and no part
    after it), then per read access r, IslEmpty violation sets whose witness is r's sampled
    instance: (1) some write of r's cell is visible to it, (2) one last write, (3) not an
    edge-guard zero, (4) a copy of the cell the original read read, (5) no unordered write."""
    def unknown(message):
        return Decided("unknown", message + note, STATEMENT)

    writers = [st for st in ma.stmts if st.accesses[0].write and st.accesses[0].tensor == tile]
    readers = readers_of(ma, tile)
    if not readers:
        yield unknown(f"nothing reads the tile {tile}: the staging redirected no read")
        return
    for st in writers + [r for r, _ in readers]:
        if not ma.is_exact(st):
            yield unknown(f"{st.sid}: data-dependent guards or indices (may-accesses)")
            return
    copies = [w for w in writers if isinstance(w.node.value, (Load, ir.Cast))
              and _src_load(w.node.value, source) is not None]
    df = Dataflow(ma)
    rstmts = list({id(r): r for r, _ in readers}.values())
    W = ma.union_map(ma.access_map(w, w.accesses[0]) for w in writers)
    hb_wr = df.hb(writers, rstmts)
    hb_ww = df.hb(writers, writers)
    hb_rw = df.hb(rstmts, writers)
    srcW = ma.union_map(ma.access_map(w, Access(source, _src_load(w.node.value, source).index, False), True)
                        for w in copies)
    fill_dom = ma.union_map(isl.UnionSet.from_set(ma.domains[w.name]) for w in writers if w not in copies) \
        if len(copies) < len(writers) else None
    ww = W.apply_range(W.reverse()).intersect(hb_ww)
    for r, acc in readers:
        before = _original_index(mb, r, source)
        if before is None:
            yield unknown(f"{r.sid}: no unique original read of {source} to compare with")
            return
        yield from _read_parts(ma, r, acc, before, source, tile, (W, ww, hb_wr, hb_rw, srcW, fill_dom), note)


def _read_parts(ma, r, acc, before, source, tile, maps, note) -> list:
    """The violation queries of one read access (its own scope: the queries keep its sets)."""
    W, ww, hb_wr, hb_rw, srcW, fill_dom = maps

    def violation(violations, message: str) -> IslEmpty:
        return read_violation(ma, violations, message + note)

    R = isl.UnionMap.from_map(ma.access_map(r, acc))
    same = R.apply_range(W.reverse())
    D = same.intersect(hb_wr.reverse())
    last = D.subtract(D.apply_range(ww.reverse()))
    rdom = R.domain()

    def wrong_cell():
        srcR = isl.UnionMap.from_map(ma.access_map(r, Access(source, before, False), True))
        return last.subtract(srcR.apply_range(srcW.reverse())).domain()

    out = [violation(lambda: rdom.subtract(last.domain()),
                     f"{r.sid} reads {tile} before any load of that cell is visible to it"),
           violation(lambda: several(last), f"{r.sid}: several unordered last writes of the {tile} cell it reads")]
    if fill_dom is not None:
        out.append(violation(lambda: last.intersect_range(fill_dom).domain(),
                             f"{r.sid} reads the 0 an edge guard stored, where the original read an in-bounds "
                             f"{source} cell"))
    out.append(violation(wrong_cell, f"{r.sid} sees a copy of a different {source} cell than the original read"))
    out.append(violation(lambda: same.subtract(D).subtract(hb_rw.intersect_domain(rdom)).domain(),
                         f"{r.sid}: a write of the {tile} cell it reads is unordered with the read (no barrier "
                         f"between them)"))
    return out


def several(last: isl.UnionMap) -> isl.UnionSet:
    """The reads with more than one last write: where the lexicographic max and min differ, or,
    when the last writes are of different statements (isl takes lexmax within each statement's
    space), where two distinct writes are last."""
    if last.is_single_valued():
        return last.domain().subtract(last.domain())
    bad = last.lexmax().subtract(last.lexmin()).domain()
    if not bad.is_empty():
        return bad
    writes = last.range()
    distinct = isl.UnionMap.from_domain_and_range(writes, writes).subtract(writes.identity())
    return last.apply_range(distinct).intersect(last).domain()


def read_violation(model: KernelModel, violations, message: str) -> IslEmpty:
    """Proved iff the set of read instances `violations()` is empty; else the sampled read
    instance is the counterexample (at its parameter values)."""
    def witness(pt) -> Decided:
        params, tuples = coords(pt)
        pv = param_values(model, params)
        name, vals = tuples[0]
        cex = Counterexample(Instance(pv), [instance(model, name, vals, pv, "after")])
        return Decided("refuted", message, STATEMENT, cex)
    return IslEmpty(violations, witness)


def _src_load(value, source):
    if isinstance(value, ir.Cast):
        value = value.a
    return value if isinstance(value, Load) and value.tensor == source else None


def _original_index(mb: KernelModel, r: Stmt, source: str):
    """The source index the statement with r's id read before the op (over the same iterators)."""
    idx = set()
    for st in mb.stmts:
        if st.node is not None and getattr(st.node, "sid", None) == r.node.sid:
            for a in st.accesses:
                if not a.write and a.tensor == source:
                    idx.add(tuple(a.index))
            if {lp.var for lp in st.loops} - {lp.var for lp in r.loops}:
                return None
    return next(iter(idx)) if len(idx) == 1 else None
