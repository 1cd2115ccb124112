"""Value-based dependences: which orders an op must keep so that every value stays the same.

The memory-based dependence check (checks.py) keeps the order of every conflicting pair.
That is sufficient but more than needed: a write-after-write pair may be reversed when its
cell is overwritten before anyone reads it either way, and a write to a scratch cell that
every iteration reloads may move across another iteration's read. What an op must keep is
each read's last writer and each observable cell's final writer (then, by induction over
the order of execution, every instance computes the same value). With the last writers of
the kernel before the op (isl's `compute_flow`, valueflow.py: one serial order, the
kernel's meaning when its own independence/race obligations hold), the op is correct when,
in the order after it (a partial order: parallel iterations are unordered, so "before"
means definitely before):

- flow: the last writer w of every read of an instance x still runs before x (for the
  instances x whose value reaches an observable cell, transitively through reads: the
  reads of the others decide nothing);
- no interference: every other write w' of that cell runs before w or after x (w' between
  them would become the last writer); a read of the cell's entry value runs before every
  write of the cell;
- final values: every other write of an observable cell (a non-padding cell of a global
  tensor) runs before the cell's final writer.

Every relation is over original instances (provenance). Copies of one original instance
(shift_inward's recomputed lanes, round_up's duplicates) store equal values when their own
reads are right, which the conditions check for every copy; so a read needs only some copy
of its last writer before it with no other store between, and an observable cell some copy
of its final writer after every other store. Two stores of equal values (an idempotent
statement's duplicates) never interfere; a pair of accumulations of one reduction that the
op reverses is a reassociation (decided by the `reassociation` obligation), not a
violation. Kernels outside what the flow analysis models (data-dependent control, code in a
block loop outside every thread loop) raise `Unsupported`: the caller keeps the
memory-based verdict.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from .bounded import bounded
from .model import KernelModel
from .valueflow import TooComplex, Unsupported, ValueFlow, read_tuple

__all__ = ["Unsupported", "Violations", "value_violations"]

KINDS = ("flow", "overwrite", "clobber", "final")


@dataclass
class Violations:
    """Pairs of after instances (a1 -> a2: a1 ran first before the op, and after it a1 does
    not definitely run first) whose order breaks a value, by kind:

    - `flow`: (w, x), x reads what w writes;
    - `overwrite`: (w', w), w overwrote w' before some read x (`readers`) saw the cell;
    - `clobber`: (x, w'), x read the cell before w' overwrote it;
    - `final`: (w', w), w leaves the cell's final value.
    """

    flow: isl.UnionMap
    overwrite: isl.UnionMap
    clobber: isl.UnionMap
    final: isl.UnionMap
    readers: isl.UnionMap  # x -> [w' -> w] of the overwrite pairs

    def of(self, kind: str) -> isl.UnionMap:
        return getattr(self, kind)

    def is_empty(self) -> bool:
        return all(self.of(k).is_empty() for k in KINDS)

    def reader(self, pair: isl.Point):
        """A read instance (an isl point) that sees the wrong value for a sampled overwrite
        pair, or None."""
        u = isl.UnionSet.from_set(isl.Set.from_point(pair))
        xs = self.readers.intersect_range(u).domain()
        return None if xs.is_empty() else xs.sample_point()


def _rename(model: KernelModel, st, k: int) -> isl.UnionMap:
    """R<k>_<S>[i] -> S[i]."""
    dims = ", ".join(st.dims())
    return isl.UnionMap.from_map(isl.Map(model.space(f"{read_tuple(st, k)}[{dims}] -> {st.name}[{dims}]")))


class _Constraints:
    """The value-based constraints of the kernel before the op, over its own instances."""

    def __init__(self, model: KernelModel, equal: isl.UnionMap):
        m = self.m = model
        f = ValueFlow(model)  # Unsupported propagates
        empty = isl.UnionMap.empty(model.domain.get_space())
        self.flow = empty  # w -> x
        self.over = empty  # [x -> w'] -> w, w' before w
        self.clob = empty  # [x -> w'] -> w, w' after x
        self.entry = empty  # x -> w' (x reads the cell's entry value)
        self.final = empty  # w' -> w_f
        stores_of = m.writes.reverse()  # cell -> store instances
        ident = m.domain.identity()
        dead = m.domain.subtract(_mattering(m, f))
        triples = empty
        for st, k, _ in f.reads():
            ren = _rename(m, st, k)
            src = f.source_of(st, k)  # R -> w
            others = isl.UnionMap.from_map(f.read_map(st, k)).apply_range(stores_of).subtract(src)
            self.flow = self.flow.union(src.apply_domain(ren).subtract_domain(dead).reverse())
            seen = src.domain()
            t = others.intersect_domain(seen).range_product(src).apply_domain(ren)  # x -> [w' -> w]
            triples = triples.union(t.subtract_domain(dead).subtract_range(equal.wrap()))
            entry = others.subtract_domain(seen).apply_domain(ren).subtract_domain(dead)
            self.entry = self.entry.union(entry.subtract(ident))
        self.partial_before, self.partial_after = self._partial_sums(m, dead)
        triples = triples.uncurry().subtract_domain(ident.wrap())  # [x -> w'] -> w, w' is not x
        # which side of the live range (w, x) each other store w' is on, in the serial order
        self.over = triples.curry().intersect_range(f.order.wrap()).uncurry()
        self.clob = triples.subtract(self.over)
        for _, cell in f.observable_cells():
            sink = isl.UnionMap.from_map(cell)
            src = f.source.intersect_domain(sink.domain())  # OUT -> w_f
            others = sink.apply_range(stores_of).subtract(src)  # OUT -> w'
            self.final = self.final.union(others.reverse().apply_range(src).subtract(equal))


    def _partial_sums(self, m: KernelModel, dead: isl.UnionSet):
        """A read that is not part of a reduction but sees its partial sum must see the same
        terms: every accumulation of that chain (the accumulations whose value reaches the
        read's last writer, transitively through their accumulator reads) runs before it, and
        every later one of the chain after it. (a -> x) and (x -> a) pairs; the reversals
        inside a chain stay a reassociation."""
        red = m.reductions
        acc = m.acc_writes.domain()
        links = self.flow.intersect(red).reverse()  # a2 -> a1: a2 accumulates onto a1's value
        if links.is_empty():
            empty = isl.UnionMap.empty(m.domain.get_space())
            return empty, empty
        preds, _exact = closure_of(links)  # inexact: more pairs, only stricter
        seen = self.flow.intersect_domain(acc).subtract(red).subtract_range(dead)  # w -> x, x outside the chain
        before = seen.union(preds.reverse().apply_range(seen))  # a -> x
        after = seen.reverse().apply_range(preds.reverse())  # x -> a
        return before, after


CLOSURE_PIECES = 32  # basic maps: the corpus's largest closure has 7
CLOSURE_DIVS = 64  # integer divisions over all pieces: the corpus's have none
CLOSURE_FORK_PIECES = 8  # more pieces: computed under polyhedral.bounded (the deadline holds)


def closure_of(u: isl.UnionMap) -> tuple:
    """isl's transitive closure of `u` (closure, exact), or TooComplex when `u` has more than
    CLOSURE_PIECES pieces or CLOSURE_DIVS integer divisions (valueflow.TooComplex)."""
    pieces, divs = 0, 0

    def count(m):
        nonlocal pieces, divs
        for b in m.get_basic_maps():
            pieces += 1
            divs += b.dim(isl.dim_type.div)
    u.foreach_map(count)
    if pieces > CLOSURE_PIECES or divs > CLOSURE_DIVS:
        raise TooComplex(f"the value flow's transitive closure is too complex for isl ({pieces} pieces, "
                         f"{divs} integer divisions)")
    if pieces <= CLOSURE_FORK_PIECES:
        return u.transitive_closure()

    def closure_text():
        closure, exact = u.transitive_closure()
        return str(closure), exact
    # isl's closure may count no operation for seconds, so neither the budget's watchdog
    # (it needs the GIL, which islpy holds through the call) nor core/native_abort.py (isl
    # checks its abort flag at counted operations) stops it (a fuzz example's closure ran
    # 47 s at a 5 s deadline): a large one runs where the deadline can stop it; a stopped
    # one is an isl.Error, as an aborted isl call
    text, exact = bounded(closure_text)
    return isl.UnionMap.read_from_str(u.get_ctx(), text), exact


def _mattering(m: KernelModel, f: ValueFlow) -> isl.UnionSet:
    """The instances whose reads decide an observable value: the final writers of observable
    cells, every instance without an effective store (a no-op store writes back what it
    read), and, transitively, the last writers of their reads (isl's transitive closure; an
    inexact closure over-approximates, which only keeps more reads). The reads of any other
    instance feed only values that are overwritten before anything observable sees them."""
    reads = None
    for st, k, _ in f.reads():
        r = f.source_of(st, k).apply_domain(_rename(m, st, k))  # x -> the write it reads
        reads = r if reads is None else reads.union(r)
    seeds = m.domain.subtract(m.writes.domain())
    for _, cell in f.observable_cells():
        seeds = seeds.union(f.source.intersect_domain(isl.UnionSet.from_set(cell.domain())).range())
    if reads is None or reads.is_empty():
        return seeds
    closure, _exact = closure_of(reads)
    return seeds.union(seeds.apply(closure))


def value_violations(before: KernelModel, after: KernelModel, bef: isl.UnionMap, equal: isl.UnionMap,
                     reversed_reductions: isl.UnionMap) -> Violations:
    """The value-based violations of an op, over after instances (module docstring). `bef`:
    the after kernel's order; `equal`: pairs of before instances that store equal values;
    `reversed_reductions`: accumulation pairs (after instances) the op reverses, a
    reassociation. Raises Unsupported when either kernel is not exactly modelled."""
    if any(not after.is_exact(st) for st in after.stmts):
        raise Unsupported("the kernel after the op has data-dependent guards, bounds or indices")
    c = _Constraints(before, equal)
    pb, pa = before.prov, after.prov
    inv = pa.reverse()
    ident_o = pb.range().identity()
    red = reversed_reductions

    def to_after(u: isl.UnionMap) -> isl.UnionMap:
        """Pairs of before instances as pairs of after instances (every copy of each),
        dropping pairs of one original instance (copies store equal values)."""
        o = u.apply_domain(pb).apply_range(pb).subtract(ident_o)
        return o.apply_domain(inv).apply_range(inv)

    def broken(u: isl.UnionMap) -> isl.UnionMap:
        """[x -> w'] -> w (after instances) where w' runs neither before w nor after x."""
        o = u.apply_domain(pb.product(pb)).apply_range(pb)
        o = o.curry().subtract_range(ident_o.wrap()).uncurry().subtract_domain(ident_o.wrap())
        a = o.apply_domain(inv.product(inv)).apply_range(inv)
        a = a.curry().subtract_range(bef.wrap()).uncurry().subtract_domain(bef.wrap())
        # a reassociation, not a violation: w' and w accumulate into one reduction and the op
        # reverses them while w' still runs before the read x (or x accumulates too); or x and
        # w' accumulate into one reduction and w' now runs first (x sees a partial sum)
        reassoc = a.curry().intersect_range(red.wrap()).uncurry()
        reassoc = reassoc.intersect_domain(bef.union(red).reverse().wrap())
        return a.subtract(reassoc).subtract_domain(red.wrap())

    # reads: some copy of the last writer must run before the read with no other store between
    # (copies of one instance store equal values: any of them will do)
    flows = to_after(c.flow)  # w -> x, every copy of the last writer
    cand = flows.intersect(bef).union(flows.intersect(red)).reverse()  # x -> a copy before it
    over, clob = broken(c.over), broken(c.clob)
    dirty = over.union(clob).curry().range_factor_range()  # x -> a copy with a store between
    need = flows.reverse().apply_range(pa)  # x -> the original last writer
    bad = need.subtract(cand.subtract(dirty).apply_range(pa))
    no_cand = bad.subtract(cand.apply_range(pa)).apply_range(inv)  # x -> copies, none before x
    bad_cand = bad.apply_range(inv).intersect(cand).wrap()  # [x -> copy]: a store between
    over_v = over.curry().range_reverse().uncurry().intersect_domain(bad_cand).curry().range_reverse().uncurry()
    clob_v = clob.curry().range_reverse().uncurry().intersect_domain(bad_cand).curry().range_reverse().uncurry()
    # final values: some copy of the cell's final writer must run after every other store
    finals = to_after(c.final)  # w' -> a copy of the final writer
    late = finals.subtract(bef).subtract(red)  # w' not before that copy
    copies = finals.range()
    lost = copies.apply(pa).subtract(copies.subtract(late.range()).apply(pa))  # no clean copy
    # partial sums seen outside their reduction: the same terms before the read
    part_b = to_after(c.partial_before).subtract(bef)
    part_a = to_after(c.partial_after).subtract(bef)
    return Violations(flow=flows.intersect(no_cand.reverse()).union(part_b),
                      overwrite=over_v.curry().range().unwrap(),
                      clobber=clob_v.domain().unwrap().union(to_after(c.entry).subtract(bef).subtract(red)).union(
                          part_a), final=late.intersect_range(lost.apply(inv)), readers=over_v.curry())
