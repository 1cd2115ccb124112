"""The polyhedral model of one kernel: statement instances, accesses, provenance and order.

Every assignment (and every whole-tensor `zero`, as a statement over the tensor's storage
cells) becomes a statement with a parametric iteration domain. Data-dependent guards are
"may": the domain is their sound over-approximation (`approx_cond(over=True)`), and the
guards themselves are kept as IR so coverage can demand the same guard before and after.

Original instances: an assignment maps through its provenance to `O_<sid>[orig iters]`; a
constant-zero store (a `zero T` or its expansion) is identified by the cell it writes,
`Z_<T>[cell]`, so `expand_zero` needs no provenance of its own.

Reads are evaluated lazily (lazy.py): a read in a `where` branch or right of `and`/`or`
carries the conditions it is evaluated under (`Access.context`; in_bounds checks it
there). A blend store `t[I] = where(c, v, t[I])` takes effect only under c (`effective_domains`):
its stores and provenance are restricted to c, its reads (all of them) still count.

Execution order is `before`: top-level statements run one after another;
serial and unrolled loops order by iterator; iterations of vectorized loops are unordered;
instances whose hardware indices differ are unordered anywhere inside one top-level statement.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import islpy as isl

from verified_sched import ir
from verified_sched.ir import Assign, Float, For, If, Int, Load, TensorCore, Var, Zero
from .affine import NonAffine, TRUE, aff, approx_cond, cond, conjuncts, is_data_cond, join_and, negate
from . import pairs
from .lazy import blend_of, reads_in_context, where_path
from .memo import memoized
from .order import piece

HW_AXES = ir.HW_AXES
BLOCK_AXES = ("block.x", "block.y", "block.z")
ORDERED = ("serial", "unrolled")


@dataclass
class Loop:
    var: str
    lo: object
    hi: object
    axis: str
    key: tuple  # position path of the loop: identifies one loop occurrence
    synthetic: bool = False  # the cell loops of a whole-tensor zero


@dataclass
class Access:
    tensor: str
    index: tuple
    write: bool
    accumulator: bool = False  # the self-read/write of an accumulation
    noop: bool = False  # the store of `t[I] = t[I]`: writes back what it read, changes nothing
    # a read inside an enclosing condition is evaluated under the conditions OUTSIDE it (and the
    # conjuncts left of it: `&&` short-circuits), not under the statement's full guard chain;
    # a read inside `where(c, a, b)` under the statement's guards and c (in a) or not c (in b).
    # None: evaluated exactly where the statement runs.
    context: tuple | None = None


@dataclass
class Stmt:
    name: str  # isl tuple name (unique in the model)
    sid: str  # original statement identity
    node: object  # the IR Assign or Zero
    loops: list
    sched: list  # [P0, loop1, P1, ..., loopd, Pd]; P are tuples of ints
    guards: list  # enclosing conditions (else-branches negated), outermost first
    top: int
    orig_tuple: str
    orig_names: tuple
    orig_exprs: tuple
    acc_op: str | None
    accesses: list
    zero_like: bool
    barrier_before: int = 0  # barriers preceding in program text (for later race analysis)
    # `t[I] = where(c, v, t[I])` with affine c: a blend; where c fails the store writes back the
    # value it read (a no-op), so the instance is effective (stores, stands for its original)
    # only under c. Its accesses all count for in_bounds, independence and race.
    blend: object = None

    @property
    def depth(self) -> int:
        return len(self.loops)

    def dims(self, prefix="i") -> list:
        return [f"{prefix}{d}" for d in range(self.depth)]

    def names(self, params: dict, prefix="i") -> dict:
        out = dict(params)
        out.update({lp.var: f"{prefix}{d}" for d, lp in enumerate(self.loops)})
        return out

    def data_guards(self, params: dict) -> list:
        names = self.names(params)
        return [c for g in self.guards for c in conjuncts(g) if is_data_cond(c, names)]

    def hw(self) -> dict:
        """hardware axis -> depth of the innermost loop bound to it."""
        return {lp.axis: d for d, lp in enumerate(self.loops) if lp.axis in HW_AXES}


def safe_name(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", s)


def original_sid(sid: str) -> str:
    """Copies of a statement (partition, materialized unroll) are `S0#k`: one original."""
    return sid.split("#", 1)[0]


def is_zero_const(e) -> bool:
    return isinstance(e, (Int, Float)) and e.value == 0


def lex_before(s: Stmt, t: Stmt, tie=lambda axis: True) -> str | None:
    """Constraint text (over a* dims of s, b* dims of t) of `s runs before t` in program order:
    serial/unrolled loops order by their iterators; a shared loop of another axis contributes
    equality of its iterators where `tie(axis)` (one thread's own index), nothing otherwise.
    None when s never runs before t."""
    disj, eq = [], []
    ss, ts = s.sched, t.sched
    j = 0
    while True:
        ps, pt = ss[2 * j], ts[2 * j]
        if ps != pt:
            if ps < pt:
                disj.append(join_and(eq))
            break
        if 2 * j + 1 >= len(ss) or 2 * j + 1 >= len(ts):
            break
        ls, lt = ss[2 * j + 1], ts[2 * j + 1]
        if ls is not lt and ls.key != lt.key:
            break
        if ls.axis in ORDERED:
            disj.append(join_and(eq + [f"a{j} < b{j}"]))
            eq.append(f"a{j} = b{j}")
        elif tie(ls.axis):
            eq.append(f"a{j} = b{j}")
        j += 1
    if not disj:
        return None
    return " or ".join(f"({d})" for d in disj)


class KernelModel:
    """isl relations of one kernel of a program (built lazily, cached)."""

    def __init__(self, program: ir.Program, kernel, extra_params: str = TRUE, tag: str = "K"):
        self.program = program
        self.tag = tag
        self.kernel = program.kernel(kernel) if isinstance(kernel, str) else kernel
        self.pnames = {p: f"p{k}" for k, p in enumerate(program.params)}
        self.pinv = {v: k for k, v in self.pnames.items()}
        self.ptuple = "[" + ", ".join(self.pnames.values()) + "]"
        cons = [cond(c, self.pnames) for c in program.constraints]
        self.param_text = join_and(cons + [extra_params])
        self.stmts: list[Stmt] = []
        self.barriers = 0
        self.barrier_stmts: list[Stmt] = []  # barrier occurrences as pseudo statements (no accesses)
        self._n = 0
        self._zero_count = {}
        self.approximate = set()  # names of statements whose model over-approximates
        self._walk(self.kernel.body, [], [], (), [], None)

    # ------------------------------------------------------------ extraction

    def _walk(self, stmts, loops, guards, pos, sched_prefix, top):
        for k, s in enumerate(stmts):
            p = pos + (k,)
            t = k if top is None else top
            match s:
                case For():
                    key = tuple(x for x in sched_prefix if isinstance(x, tuple)) + (p,)
                    lp = Loop(s.var, s.lo, s.hi, s.axis, key)
                    self._walk(s.body, loops + [lp], guards, (), sched_prefix + [p, lp], t)
                case If(cond=c):
                    self._walk(s.then, loops, guards + [c], p + (0,), sched_prefix, t)
                    self._walk(s.orelse, loops, guards + [negate(c)], p + (1,), sched_prefix, t)
                case TensorCore(lane=lane, fallback=fb):
                    g = guards + ([ir.Cmp("==", Var(lane), Int(0))] if any(l.var == lane for l in loops) else [])
                    self._walk(fb, loops, g, p + (0,), sched_prefix, t)
                case ir.Barrier():
                    self.barriers += 1
                    n = len(self.barrier_stmts)
                    self.barrier_stmts.append(Stmt(f"{self.tag}_BAR{n}", f"barrier{n}", s, list(loops),
                                                   sched_prefix + [p], list(guards), t, "", (), (), None,
                                                   [], False))
                case Assign() | Zero():
                    self._add(s, loops, guards, sched_prefix + [p], t)

    def _add(self, s, loops, guards, sched, top):
        name = f"{self.tag}_{safe_name(getattr(s, 'sid', '') or 'Z')}_{self._n}"
        self._n += 1
        if isinstance(s, Zero):
            t = self.program.tensor(s.tensor)
            cells = [Loop(f"_z{d}", Int(0), dim, "vectorized", ("zero", name, d), True)
                     for d, dim in enumerate(t.storage_dims())]
            idx = tuple(Var(c.var) for c in cells)
            zt = self._zero_tuple(s.tensor, top)
            st = Stmt(name, zt[1], s, loops + cells, sched + [c for cell in cells for c in (cell, ())],
                      guards, top, zt[0], tuple(f"c{d}" for d in range(len(idx))), idx,
                      None, [Access(s.tensor, idx, True)], True, self.barriers)
            self.stmts.append(st)
            return
        names = {**self.pnames, **{lp.var: lp.var for lp in loops}}
        blend, effective_value = blend_of(s, names)
        # a blend is an accumulation when its effective store is one
        acc = ir.accumulation(s if blend is None else ir.Assign(s.tensor, s.index, effective_value, s.sid))
        noop = s.value == Load(s.tensor, s.index)
        accesses = [Access(s.tensor, s.index, True, acc is not None, noop)]
        acc_ctx = () if blend is None else where_path(s.value, effective_value)
        if acc is not None:
            accesses.append(Access(s.tensor, s.index, False, True, context=self._ctx(guards, acc_ctx)))
        target = Load(s.tensor, s.index)
        skip_one = acc is not None
        for r, ctx in reads_in_context(s.value):
            if skip_one and r == target and ctx == acc_ctx:
                skip_one = False
                continue
            accesses.append(Access(r.tensor, r.index, False, context=self._ctx(guards, ctx)))
        for r, ctx in reads_in_context(s.index):
            accesses.append(Access(r.tensor, r.index, False, context=self._ctx(guards, ctx)))
        for k, g in enumerate(guards):
            accesses += [Access(r.tensor, r.index, False, context=tuple(guards[:k]) + ctx)
                         for r, ctx in reads_in_context(g)]
        # a constant-zero store (expand_zero's), also when a split's blend keeps the old value
        # on duplicate lanes: its effective store decides its identity (the cell it clears)
        zero_like = is_zero_const(s.value if blend is None else effective_value) and not s.sid.startswith("S")
        if zero_like:
            (otuple, sid), oexprs = self._zero_tuple(s.tensor, top), s.index
            onames = tuple(f"c{d}" for d in range(len(s.index)))
        else:
            prov = s.provenance or tuple((lp.var, Var(lp.var)) for lp in loops)
            otuple, onames, oexprs = f"O_{safe_name(s.sid)}", tuple(n for n, _ in prov), tuple(e for _, e in prov)
            sid = original_sid(s.sid)
            otuple = f"O_{safe_name(sid)}"
        self.stmts.append(Stmt(name, sid, s, list(loops), sched, list(guards), top, otuple, onames, oexprs,
                               acc[0] if acc else None, accesses, zero_like, self.barriers, blend))

    def _zero_tuple(self, tensor: str, top: int) -> tuple:
        """The original identity of a constant-zero store: its cell, and which of the kernel's
        zero statements of the tensor it belongs to (counted by top-level statement), so two
        `zero T` of unrelated phases stay two statements."""
        tops = self._zero_count.setdefault(tensor, [])
        if top not in tops:
            tops.append(top)
        k = tops.index(top)
        pre = "Z" if k == 0 else f"Z{k}"
        return f"{pre}_{safe_name(tensor)}", f"{pre}_{tensor}"

    @staticmethod
    def _ctx(guards, ctx):
        """The context of a value or index read: None (the statement's domain) outside any where."""
        return tuple(guards) + tuple(ctx) if ctx else None

    # ------------------------------------------------------------ text helpers

    def space(self, body: str) -> str:
        return f"{self.ptuple} -> {{ {body} }}"

    def tup(self, st: Stmt, prefix="i") -> str:
        return f"{st.name}[{', '.join(st.dims(prefix))}]"

    def domain_text(self, st: Stmt, prefix="i", guards=None) -> str:
        names = st.names(self.pnames, prefix)
        parts = [self.param_text]
        for d, lp in enumerate(st.loops):
            v = f"{prefix}{d}"
            try:
                parts.append(f"{aff(lp.lo, names)} <= {v}")
            except NonAffine:
                self.approximate.add(st.name)
            try:
                parts.append(f"{v} < {aff(lp.hi, names)}")
            except NonAffine:
                self.approximate.add(st.name)
        for g in st.guards if guards is None else guards:
            parts.append(approx_cond(g, names, over=True))
        return join_and(parts)

    @memoized
    def index_text(self, st: Stmt, acc: Access, prefix="i"):
        """(tuple text, extra constraints, dynamic?) of an access; dynamic dims become any
        cell of the storage extent."""
        names = st.names(self.pnames, prefix)
        t = self.program.tensor(acc.tensor)
        outs, extra, dynamic = [], [], False
        for d, e in enumerate(acc.index):
            try:
                outs.append(aff(e, names))
            except NonAffine:
                dynamic = True
                v = f"dyn{d}"
                outs.append(v)
                extra.append(f"0 <= {v} < {aff(t.storage_dims()[d], self.pnames)}")
        return outs, join_and(extra), dynamic

    def copy_indices(self, st: Stmt, tensor: str, prefix="i") -> list:
        """Which copy of `tensor` an instance of `st` accesses: its block indices for a shared
        tensor, block and thread indices for a local one (0 for an axis it is not inside:
        block 0, thread 0), nothing for a global one."""
        return self._mem_prefix(st, tensor, prefix)

    def _mem_prefix(self, st: Stmt, tensor: str, prefix="i") -> list:
        mem = self.program.tensor(tensor).memory
        hw = st.hw()
        axes = BLOCK_AXES if mem == "shared" else HW_AXES if mem == "local" else ()
        return [f"{prefix}{hw[a]}" if a in hw else "0" for a in axes]

    # ------------------------------------------------------------ relations

    @cached_property
    def domains(self) -> dict:
        return {st.name: isl.Set(self.space(f"{self.tup(st)} : {self.domain_text(st)}")) for st in self.stmts}

    @cached_property
    def domain(self) -> isl.UnionSet:
        u = isl.UnionSet.empty(isl.Space.params_alloc(isl.DEFAULT_CONTEXT, 0))
        for s in self.domains.values():
            u = u.union(isl.UnionSet.from_set(s))
        return u

    @memoized
    def access_map(self, st: Stmt, acc: Access, storage_view: bool = False, evaluated: bool = False) -> isl.Map:
        """Instance -> cell map (`storage_view`: plain cells, else memory-space-qualified).
        `evaluated`: over every point where the access is evaluated — for a read in an
        enclosing condition that is more than the statement's domain (in_bounds needs it), for a
        read inside a `where` branch less."""
        outs, extra, _ = self.index_text(st, acc)
        pre = [] if storage_view else self._mem_prefix(st, acc.tensor)
        text = self.space(f"{self.tup(st)} -> T_{safe_name(acc.tensor)}[{', '.join(pre + outs)}] : {extra}")
        if evaluated and acc.context is not None:
            where = isl.Set(self.space(f"{self.tup(st)} : {self.domain_text(st, guards=acc.context)}"))
            return isl.Map(text).intersect_domain(where)
        return isl.Map(text).intersect_domain(self.domains[st.name])

    def read_map(self, st: Stmt, acc: Access) -> isl.Map:
        """A read over the instances (of the domain) that evaluate it: a read in a `where`
        branch is not made where the branch is not taken (dependences and conflicts)."""
        m = self.access_map(st, acc, evaluated=True)
        return m if acc.context is None else m.intersect_domain(self.domains[st.name])

    @cached_property
    def unmodelled_guard_reads(self) -> set:
        """Tensors the kernel writes that an enclosing condition reads: such a read is evaluated
        also where the condition (or an inner one) fails, outside the statement's domain, where
        the dependence and race relations do not see it — so no proof may rest on them."""
        written = {a.tensor for st in self.stmts for a in st.accesses if a.write}
        return {a.tensor for st in self.stmts for a in st.accesses
                if not a.write and a.context is not None and a.tensor in written
                and not set(st.guards) <= set(a.context)}

    @cached_property
    def effective_domains(self) -> dict:
        """Per statement, the instances whose store takes effect: all of them, except for a
        blend `t[I] = where(c, v, t[I])`, whose instances where c fails store back what they read,
        and a plain `t[I] = t[I]` (what a partition leaves of such a blend), which has none."""
        out = {}
        for st in self.stmts:
            d = self.domains[st.name]
            if st.accesses[0].noop and not st.zero_like:
                d = d.subtract(d)
            elif st.blend is not None:
                d = d.intersect(isl.Set(self.space(f"{self.tup(st)} : {cond(st.blend, st.names(self.pnames))}")))
            out[st.name] = d
        return out

    def union_map(self, maps) -> isl.UnionMap:
        u = None
        for m in maps:
            m = isl.UnionMap.from_map(m) if isinstance(m, isl.Map) else m
            u = m if u is None else u.union(m)
        return u if u is not None else isl.UnionMap.empty(isl.Space.params_alloc(isl.DEFAULT_CONTEXT, 0))

    def store_map(self, st: Stmt) -> isl.Map:
        """The effective stores of a statement: `t[f] = t[g]` stores nothing where f = g."""
        w = st.accesses[0]
        m = self.access_map(st, w).intersect_domain(self.effective_domains[st.name])
        v = getattr(st.node, "value", None)
        if isinstance(v, Load) and v.tensor == w.tensor and not w.noop:
            try:
                r = self.access_map(st, Access(v.tensor, v.index, False))
            except NonAffine:
                return m
            if not self.index_text(st, Access(v.tensor, v.index, False))[2] and not self.index_text(st, w)[2]:
                m = m.subtract_domain(m.intersect(r).domain())
        return m

    @cached_property
    def writes(self) -> isl.UnionMap:
        return self.union_map(self.store_map(st) for st in self.stmts if not st.accesses[0].noop)

    @cached_property
    def reads(self) -> isl.UnionMap:
        return self.union_map(self.read_map(st, a) for st in self.stmts for a in st.accesses if not a.write)

    @cached_property
    def nonacc_reads(self) -> isl.UnionMap:
        return self.union_map(self.read_map(st, a) for st in self.stmts for a in st.accesses
                           if not a.write and not a.accumulator)

    @cached_property
    def acc_writes(self) -> isl.UnionMap:
        return self.union_map(self.access_map(st, a).intersect_domain(self.effective_domains[st.name])
                           for st in self.stmts for a in st.accesses if a.write and a.accumulator)

    @cached_property
    def accesses(self) -> isl.UnionMap:
        return self.writes.union(self.reads)

    @cached_property
    def conflicts(self) -> isl.UnionMap:
        """Pairs of instances (either order) where one writes a cell the other accesses."""
        w, a = self.writes, self.accesses
        return w.apply_range(a.reverse()).union(a.apply_range(w.reverse()))

    @memoized
    def prov_map(self, st: Stmt) -> isl.Map:
        names = st.names(self.pnames)
        outs = [aff(e, names) for e in st.orig_exprs]
        return isl.Map(self.space(f"{self.tup(st)} -> {st.orig_tuple}[{', '.join(outs)}]")).intersect_domain(
            self.effective_domains[st.name])

    @cached_property
    def prov(self) -> isl.UnionMap:
        return self.union_map(self.prov_map(st) for st in self.stmts)

    def same_sid(self, sid_filter=None) -> isl.UnionMap:
        """Universe pairs of statements with the same original identity."""
        maps = []
        for a in self.stmts:
            for b in self.stmts:
                if a.sid == b.sid and (sid_filter is None or sid_filter(a)):
                    maps.append(isl.Map(self.space(f"{self.tup(a, 'a')} -> {self.tup(b, 'b')}")))
        return self.union_map(maps)

    def same_acc_op(self) -> isl.UnionMap:
        """Universe pairs of accumulation statements with the same operator: accumulations of one
        operator into one cell form one reduction, even from two statements of a nest."""
        maps = []
        for a in self.stmts:
            for b in self.stmts:
                if a.acc_op is not None and a.acc_op == b.acc_op:
                    maps.append(isl.Map(self.space(f"{self.tup(a, 'a')} -> {self.tup(b, 'b')}")))
        return self.union_map(maps)

    @cached_property
    def reductions(self) -> isl.UnionMap:
        """Pairs of accumulation instances (one operator) on the same cell that conflict only there."""
        aw = self.acc_writes
        red = aw.apply_range(aw.reverse()).intersect(self.same_acc_op())
        other = self.writes.apply_range(self.nonacc_reads.reverse())
        other = other.union(other.reverse())
        return red.subtract(other)

    def before_pair(self, s: Stmt, t: Stmt) -> str | None:
        """Constraint text (over a* dims of s, b* dims of t) of `s-instance runs before
        t-instance`, or None when never."""
        order = lex_before(s, t)
        if order is None:
            return None
        hw = []
        if s.top == t.top:
            # one block, one thread: a statement outside a hardware loop runs at index 0 of
            # its axis (block 0, thread 0), in program order with that index's instances
            hs, ht = s.hw(), t.hw()
            for axis in sorted(set(hs) | set(ht)):
                a = f"a{hs[axis]}" if axis in hs else "0"
                b = f"b{ht[axis]}" if axis in ht else "0"
                hw.append(f"{a} = {b}")
        return join_and([order] + hw)

    @cached_property
    def before(self) -> isl.UnionMap:
        """Pairs of instances where the first runs before the second (order.py: pieces)."""
        maps = [m for s in self.stmts for t in self.stmts for m in [piece(self, s, t)] if m is not None]
        return self.union_map(maps)

    @cached_property
    def dependences(self) -> isl.UnionMap:
        """All ordered conflicting pairs (RAW, WAR, WAW), reduction pairs included:
        conflicts intersected with `before`, built only for the statement pairs that conflict
        (the same set; `before` over every pair of statements costs far more)."""
        if "before" in self.__dict__:
            return self.conflicts.intersect(self.before)
        def constraint(s, t):  # (conflicts lie within the statements' domains already)
            c = self.before_pair(s, t)
            return None if c is None else isl.Map(self.space(f"{self.tup(s, 'a')} -> {self.tup(t, 'b')} : {c}"))
        out = pairs.restrict(self.conflicts, {st.name: st for st in self.stmts}, constraint, self.union_map)
        return self.conflicts.intersect(self.before) if out is None else out

    @memoized
    def is_exact(self, st: Stmt) -> bool:
        """Whether the model of `st` is exact: no data-dependent guard or loop bound, no
        dynamic index (otherwise its instances and accesses are "may")."""
        self.domains  # noqa: B018 - records over-approximated loop bounds
        return (st.name not in self.approximate and not st.data_guards(self.pnames)
                and not any(self.index_text(st, a)[2] for a in st.accesses))

    @cached_property
    def exact_domain(self) -> isl.UnionSet:
        u = self.domain.empty(self.domain.get_space())
        for st in self.stmts:
            if self.is_exact(st):
                u = u.add_set(self.domains[st.name])
        return u

    def split_exact(self, rel: isl.UnionMap):
        """(the pairs of `rel` between exactly modelled instances, the rest)."""
        ex = self.exact_domain
        exact = rel.intersect_domain(ex).intersect_range(ex)
        return exact, rel.subtract(exact)

    def stmt(self, name: str) -> Stmt:
        for st in self.stmts:
            if st.name == name:
                return st
        raise KeyError(name)

    def params_set(self) -> isl.Set:
        return isl.Set(f"{self.ptuple} -> {{ : {self.param_text} }}")
