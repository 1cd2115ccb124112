"""Value-based dataflow of one kernel: the last writer of every read and of every final cell.

The kernel runs in one serial order: top-level statements one after another, every loop
(vectorized and block loops included) by increasing iterator, and the threads of a block in
lockstep (thread indices compared last: every thread runs a statement instance before any
runs the next one in program order). Lockstep respects each thread's program order and every
barrier, so it is one valid execution; it is the kernel's meaning whenever its parallel loops
are independent and race-free and its barriers uniform, which the kernel's own `independence`,
`race` and `barrier_uniformity` obligations decide. Code in a block loop outside every thread
loop is not modelled (`Unsupported`).

Every statement instance S[i] gets the schedule vector [P0, i0, P1, ..., P_d, tz, ty, tx, k]
(2d+1 form, positions padded to one width, thread iterators moved last; k = 0 for its reads,
1 for its store, so an instance reads before it writes), compressed to fewer dimensions with
the same order (`_vectors`). isl's `compute_flow`
(`UnionAccessInfo`) then gives, for each read access (one pseudo statement `R<k>_<S>` per access) and for each cell of every tensor at the end of
the kernel (`OUT_<T>`), the unique last write that precedes it, or none (the cell's value on
entry). Only exactly modelled kernels qualify: no data-dependent guard, bound or index.
"""
from __future__ import annotations

from functools import cached_property

import islpy as isl

from .known import known_flow
from .isltools import tensor_box
from .model import KernelModel, Stmt, safe_name


THREADS = ("thread.z", "thread.y", "thread.x")
FINAL = None  # the key of the final state's schedule vector
FINAL_POS = 1_000_000  # its first position: after every top-level statement
# pieces of sinks times pieces of the stores of their tensor from which the flow analysis runs
# in a forked child (`ValueFlow._flow`): the slow ones of fuzz campaigns have 65 to 5566
# (0.3 to 6 s, or out of isl's operations), the others 1 to 20 (milliseconds)
FORK_PAIRS = 24


class Unsupported(Exception):
    """The kernel (or claim) is outside what the value-based analysis decides."""


class TooComplex(Unsupported):
    """A relation too complex to hand to isl's transitive closure: on relations of many pieces
    with many integer divisions its recursion has overflowed the C stack (the process dies with
    SIGSEGV, found by `vsched fuzz`), so it is not attempted; the caller decides without the
    value-based analysis, as for any unsupported kernel."""


def source_pairs(sinks, stores: isl.UnionMap) -> int:
    """Sum over the sink maps' pieces of the number of store pieces on the same tensor: what the
    flow analysis compares (a cheap measure of its cost)."""
    per_tensor = {}

    def count(m):
        t = m.get_tuple_name(isl.dim_type.out)
        per_tensor[t] = per_tensor.get(t, 0) + m.n_basic_map()
    stores.foreach_map(count)
    return sum(m.n_basic_map() * per_tensor.get(m.get_tuple_name(isl.dim_type.out), 0) for m in sinks)


def read_tuple(st: Stmt, k: int) -> str:
    return f"R{k}_{st.name}"


def out_tuple(tensor: str) -> str:
    return f"OUT_{safe_name(tensor)}"


