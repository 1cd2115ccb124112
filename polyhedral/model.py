"""The polyhedral model of one kernel: statement instances, accesses, provenance and order.

Every assignment (and every whole-tensor `zero`, as a statement over the tensor's storage
cells) becomes a statement with a parametric iteration domain. Data-dependent guards are
"may": the domain is their sound over-approximation (`approx_cond(over=True)`), and the
guards themselves are kept as IR so coverage can demand the same guard before and after.
The statements (`Stmt`, `Loop`, `Access`) and the walk that builds them are in model_build.py.

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

from functools import cached_property

from .lazy_isl import isl

from verified_sched.core import ir
from verified_sched.core.ir import Load
from .affine import NonAffine, TRUE, aff, approx_cond, cond, join_and
from . import pairs
from .memo import isl_map, isl_set, memoized
from .order import always, pair_map, piece
# the statements and their builder (re-exported: other modules import them from here)
from .model_build import HW_AXES, Access, Loop, Stmt, StatementBuilder, safe_name  # noqa: F401

BLOCK_AXES = ("block.x", "block.y", "block.z")
ORDERED = ("serial", "unrolled")


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
        built = StatementBuilder(program, self.kernel, self.pnames, tag)  # model_build.py
        self.stmts: list[Stmt] = built.stmts
        self.barriers = built.barriers
        self.barrier_stmts: list[Stmt] = built.barrier_stmts  # barrier occurrences as pseudo statements (no accesses)
        self.approximate = set()  # names of statements whose model over-approximates

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
    def domain_texts(self) -> dict:
        """Statement name -> the text `domains` parses (checks.access_violations keys the
        in_bounds answers it knows on the texts an access is stated by)."""
        return {st.name: self.space(f"{self.tup(st)} : {self.domain_text(st)}") for st in self.stmts}

    @cached_property
    def domains(self) -> dict:
        return {name: isl_set(text) for name, text in self.domain_texts.items()}

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
        text, where = self.access_texts(st, acc, storage_view, evaluated)
        if evaluated and acc.context is not None:
            return isl_map(text).intersect_domain(isl_set(where))
        return isl_map(text).intersect_domain(self.domains[st.name])

    @memoized
    def access_texts(self, st: Stmt, acc: Access, storage_view: bool = False, evaluated: bool = False) -> tuple:
        """(map text, domain text) of `access_map`: the map is the first intersected with
        the second (the statement's domain, or where the access is evaluated)."""
        outs, extra, _ = self.index_text(st, acc)
        pre = [] if storage_view else self._mem_prefix(st, acc.tensor)
        text = self.space(f"{self.tup(st)} -> T_{safe_name(acc.tensor)}[{', '.join(pre + outs)}] : {extra}")
        if evaluated and acc.context is not None:
            return text, self.space(f"{self.tup(st)} : {self.domain_text(st, guards=acc.context)}")
        return text, self.domain_texts[st.name]

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
                d = d.intersect(isl_set(self.space(f"{self.tup(st)} : {cond(st.blend, st.names(self.pnames))}")))
            out[st.name] = d
        return out

    def union_map(self, maps) -> isl.UnionMap:
        """The union of `maps` (isl.Map or isl.UnionMap), merged pairwise in rounds: each union
        copies its operands, so adding one map at a time costs quadratic time in their number
        (n statements on one cell relate n^2 statement pairs)."""
        us = [isl.UnionMap.from_map(m) if isinstance(m, isl.Map) else m for m in maps]
        if not us:
            return isl.UnionMap.empty(isl.Space.params_alloc(isl.DEFAULT_CONTEXT, 0))
        while len(us) > 1:
            us = [us[k].union(us[k + 1]) if k + 1 < len(us) else us[k] for k in range(0, len(us), 2)]
        return us[0]

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
        w, r = self.writes, self.reads
        # W.A^-1 + A.W^-1 with A = W + R: the write-write pairs composed once, not twice
        wr = w.apply_range(r.reverse())
        return w.apply_range(w.reverse()).union(wr).union(wr.reverse())

    @memoized
    def prov_map(self, st: Stmt) -> isl.Map:
        return isl_map(self.prov_text(st)).intersect_domain(self.effective_domains[st.name])

    @memoized
    def prov_text(self, st: Stmt) -> str:
        """The text of `prov_map` (before its restriction to the effective instances)."""
        names = st.names(self.pnames)
        outs = [aff(e, names) for e in st.orig_exprs]
        return self.space(f"{self.tup(st)} -> {st.orig_tuple}[{', '.join(outs)}]")

    @cached_property
    def prov(self) -> isl.UnionMap:
        return self.union_map(self.prov_map(st) for st in self.stmts)

    def same_sid(self, sid_filter=None) -> isl.UnionMap:
        """Universe pairs of statements with the same original identity."""
        maps = []
        for a in self.stmts:
            for b in self.stmts:
                if a.sid == b.sid and (sid_filter is None or sid_filter(a)):
                    maps.append(isl_map(self.space(f"{self.tup(a, 'a')} -> {self.tup(b, 'b')}")))
        return self.union_map(maps)

    def same_acc_op(self) -> isl.UnionMap:
        """Universe pairs of accumulation statements with the same operator: accumulations of one
        operator into one cell form one reduction, even from two statements of a nest. Built per
        operator as the product of its statements' universe with itself (one isl operation per
        operator, not one parsed map per statement pair)."""
        by_op: dict = {}
        for st in self.stmts:
            if st.acc_op is not None:
                by_op.setdefault(st.acc_op, []).append(st)
        maps = []
        for sts in by_op.values():
            u = isl.UnionSet(self.space("; ".join(self.tup(st) for st in sts)))
            maps.append(isl.UnionMap.from_domain_and_range(u, u))
        return self.union_map(maps)

    @cached_property
    def reductions(self) -> isl.UnionMap:
        """Pairs of accumulation instances (one operator) on the same cell that conflict only there."""
        aw = self.acc_writes
        red = aw.apply_range(aw.reverse()).intersect(self.same_acc_op())
        other = self.writes.apply_range(self.nonacc_reads.reverse())
        other = other.union(other.reverse())
        red = red.subtract(other)
        reset = self._reset_between(red)
        return red if reset is None else red.subtract(reset).subtract(reset.reverse())

    def _reset_between(self, red: isl.UnionMap):
        """Accumulation pairs (a1 -> a2) with a plain store w of their cell between them (a1
        before w before a2): w starts a new reduction, so a1 and a2 are not one (None when no
        plain store meets an accumulated cell)."""
        plain = self.union_map(self.store_map(st) for st in self.stmts
                               if st.acc_op is None and not st.accesses[0].noop)
        aw = self.acc_writes
        to_w = aw.apply_range(plain.reverse())  # a -> w, same cell
        if red.is_empty() or to_w.is_empty():
            return None
        from .order import before_on
        bef = before_on(self, to_w)
        first = to_w.intersect(bef)
        second = to_w.reverse().intersect(bef)  # w -> a
        return first.apply_range(second)

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
        """Pairs of instances where the first runs before the second: the union of the
        pieces of every statement pair (order.py builds each piece once; the dependence
        obligation asks `order.before_on` for the pieces of the pairs it relates only, the
        same maps)."""
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
            if c is None or always(c):  # always: the piece as it is (no map parsed per pair)
                return None if c is None else True
            return pair_map(self, s, t, c)
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
