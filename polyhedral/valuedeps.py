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

from .bounded import CpuLimit, bounded
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
    """The value-based constraints of the kernel before the op, over its own instances, for
    the reads of the instances in `matter` (the others' reads decide nothing observable,
    `_Mattering`). Without `matter`: for every read, to be `restricted` (once per bound of the
    mattering instances: the flow analysis and the orders are built once). (`_Keep` restricts.)"""

    def __init__(self, model: KernelModel, equal: isl.UnionMap, f: ValueFlow, matter: isl.UnionSet | None = None):
        m = self.m = model
        self.f = f
        empty = isl.UnionMap.empty(model.domain.get_space())
        self.flow = empty  # w -> x
        self.over = empty  # [x -> w'] -> w, w' before w
        self.clob = empty  # [x -> w'] -> w, w' after x
        self.entry = empty  # x -> w' (x reads the cell's entry value)
        self.final = empty  # w' -> w_f
        stores_of = m.writes.reverse()  # cell -> store instances
        ident = m.domain.identity()
        keep = None if matter is None else _Keep(model, matter)
        live = (lambda u: u) if keep is None else keep.domain
        triples = empty
        for st, k, _ in f.reads():
            ren = _rename(m, st, k)
            src = f.source_of(st, k)  # R -> w
            others = isl.UnionMap.from_map(f.read_map(st, k)).apply_range(stores_of).subtract(src)
            self.flow = self.flow.union(live(src.apply_domain(ren)).reverse())
            seen = src.domain()
            t = others.intersect_domain(seen).range_product(src).apply_domain(ren)  # x -> [w' -> w]
            triples = triples.union(live(t).subtract_range(equal.wrap()))
            entry = live(others.subtract_domain(seen).apply_domain(ren))
            self.entry = self.entry.union(entry.subtract(ident))
        if keep is not None:
            self.partial_before, self.partial_after = self._partial_sums(m, keep)
        triples = triples.uncurry().subtract_domain(ident.wrap())  # [x -> w'] -> w, w' is not x
        # which side of the live range (w, x) each other store w' is on, in the serial order
        curried = triples.curry()
        self.over = curried.intersect_range(f.order.wrap()).uncurry()
        self.clob = curried.subtract_range(f.order.wrap()).uncurry()  # (triples - over, without
        # subtracting a relation of many pieces from its own superset: seconds, fuzz n2026/slow03)
        for _, cell in f.observable_cells():
            sink = isl.UnionMap.from_map(cell)
            src = f.source.intersect_domain(sink.domain())  # OUT -> w_f
            others = sink.apply_range(stores_of).subtract(src)  # OUT -> w'
            self.final = self.final.union(others.reverse().apply_range(src).subtract(equal))

    def restricted(self, matter: isl.UnionSet, below: bool = False) -> "_Constraints":
        """The constraints (built for every read) of the reads of the instances in `matter`
        (the final values and the store orders stay). Each read's constraints are kept or
        dropped whole, so a larger `matter` gives a superset of every kind of violation
        (`value_violations`). `below`: for a `matter` below the exact one, the partial sums'
        chains by one step instead of isl's closure (fewer pairs: a subset of the violations;
        a closure of a restricted flow can have more pieces than the exact one's, up to
        TooComplex)."""
        c = object.__new__(_Constraints)
        c.m, c.f, c.final = self.m, self.f, self.final
        c.flow = self.flow.intersect_range(matter)
        c.partial_before, c.partial_after = c._partial_sums(c.m, None, below)
        c.entry = self.entry.intersect_domain(matter)
        c.over = self.over.curry().intersect_domain(matter).uncurry()
        c.clob = self.clob.curry().intersect_domain(matter).uncurry()
        return c

    def _partial_sums(self, m: KernelModel, keep: "_Keep | None", below: bool = False):
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
        preds = links if below else closure_of(links)[0]  # inexact: more pairs, only stricter
        seen = self.flow.intersect_domain(acc).subtract(red)  # w -> x, x outside the chain
        if keep is not None:
            seen = keep.range(seen)
        before = seen.union(preds.reverse().apply_range(seen))  # a -> x
        after = seen.reverse().apply_range(preds.reverse())  # x -> a
        return before, after


