"""Barrier phases of a GPU kernel: which hardware instances order each other.

Model. Every top-level statement is a launch. Inside it every instance is extended with the
hardware coordinates of the thread that executes it, `X_s[i0.., h0..h5]` (h0..h2 the block
index x/y/z, h3..h5 the thread index x/y/z): a coordinate equals the iterator of the enclosing
loop bound to that axis, and is free over the launch's extent when no enclosing loop binds it
but some enclosing loop binds another axis of the same kind (a statement inside a thread.x
loop only runs for every thread.y). The one definition shared with the interpreter, the CUDA
backend and the emulator (README "Semantics"): a statement (assignment,
zero, tensor-core block) outside every thread loop is executed once, by thread 0 of the block
(h3 = h4 = h5 = 0), and one outside every block loop by block 0 only; a barrier is reached by
every thread of the block wherever it sits. The extent of an axis is the maximum upper bound of
its loops (a thread index is the iterator value, as in codegen/gpu_lowering.py).

Phases. Every thread executes the nest in its own program order (serial and unrolled loops in
order, its own hardware index for hardware loops). A barrier instance is the barrier with the
values of its enclosing non-hardware iterators, in one block. When every thread of the block
reaches each barrier instance (barrier_uniformity, checked exactly here), x (thread t1) and
y (thread t2, same block) are ordered exactly when some barrier instance B has x before B in
t1's order and B before y in t2's order; phase(x) = the number of barrier instances before x
in its thread, and "no such B either way" is "phase(x) == phase(y)". The relation is built by
composition (`Lt ; same barrier instance ; Lt`), so it is exact for barriers inside serial
loops with any uniform bounds (also bounds on block indices), under uniform conditions, and it
catches the hazard between the end of one iteration and the start of the next (a tile reused
without a trailing barrier): the compute of ko and the load of ko + 1 have no barrier between.

Divergent barriers (refuted by barrier_uniformity) are not counted as ordering anything (a
thread that skips one is not held by it); barriers that cannot be modelled exactly (under a
data-dependent condition or loop, or inside a vectorized loop) make a race that only they could
remove "unknown".
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import islpy as isl

from verified_sched.core import ir
from verified_sched.core.ir import For
from verified_sched.core.counterexample import Counterexample, Instance, Thread
from verified_sched.core.message import Message
from . import pairs
from .affine import NonAffine, aff, join_and
from .memo import isl_map, isl_set
from .describe import coords, param_values
from .model import KernelModel, Stmt, safe_name, lex_before

AXES = ir.HW_AXES  # h0..h5
H = [f"h{k}" for k in range(6)]


@dataclass
class Site:
    """One barrier occurrence: a Stmt-shaped record (so the model's domain text applies)."""

    stmt: Stmt
    loc: object
    status: str = "proved"  # barrier_uniformity of this site: proved | refuted | unknown
    reason: object = ""  # str, or a Message when it quotes the barrier's position
    witness: Counterexample | None = None


def _barrier_sites(model: KernelModel) -> list:
    """Barrier occurrences, with loops/guards/schedule as the model built them."""
    return [Site(st, st.node.loc) for st in model.barrier_stmts]


class Phases:
    """Extended instances, barrier sites, uniformity and the race relation of one kernel."""

    def __init__(self, model: KernelModel):
        self.model = model
        self.sites = _barrier_sites(model)
        self.tops = sorted({st.top for st in model.stmts} | {b.stmt.top for b in self.sites})
        self.unsupported = ""  # why the geometry has no affine form (then nothing is decided)
        self.ranges = {}
        for top in self.tops:
            try:
                self.ranges[top] = self._ranges(top)
            except NonAffine as exc:
                self.unsupported = f"the extent of a hardware loop is not affine ({exc})"
        if not self.unsupported:
            for site in self.sites:
                self._uniformity(site)

    # ------------------------------------------------------------ geometry

    def _ranges(self, top: int) -> dict:
        """axis index -> constraint text of its coordinate over the launch's extent."""
        stmt = self.model.kernel.body[top]
        loops = [n for n in ir.walk(stmt) if isinstance(n, For) and n.axis in AXES]
        names = dict(self.model.pnames)
        names.update({n.var: H[AXES.index(n.axis)] for n in loops if n.axis.startswith("block")})
        out = {}
        for k, ax in enumerate(AXES):
            his = [aff(n.hi, names if ax.startswith("thread") else self.model.pnames) for n in loops if n.axis == ax]
            out[k] = (f"0 <= {H[k]} and ({' or '.join(f'{H[k]} < {h}' for h in his)})" if his
                      else f"{H[k]} = 0")
        return out

    def xname(self, st: Stmt) -> str:
        return f"X_{st.name}"

    def xtup(self, st: Stmt, prefix="i", hp="h") -> str:
        return f"{self.xname(st)}[{', '.join(st.dims(prefix) + [f'{hp}{k}' for k in range(6)])}]"

    def hw_text(self, st: Stmt) -> str:
        parts = []
        barrier = isinstance(st.node, ir.Barrier)
        for k, ax in enumerate(AXES):
            bound = [f"i{d} = {H[k]}" for d, lp in enumerate(st.loops) if lp.axis == ax]
            kind = ax.split(".")[0]
            leader = not barrier and not any(lp.axis.startswith(kind) for lp in st.loops)
            parts += bound if bound else [f"{H[k]} = 0"] if leader else [self.ranges[st.top][k]]
            parts.append(f"{H[k]} >= 0")
        return join_and(parts)

    def xdomain(self, st: Stmt) -> isl.Set:
        m = self.model
        return isl_set(m.space(f"{self.xtup(st)} : {m.domain_text(st)} and {self.hw_text(st)}"))

    @cached_property
    def xdomains(self) -> dict:
        return {st.name: self.xdomain(st) for st in self.model.stmts}

    def proj(self, st: Stmt) -> isl.Map:
        """Extended instance -> model instance."""
        m = self.model
        return isl_map(m.space(f"{self.xtup(st)} -> {m.tup(st)}")).intersect_domain(self.xdomains[st.name])

    # ------------------------------------------------------------ uniformity

    def _uniformity(self, site: Site) -> None:
        """Every thread of a block reaches each instance of the barrier, or none does."""
        m, st = self.model, site.stmt
        if any(lp.axis == "vectorized" for lp in st.loops):
            site.status, site.reason = "unknown", "a barrier inside a vectorized loop has no defined meaning"
            return
        dom = self.xdomain(st)
        if st.name in m.approximate or st.data_guards(m.pnames):
            site.status, site.reason = "unknown", "the barrier sits under a data-dependent condition or loop bound"
            return
        serial = [f"i{d}" for d, lp in enumerate(st.loops) if lp.axis not in AXES]
        key = serial + H[:3]
        reach = dom.apply(isl_map(m.space(f"{self.xtup(st)} -> R[{', '.join(key + H[3:])}]")))
        inst = reach.apply(isl_map(m.space(f"R[{', '.join(key + H[3:])}] -> I[{', '.join(key)}]")))
        thr = join_and([self.ranges[st.top][k] for k in (3, 4, 5)])
        full = inst.apply(isl_map(m.space(f"I[{', '.join(key)}] -> R[{', '.join(key + H[3:])}] : {thr}")))
        missing = full.subtract(reach)
        if missing.is_empty():
            return
        pt = missing.sample_point()
        p, [(_, vals)] = coords(pt)
        params = param_values(m, p)
        fixed = join_and([f"{n} = {v}" for n, v in zip(key, vals)] +
                         [f"{m.pnames[k]} = {v}" for k, v in params.items()])
        other = reach.intersect(isl_set(m.space(f"R[{', '.join(key + H[3:])}] : {fixed}"))).sample_point()
        _, [(_, ovals)] = coords(other)
        top_axes = self.axes(st.top)
        block = {a: v for a, v in zip(AXES[:3], vals[len(serial):len(serial) + 3]) if a in top_axes}
        miss_t = {a: v for a, v in zip(AXES[3:], vals[len(key):]) if a in top_axes}
        reach_t = {a: v for a, v in zip(AXES[3:], ovals[len(key):]) if a in top_axes}
        iters = {lp.var: v for lp, v in zip([lp for lp in st.loops if lp.axis not in AXES], vals)}
        where = site.loc if site.loc is not None else f"barrier {st.name}"  # a position, as data
        site.status = "refuted"
        site.reason = Message.quoting(
            f"the barrier at {where} is reached by thread {_kv(reach_t)} but not by thread {_kv(miss_t)} "
            f"of block {_kv(block) or '0'}" + (f" (iteration {_kv(iters)})" if iters else "") + f" at {_kv(params)}",
            (site.loc,) if site.loc is not None else ())
        site.witness = Counterexample(Instance(params), threads=(Thread(block, reach_t, True), Thread(block, miss_t, False)),
                                      barrier=where, extra={"iteration": iters})

    def axes(self, top: int) -> set:
        stmt = self.model.kernel.body[top]
        return {n.axis for n in ir.walk(stmt) if isinstance(n, For) and n.axis in AXES}

    # ------------------------------------------------------------ order and races

    def _pairs(self, cons_fn) -> isl.UnionMap:
        m = self.model
        maps = []
        for s in m.stmts:
            for t in m.stmts:
                if s.top != t.top:
                    continue
                c = cons_fn(s, t)
                if c is None:
                    continue
                mp = isl_map(m.space(f"{self.xtup(s, 'a', 'x')} -> {self.xtup(t, 'b', 'y')} : {c}"))
                maps.append(mp.intersect_domain(self.xdomains[s.name]).intersect_range(self.xdomains[t.name]))
        return m.union_map(maps)

    def xaccess(self, st: Stmt, acc) -> isl.Map:
        m = self.model
        outs, extra, _ = m.index_text(st, acc)
        mem = m.program.tensor(acc.tensor).memory
        pre = H[:3] if mem == "shared" else H if mem == "local" else []
        return isl_map(m.space(f"{self.xtup(st)} -> T_{safe_name(acc.tensor)}[{', '.join(pre + outs)}] : {extra}")
                       ).intersect_domain(self.xdomains[st.name])

    @cached_property
    def xconflicts(self) -> isl.UnionMap:
        m = self.model
        w = m.union_map(self.xaccess(st, a) for st in m.stmts for a in st.accesses if a.write and not a.noop)
        r = m.union_map(self.xaccess(st, a) for st in m.stmts for a in st.accesses if not a.write or a.noop)
        a = w.union(r)
        return w.apply_range(a.reverse()).union(a.apply_range(w.reverse()))

    def separated(self, sites) -> isl.UnionMap:
        """x -> y (extended, same block): a barrier instance of `sites` lies between them,
        x before it in x's thread, it before y in y's thread."""
        m = self.model
        sep = None
        for site in sites:
            b = site.stmt
            bdom = self.xdomain(b)
            serial = [d for d, lp in enumerate(b.loops) if lp.axis not in AXES]
            same = join_and([f"a{d} = b{d}" for d in serial] + [f"x{k} = y{k}" for k in range(3)])
            same_b = isl_map(m.space(f"{self.xtup(b, 'a', 'x')} -> {self.xtup(b, 'b', 'y')} : {same}"))
            same_b = same_b.intersect_domain(bdom).intersect_range(bdom)
            to_b, from_b = [], []
            for s in m.stmts:
                if s.top != b.top:
                    continue
                heq = [f"x{k} = y{k}" for k in range(6)]
                c = lex_before(s, b)
                if c is not None:
                    mp = isl_map(m.space(f"{self.xtup(s, 'a', 'x')} -> {self.xtup(b, 'b', 'y')} : "
                                         f"{join_and([c] + heq)}"))
                    to_b.append(mp.intersect_domain(self.xdomains[s.name]).intersect_range(bdom))
                c = lex_before(b, s)
                if c is not None:
                    mp = isl_map(m.space(f"{self.xtup(b, 'a', 'x')} -> {self.xtup(s, 'b', 'y')} : "
                                         f"{join_and([c] + heq)}"))
                    from_b.append(mp.intersect_domain(bdom).intersect_range(self.xdomains[s.name]))
            if not to_b or not from_b:
                continue
            part = m.union_map(to_b).apply_range(isl.UnionMap.from_map(same_b)).apply_range(m.union_map(from_b))
            sep = part if sep is None else sep.union(part)
        return sep if sep is not None else m.union_map([])

    @cached_property
    def same_block_other_thread(self) -> isl.UnionMap:
        return self._pairs(same_block_other_thread_cond)

    @cached_property
    def other_block(self) -> isl.UnionMap:
        return self._pairs(other_block_cond)

    def good_sites(self) -> list:
        return [s for s in self.sites if s.status == "proved"]

    def unclear_sites(self) -> list:
        return [s for s in self.sites if s.status == "unknown"]

    def restrict_pairs(self, rel: isl.UnionMap, cons_fn) -> isl.UnionMap:
        """`rel` (pairs of extended instances, each within its statement's xdomain, like
        xconflicts) intersected with `_pairs(cons_fn)`: the same set, built only for the
        statement pairs `rel` relates (polyhedral/pairs.py). The constraint text does not
        depend on the statements, so one map per shape is parsed and its tuples renamed."""
        m = self.model
        shapes = {}  # (in dims, out dims, text) -> the constraint map

        def constraint(s, t):
            c = cons_fn(s, t) if s.top == t.top else None
            if c is None:
                return None
            shape = (s.depth, t.depth, c)
            if shape not in shapes:
                a = [f"a{d}" for d in range(s.depth)] + [f"x{k}" for k in range(6)]
                b = [f"b{d}" for d in range(t.depth)] + [f"y{k}" for k in range(6)]
                shapes[shape] = isl_map(m.space(f"S[{', '.join(a)}] -> T[{', '.join(b)}] : {c}"))
            return shapes[shape].set_tuple_name(isl.dim_type.in_, self.xname(s)).set_tuple_name(
                isl.dim_type.out, self.xname(t))

        out = pairs.restrict(rel, {self.xname(st): st for st in m.stmts}, constraint, m.union_map)
        return rel.intersect(self._pairs(cons_fn)) if out is None else out

    @cached_property
    def races(self) -> tuple:
        """(intra-block racing pairs, cross-block racing pairs), extended instances."""
        conf = self.xconflicts
        intra = self.restrict_pairs(conf, same_block_other_thread_cond)
        if self.good_sites() and not intra.is_empty():
            sep = self.separated(self.good_sites())
            intra = intra.subtract(sep).subtract(sep.reverse())
        cross = self.restrict_pairs(conf, other_block_cond)
        return intra, cross

    def exact_pairs(self, rel: isl.UnionMap):
        """(pairs between exactly modelled statements, the rest)."""
        m = self.model
        ex = None
        for st in m.stmts:
            if m.is_exact(st):
                d = isl.UnionSet.from_set(self.xdomains[st.name])
                ex = d if ex is None else ex.union(d)
        if ex is None:
            return rel.subtract(rel), rel
        exact = rel.intersect_domain(ex).intersect_range(ex)
        return exact, rel.subtract(exact)

    def to_instances(self, rel: isl.UnionMap) -> isl.UnionMap:
        """Extended pairs -> model instance pairs."""
        p = self.model.union_map(self.proj(st) for st in self.model.stmts)
        return rel.apply_domain(p).apply_range(p)

    def phase_of(self, st: Stmt, values: list, params: dict) -> int:
        """The number of (uniform) barrier instances a thread passes before this extended
        instance (params fixed in `values`' point): the phase named in counterexamples."""
        m = self.model
        n = 0
        for site in self.good_sites():
            b = site.stmt
            if b.top != st.top:
                continue
            c = lex_before(b, st)
            if c is None:
                continue
            heq = [f"x{k} = y{k}" for k in range(6)]
            fix = [f"b{d} = {v}" for d, v in enumerate(values[:st.depth])]
            fix += [f"y{k} = {v}" for k, v in enumerate(values[st.depth:])]
            fix += [f"{m.pnames[k]} = {v}" for k, v in params.items()]
            mp = isl_map(m.space(f"{self.xtup(b, 'a', 'x')} -> {self.xtup(st, 'b', 'y')} : "
                                 f"{join_and([c] + heq + fix)}")).intersect_domain(self.xdomain(b))
            dom = mp.domain()
            pts = []
            dom.foreach_point(pts.append)
            n += len(pts)
        return n


def same_block_other_thread_cond(s, t) -> str:
    return join_and([f"x{k} = y{k}" for k in range(3)] + [" or ".join(f"x{k} != y{k}" for k in range(3, 6))])


def other_block_cond(s, t) -> str:
    return " or ".join(f"x{k} != y{k}" for k in range(3))


def _kv(d: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items())