class ValueFlow:
    """Last writers of one kernel (see the module docstring)."""

    def __init__(self, model: KernelModel, may: bool = False):
        """`may`: also kernels with data-dependent guards, bounds or indices; their writes are
        may-sources and `may_source` gives every write a read may see (no `source`)."""
        self.m = model
        self.may = may
        threads = any(lp.axis in THREADS for st in model.stmts for lp in st.loops)
        for st in model.stmts:
            axes = [lp.axis for lp in st.loops]
            if threads and not any(a in THREADS for a in axes) and any(a.startswith("block") for a in axes):
                raise Unsupported(f"statement {st.sid} runs in a block loop outside every thread loop")
            if len([a for a in axes if a in THREADS]) != len({a for a in axes if a in THREADS}):
                raise Unsupported(f"statement {st.sid} is inside two loops of one thread axis")
        for st in model.stmts:
            if not may and not model.is_exact(st):
                raise Unsupported(f"statement {st.sid} has data-dependent guards, bounds or indices")
        self.width = max((len(p) for st in model.stmts for p in st.sched[0::2]), default=1)
        self.depth = max((st.depth for st in model.stmts), default=0)

    # ------------------------------------------------------------ schedule

    def _blocks(self, st: Stmt, last: int) -> list:
        """The uncompressed schedule vector of `st` as blocks: a tuple of ints per position
        level (padded to one width), a text per loop, thread and final (k) dimension."""
        out = []
        for j, part in enumerate(st.sched):
            if j % 2 == 0:
                out.append(tuple(part) + (0,) * (self.width - len(part)))
            elif part.axis in THREADS:
                out.append("0")  # thread indices order last: lockstep (below)
            else:
                out.append(f"i{j // 2}")
        for _ in range(self.depth - st.depth):
            out += ["0", (0,) * self.width]
        hw = st.hw()
        out += [f"i{hw[a]}" if a in hw else "0" for a in THREADS]
        return out + [str(last)]

    @cached_property
    def _vectors(self) -> dict:
        """(statement name or FINAL, k) -> schedule vector (texts). The same lexicographic
        order as the blocks, in fewer dimensions (isl's flow analysis costs grow fast with
        them): each position block becomes its rank among the blocks in its column (an
        order-preserving injection), and columns equal in every vector are dropped."""
        rows = {(st.name, k): self._blocks(st, k) for st in self.m.stmts for k in (0, 1)}
        n_levels = 2 * self.depth + 1
        # the final state after everything: first block above every position
        rows[(FINAL, 0)] = ([(FINAL_POS,) + (0,) * (self.width - 1)] +
                            ["0" if c % 2 else (0,) * self.width for c in range(1, n_levels)] +
                            ["0"] * (len(THREADS) + 1))
        table = list(rows.values())
        width = len(table[0])
        for c in range(width):
            blocks = sorted({r[c] for r in table if isinstance(r[c], tuple)})
            if blocks:
                rank = {b: str(k) for k, b in enumerate(blocks)}
                for r in table:
                    r[c] = rank[r[c]]
        keep = [c for c in range(width) if len({r[c] for r in table}) > 1 or not table[0][c].isdigit()]
        if not keep:
            keep = [0]
        return {key: [r[c] for c in keep] for key, r in rows.items()}

    @property
    def n_dims(self) -> int:
        return len(next(iter(self._vectors.values())))

    def _vector(self, st: Stmt, last: int) -> list:
        return self._vectors[(st.name, last)]

    def sched_map(self, st: Stmt, tuple_name: str, last: int) -> isl.Map:
        return isl.Map(self.m.space(f"{tuple_name}[{', '.join(st.dims())}] -> "
                                    f"SCHED[{', '.join(self._vector(st, last))}]"))

    @cached_property
    def write_sched(self) -> isl.UnionMap:
        return self.m.union_map(self.sched_map(st, st.name, 1).intersect_domain(self.m.domains[st.name])
                             for st in self.m.stmts)

    @cached_property
    def order(self) -> isl.UnionMap:
        """x -> y: write instance x runs strictly before write instance y."""
        n = self.n_dims
        sp = isl.Set(f"{self.m.ptuple} -> {{ SCHED[{', '.join(f's{k}' for k in range(n))}] }}").get_space()
        lt = isl.UnionMap.from_map(isl.Map.lex_lt(sp))
        ws = self.write_sched
        return ws.apply_range(lt).apply_range(ws.reverse())

    # ------------------------------------------------------------ flow

    def reads(self):
        """(stmt, access number, access) of every read."""
        for st in self.m.stmts:
            for k, a in enumerate(st.accesses):
                if not a.write:
                    yield st, k, a

    def read_map(self, st: Stmt, k: int) -> isl.Map:
        m = self.m.read_map(st, st.accesses[k])
        return m.set_tuple_name(isl.dim_type.in_, read_tuple(st, k))

    def _final_sinks(self):
        vec = ", ".join(self._vectors[(FINAL, 0)])
        for t in sorted({a.tensor for st in self.m.stmts for a in st.accesses if a.write}):
            tensor = self.m.program.tensor(t)
            if tensor.memory not in ("global", "constant"):
                continue
            box = tensor_box(self.m, t, True)
            dims = [f"c{d}" for d in range(tensor.rank)]
            cell = isl.Map(self.m.space(f"{out_tuple(t)}[{', '.join(dims)}] -> T_{safe_name(t)}[{', '.join(dims)}]"))
            cell = cell.intersect_range(box)
            sched = isl.Map(self.m.space(f"{out_tuple(t)}[{', '.join(dims)}] -> SCHED[{vec}]"))
            yield cell, sched

    def observable_cells(self):
        """(tensor, OUT_<T>[c] -> T[c]) over the non-padding cells of every global tensor the
        kernel writes, `scratch` ones excepted: what a run compares at the end (README
        Semantics, "Order")."""
        for t in sorted({a.tensor for st in self.m.stmts for a in st.accesses if a.write}):
            tensor = self.m.program.tensor(t)
            if tensor.memory not in ("global", "constant") or tensor.scratch:
                continue
            dims = ", ".join(f"c{d}" for d in range(tensor.rank))
            cell = isl.Map(self.m.space(f"{out_tuple(t)}[{dims}] -> T_{safe_name(t)}[{dims}]"))
            yield t, cell.intersect_range(tensor_box(self.m, t, False))

    @cached_property
    def _flow(self):
        """(dependence, no source) of isl's flow analysis: must ones, or may ones with `may`.
        A large one (FORK_PAIRS) runs under polyhedral.bounded: islpy holds the GIL through
        the call, so the budget's watchdog thread could not abort it at the deadline (a fuzz
        example's ran 10 s of wall-clock time past a 5 s deadline); in a child it is stopped
        there. (core/native_abort.py now also aborts isl without the GIL, at isl's next
        counted operation; the child stays the bound for calls that count none.)"""
        sinks, scheds = [], []
        for st, k, _ in self.reads():
            sinks.append(self.read_map(st, k))
            scheds.append(self.sched_map(st, read_tuple(st, k), 0))
        for cell, sched in self._final_sinks():
            sinks.append(cell)
            scheds.append(sched)
        stores = self.m.writes
        sched = self.write_sched.union(self.m.union_map(scheds))
        sink = self.m.union_map(sinks)
        may = self.may

        def compute():
            info = isl.UnionAccessInfo.from_sink(sink)
            if may:
                exact = self.m.exact_domain
                info = info.set_must_source(stores.intersect_domain(exact)).set_may_source(
                    stores.subtract_domain(exact))
                flow = info.set_schedule_map(sched).compute_flow()
                return flow.get_may_dependence(), flow.get_may_no_source()
            flow = info.set_must_source(stores).set_schedule_map(sched).compute_flow()
            return flow.get_must_dependence(), flow.get_must_no_source()

        ctx = sink.get_ctx()
        if source_pairs(sinks, stores) < FORK_PAIRS:
            return compute()
        return known_flow((may, str(sink), str(stores), str(sched), str(self.m.exact_domain) if may else ""),
                          compute, ctx)

    @cached_property
    def source(self) -> isl.UnionMap:
        """sink (R<k>_<S>[i] or OUT_<T>[cell]) -> the write instance it sees."""
        return self._flow[0].reverse()

    @cached_property
    def no_source(self) -> isl.UnionSet:
        """Sinks that see the value the cell had on entry."""
        return self._flow[1].domain()

    def source_of(self, st: Stmt, k: int) -> isl.UnionMap:
        name = read_tuple(st, k)
        return self.source.intersect_domain(isl.UnionSet.from_set(
            isl.Set(self.m.space(f"{name}[{', '.join(st.dims())}]"))))

    @cached_property
    def live_writes(self) -> isl.UnionSet:
        """Write instances whose value some read or the final state sees."""
        return self.source.range()

    @cached_property
    def dead_writes(self) -> isl.UnionSet:
        """Store instances nobody sees: overwritten before any read and before the end."""
        stores = self.m.writes.domain()
        return stores.subtract(self.live_writes)