class _Keep:
    """Relations restricted to the mattering instances `matter`: the dead instances (the
    model's others) subtracted while `matter` has at most DEAD_PIECES pieces (that
    representation is the one the counterexamples of tests/goldens were sampled from), else
    `matter` intersected: the same pairs, but subtracting a mattering set of many pieces from
    the domain cost isl seconds (fuzz n2026/slow03: 1.3 s of a dependence obligation that
    then ran out of its budget)."""

    def __init__(self, model: KernelModel, matter: isl.UnionSet):
        pieces = []
        matter.foreach_set(lambda s: pieces.append(s.n_basic_set()))
        self.matter = matter
        self.dead = model.domain.subtract(matter) if sum(pieces) <= DEAD_PIECES else None

    def domain(self, u: isl.UnionMap) -> isl.UnionMap:
        return u.intersect_domain(self.matter) if self.dead is None else u.subtract_domain(self.dead)

    def range(self, u: isl.UnionMap) -> isl.UnionMap:
        return u.intersect_range(self.matter) if self.dead is None else u.subtract_range(self.dead)


DEAD_PIECES = 8  # pieces of the mattering set up to which the dead ones are subtracted (`_Keep`)
CLOSURE_PIECES = 32  # basic maps: the corpus's largest closure has 7
CLOSURE_DIVS = 64  # integer divisions over all pieces: the corpus's have none
CLOSURE_FORK_PIECES = 8  # more pieces: computed under polyhedral.bounded (the deadline holds)


def _size(u: isl.UnionMap) -> tuple:
    """(pieces, integer divisions) of `u`, over all its basic maps."""
    pieces, divs = 0, 0

    def count(m):
        nonlocal pieces, divs
        for b in m.get_basic_maps():
            pieces += 1
            divs += b.dim(isl.dim_type.div)
    u.foreach_map(count)
    return pieces, divs


def _refuse_too_complex(u: isl.UnionMap) -> int:
    """The number of pieces of `u`; TooComplex when isl's closure of it is not attempted."""
    pieces, divs = _size(u)
    if pieces > CLOSURE_PIECES or divs > CLOSURE_DIVS:
        raise TooComplex(f"the value flow's transitive closure is too complex for isl ({pieces} pieces, "
                         f"{divs} integer divisions)")
    return pieces


def closure_of(u: isl.UnionMap, cpu_limit: float | None = None) -> tuple:
    """isl's transitive closure of `u` (closure, exact), or TooComplex when `u` has more than
    CLOSURE_PIECES pieces or CLOSURE_DIVS integer divisions (valueflow.TooComplex).
    `cpu_limit`: a large one's CPU seconds (bounded.CpuLimit past them)."""
    if _refuse_too_complex(u) <= CLOSURE_FORK_PIECES:
        return u.transitive_closure()

    def closure_text():
        closure, exact = u.transitive_closure()
        return str(closure), exact
    # isl's closure may count no operation for seconds, so neither the budget's watchdog
    # (it needs the GIL, which islpy holds through the call) nor core/native_abort.py (isl
    # checks its abort flag at counted operations) stops it (a fuzz example's closure ran
    # 47 s at a 5 s deadline): a large one runs where the deadline can stop it; a stopped
    # one is an isl.Error, as an aborted isl call
    text, exact = bounded(closure_text, cpu_limit=cpu_limit)
    return isl.UnionMap.read_from_str(u.get_ctx(), text), exact


MATTERING_STEPS = 4  # iterations of each bound of the mattering instances (`_Mattering.bounds`)
# CPU seconds a closure of many pieces gets before the bounds are tried (most take less than
# 0.05 s; the slow ones of fuzz campaigns run past the 5 s deadline)
QUICK_CLOSURE_CPU = 0.25


class _Mattering:
    """The instances whose reads decide an observable value: the final writers of observable
    cells, every instance without an effective store (a no-op store writes back what it
    read), and, transitively, the last writers of their reads. The reads of any other
    instance feed only values that are overwritten before anything observable sees them.

    That set is the least fixpoint of F(X) = seeds | reads(X) (`reads`: x -> the write it
    reads; seeds: the first two kinds). isl's transitive closure gives it (`exact`; an inexact
    closure over-approximates, which only keeps more reads), but a closure of many pieces can
    run for minutes. `bounds` is cheap: F^k(empty) is below the fixpoint and F^k(every
    instance) above it (F is monotone and reads only go back in time), and where the two
    meet, or F^k(empty) is a fixpoint, that is the set."""

    def __init__(self, m: KernelModel, f: ValueFlow):
        self.m = m
        reads = None
        for st, k, _ in f.reads():
            r = f.source_of(st, k).apply_domain(_rename(m, st, k))  # x -> the write it reads
            reads = r if reads is None else reads.union(r)
        seeds = m.domain.subtract(m.writes.domain())
        for _, cell in f.observable_cells():
            seeds = seeds.union(f.source.intersect_domain(isl.UnionSet.from_set(cell.domain())).range())
        self.reads, self.seeds = reads, seeds

    @property
    def trivial(self) -> bool:
        """No read sees a store: the seeds are the set."""
        return self.reads is None or self.reads.is_empty()

    @property
    def cheap_closure(self) -> bool:
        """The closure runs in process in milliseconds (or is refused: TooComplex)."""
        return self.trivial or _refuse_too_complex(self.reads) <= CLOSURE_FORK_PIECES

    def exact(self, cpu_limit: float | None = None) -> isl.UnionSet:
        """The set by isl's closure (TooComplex or isl.Error at the deadline, as closure_of;
        CpuLimit past `cpu_limit`)."""
        if self.trivial:
            return self.seeds
        closure, _exact = closure_of(self.reads, cpu_limit)
        return self.seeds.union(self.seeds.apply(closure))

    def bounds(self) -> tuple:
        """(below, above): subsets of the domain with below <= the set <= above; one object
        when the iterations found the set."""
        below = self.seeds
        for _ in range(MATTERING_STEPS):
            step = below.union(below.apply(self.reads))
            if step.is_subset(below):
                return below, below
            below = step
        above = self.m.domain
        for _ in range(MATTERING_STEPS):
            above = self.seeds.union(above.apply(self.reads))
            if above.is_subset(below):
                return below, below
        return below, above


def value_violations(before: KernelModel, after: KernelModel, bef: isl.UnionMap, equal: isl.UnionMap,
                     reversed_reductions: isl.UnionMap) -> Violations:
    """The value-based violations of an op, over after instances (module docstring). `bef`:
    the after kernel's order; `equal`: pairs of before instances that store equal values;
    `reversed_reductions`: accumulation pairs (after instances) the op reverses, a
    reassociation. Raises Unsupported when either kernel is not exactly modelled."""
    if any(not after.is_exact(st) for st in after.stmts):
        raise Unsupported("the kernel after the op has data-dependent guards, bounds or indices")
    f = ValueFlow(before)  # Unsupported propagates
    mat = _Mattering(before, f)

    def exactly(matter: isl.UnionSet) -> Violations:
        c = _Constraints(before, equal, f, matter)
        return _violations(c, after, bef, reversed_reductions)
    if mat.cheap_closure:
        return exactly(mat.exact())
    # a closure of many pieces: milliseconds to minutes. Waited for while it is quick, then
    # bounds of the mattering instances (`_Mattering.bounds`; equal bounds are the set)
    try:
        return exactly(mat.exact(QUICK_CLOSURE_CPU))
    except CpuLimit:
        pass
    below, above = mat.bounds()
    if below is above:
        return exactly(below)
    # else the violations with the bounds (`_by_bounds`), in a child (polyhedral.bounded) so
    # that when they decide nothing the closure still has the whole budget (a stopped child
    # decides nothing; at the deadline the closure stops too)
    c = _Constraints(before, equal, f)
    try:
        decided = bounded(lambda: _by_bounds(c, below, above, after, bef, reversed_reductions))
    except isl.Error:
        decided = None
    if decided == "none":
        empty = isl.UnionMap.empty(after.domain.get_space())
        return Violations(empty, empty, empty, empty, empty)
    if decided == "below":  # recomputed here: the same sets, cheaper than their texts
        return _violations(c.restricted(below, below=True), after, bef, reversed_reductions)
    return exactly(mat.exact())


def _by_bounds(c: _Constraints, below: isl.UnionSet, above: isl.UnionSet, after: KernelModel,
               bef: isl.UnionMap, red: isl.UnionMap):
    """"none" when there are no violations, "below" when the reads below the mattering
    instances have some, else None. Violations grow with the instances that matter
    (`restricted`): none above means none at all; some below are violations of reads that do
    matter. A bound's partial-sum closure can be refused (TooComplex: the restricted flow can
    have more pieces than the exact one): then that bound decides nothing."""
    try:
        if _violations(c.restricted(above), after, bef, red).is_empty():
            return "none"
    except TooComplex:
        pass
    try:
        if not _violations(c.restricted(below, below=True), after, bef, red).is_empty():
            return "below"
    except TooComplex:
        pass
    return None


def _violations(c: _Constraints, after: KernelModel, bef: isl.UnionMap, red: isl.UnionMap) -> Violations:
    """`value_violations` for the constraints `c` (restricted to the reads that matter)."""
    before = c.m
    pb, pa = before.prov, after.prov
    inv = pa.reverse()
    ident_o = pb.range().identity()

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
