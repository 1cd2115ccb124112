"""Reference interpreter of the IR: runs one kernel on numpy arrays at concrete sizes.

Why: a slow but obviously faithful executor that the C (and later CUDA/emulated) backends are
cross-checked against at tiny sizes, bitwise. Semantics (README: Semantics):

- Every top-level statement is one launch. Serial and unrolled loops run in order; iterations
  of vectorized loops run in a seeded random order.
- A launch that contains block/thread loops runs like a GPU grid: the grid extent per axis is
  the largest upper bound of that axis's loops; each block (in random order) runs the whole
  statement once per thread, and a hardware loop `for v in lo .. hi : thread.x` runs its body
  with v = threadIdx.x when lo <= threadIdx.x < hi. Threads of a block run phase by phase: each
  thread (in a fresh random order per phase) runs up to its next barrier; every thread must
  then wait at the same barrier, or all must have finished, else it is a KernelError.
  Effects outside every thread loop (outside every block loop) run on the leader thread
  (block) only, i.e. index 0, as a tensor-core block runs its fallback on lane 0 only.
- Shared tensors are allocated per block and local ones per thread, filled with all-ones bits
  (NaN; -1 for i32) like the C backend's; outside hardware launches once per run.
- Arithmetic of an assignment is done in its target's compute type (numpy float32 scalars for
  f32/f16/bf16, float64 for f64, wrapped 32-bit ints for i32), operand by operand, so the
  result agrees bitwise with C compiled with -ffp-contract=off. exp/log/sqrt and fma call the
  system libm through ctypes, the same functions the C code calls.
- Index arithmetic is exact (Python ints, floor division and modulo); an index outside the
  tensor's storage is a KernelError naming the tensor, the index and the instance.
- Speed: the innermost loop whose iterations are provably independent runs on numpy lanes
  (vector.py), with the same bits; `vectorize=False` forces the scalar closures. On the
  scalar path an access (index, bounds check, read or store) and an integer expression are
  each one generated function, not a closure per node (closures.py, "fused accesses").
"""
from __future__ import annotations

import itertools
import os
import random
import sys

import numpy as np

from verified_sched.core.dtypes import NP_DTYPE, check_array, check_sizes, storage_shape
from ..core import ir
from ..core.errors import InternalError, UsageError
from .node_memo import NodeMemo
from .phases import run_phases
from .closures import fused_int, fused_reader, fused_writer
from .expr import IntClosure, ValueClosure, check_condition, check_value
from ..core.semantics import compare_type, integer_typed
from .scalar import (COMPUTE, NUMS, KernelError, Num, bounds_checker, describe_instance, read_scalar,
                            to_storage)

__all__ = ["run_kernel", "KernelError"]




class _State:
    """What one executing instance (thread) sees: memory, hardware indices, leadership."""

    __slots__ = ("mem", "hw", "lead_block", "lead_thread", "rng")

    def __init__(self, mem, hw, lead_block, lead_thread, rng):
        self.mem, self.hw, self.lead_block, self.lead_thread, self.rng = mem, hw, lead_block, lead_thread, rng


def _has_barrier(stmt) -> bool:
    """A barrier at or below `stmt` (not in a TensorCore's fallback)."""
    return any(isinstance(x.stmt, ir.Barrier) for x in ir.walk_scoped((stmt,), _not_core))


def _not_core(x) -> bool:
    return not isinstance(x.stmt, ir.TensorCore)


# what a run asks of its kernel and launches, once per IR object (interp/node_memo.py)
_USED = NodeMemo(lambda kernel, _: frozenset(n.tensor for n in ir.walk(kernel.body)
                                             if isinstance(n, (ir.Load, ir.Assign, ir.Zero))))
_LAUNCH_SHAPE = NodeMemo(lambda stmt, _: (tuple(n for n in ir.walk(stmt) if isinstance(n, ir.For) and
                                                ir.is_hardware(n.axis)), _has_barrier(stmt)))


class Compiler:
    """Turns IR into Python closures `f(env, st)` once per run (much faster than re-matching)."""

    def __init__(self, program: ir.Program, env: dict, vectorize: bool = True, advance=None):
        self.program = program
        self.params = set(env)
        self.bounds = bounds_checker(self.params)  # the cell check of every load and store
        self.prec = {t.name: t.prec for t in program.tensors}
        self.vectorize = vectorize  # run independent loops on the numpy path (interp_vector)
        self.vectorized = 0  # loops compiled for the vector path so far
        self.depth = 0  # loops around the statement being compiled
        self.advance = advance  # progress: called per iteration of a launch's outermost loop

    def is_int(self, e) -> bool:
        """Whether an expression is integer typed (the semantics table's one rule: evaluated
        exactly, as C does in int64)."""
        return integer_typed(e, self.prec.get)

    # ------------------------------------------------------------ expressions

    def load(self, e: ir.Load):
        """Raw read of a tensor cell, bounds-checked, in the tensor's own compute type."""
        return fused_reader(e.tensor, e.index, self.int, self.bounds, e.loc, read_scalar(self.prec[e.tensor]))

    def int(self, e):
        """Exact integer evaluation (index and size positions; floor semantics)."""
        return fused_int(e, IntClosure(self))

    def value(self, e, T: Num):
        """A scalar expression evaluated in compute type T, operand by operand."""
        check_value(e)
        return ValueClosure(self)(e, T)

    def cond(self, c, T):
        """A condition; comparisons of integer operands are exact, others compare in T (or, in
        a statement-level `if`, in the table's compare type of the operands)."""
        check_condition(c)
        return ValueClosure(self)(c, T)

    def widest(self, node) -> str:
        return compare_type(node, self.prec.get)

    # ------------------------------------------------------------ statements
    # `where` = (inside a block loop, inside a thread loop), static per position: effects
    # outside them run on the leader block / thread only.

    def stmts(self, body, where, gen: bool):
        """A statement list as a plain function, or (gen) as a generator yielding barriers."""
        if not gen:
            fns = [self.stmt(s, where, False) for s in body]
            if len(fns) == 1:
                return fns[0]

            def run(env, st):
                for f in fns:
                    f(env, st)
            return run
        parts = [(_has_barrier(s), self.stmt(s, where, _has_barrier(s))) for s in body]

        def run_gen(env, st):
            for is_gen, f in parts:
                if is_gen:
                    yield from f(env, st)
                else:
                    f(env, st)
        return run_gen

    def stmt(self, s, where, gen: bool):
        match s:
            case ir.For():
                return self.loop(s, where, gen)
            case ir.If(cond=c, then=then, orelse=orelse):
                fc, ft, fe = self.cond(c, None), self.stmts(then, where, gen), self.stmts(orelse, where, gen)
                if gen:
                    def if_gen(env, st):
                        yield from (ft if fc(env, st) else fe)(env, st)
                    return if_gen
                return lambda env, st: (ft if fc(env, st) else fe)(env, st)
            case ir.Barrier():
                if gen:
                    def barrier(env, st):
                        yield s
                    return barrier
                return lambda env, st: None
            case ir.Assign():
                return self.gated(self.assign(s), where)
            case ir.Zero(tensor=name):
                zero = to_storage(self.prec[name])(NUMS[COMPUTE[self.prec[name]]].conv(0))

                def clear(env, st):
                    st.mem[name][...] = zero
                return self.gated(clear, where)
            case ir.TensorCore(lane=lane, fallback=fallback):
                ff = self.stmts(fallback, where, False)

                def core(env, st):
                    if env.get(lane, 0) == 0:
                        ff(env, st)
                return self.gated(core, where)
        raise InternalError(f"cannot run {s!r}")

    @staticmethod
    def gated(fn, where):
        in_block, in_thread = where
        if in_block and in_thread:
            return fn

        def run(env, st):
            if (in_block or st.lead_block) and (in_thread or st.lead_thread):
                fn(env, st)
        return run

    def assign(self, s: ir.Assign):
        prec = self.prec[s.tensor]
        T = NUMS[COMPUTE[prec]]
        fv, params, loc = self.value(s.value, T), self.params, s.loc

        def value(env, st):  # an error without a place (a conversion) gets the statement's
            try:
                return fv(env, st)
            except KernelError as e:
                if e.loc is not None:
                    raise
                raise KernelError(f"{e.message} at {describe_instance(env, params, st)}", loc) from None
        return fused_writer(s.tensor, s.index, self.int, self.bounds, loc, value, to_storage(prec))

    def loop(self, s: ir.For, where, gen: bool):
        var, axis = s.var, s.axis
        flo, fhi = self.int(s.lo), self.int(s.hi)
        inner = (where[0] or axis.startswith("block"), where[1] or axis.startswith("thread"))
        before = self.vectorized
        self.depth += 1
        try:
            body = self.stmts(s.body, inner, gen)
        finally:
            self.depth -= 1
        tick = self.advance if self.depth == 0 and not ir.is_hardware(axis) else None
        if self.vectorize and not gen and self.vectorized == before:  # innermost candidate
            from .vector import vector_runner
            fast = vector_runner(self, s, inner, tick)
            if fast is not None:
                self.vectorized += 1
                return fast

        def order(env, st):
            lo, hi = flo(env, st), fhi(env, st)
            if axis in ("serial", "unrolled"):
                return range(lo, hi)
            if axis == "vectorized":
                its = list(range(lo, hi))
                st.rng.shuffle(its)
                return its
            i = st.hw[axis]
            return (i,) if lo <= i < hi else ()

        if gen:
            def loop_gen(env, st):
                for v in order(env, st):
                    env[var] = v
                    yield from body(env, st)
                env.pop(var, None)
            return loop_gen

        def loop_run(env, st):
            for v in order(env, st):
                env[var] = v
                body(env, st)
                if tick is not None:
                    tick(1)
            env.pop(var, None)
        return loop_run


# ---------------------------------------------------------------- launches


class _Run:
    """One run of one kernel: memory, the random source, and the launch driver."""

    def __init__(self, program, kernel, env, arrays, seed, vectorize=True, advance=None):
        self.program, self.env, self.rng = program, env, random.Random(seed)
        self.compiler = Compiler(program, env, vectorize, advance)
        used = _USED(kernel)
        self.globals, self.scratch_tensors = {}, []
        for t in program.tensors:
            if t.name not in used:
                continue
            if t.memory in ("shared", "local"):
                self.scratch_tensors.append(t)
                continue
            self.globals[t.name] = check_array(t, arrays, env)
        arrs = list(self.globals.values())
        if any(np.shares_memory(a, b) for k, a in enumerate(arrs) for b in arrs[k + 1:]):
            self.compiler.vectorize = False  # aliased tensors: only the scalar order is right
        # outside hardware launches scratch tensors live for the whole run (like C locals)
        self.scratch = {t.name: _poisoned(t, env) for t in self.scratch_tensors}

    def launch(self, stmt):
        hw, barrier = _LAUNCH_SHAPE(stmt)
        fn = _compiled(self.compiler, stmt, barrier)
        if not hw:
            st = _State({**self.globals, **self.scratch}, {}, True, True, self.rng)
            _drain(fn(dict(self.env), st)) if barrier else fn(dict(self.env), st)
            return
        block_axes = sorted({n.axis for n in hw if n.axis.startswith("block")})
        thread_axes = sorted({n.axis for n in hw if n.axis.startswith("thread")})
        grid = [range(max(1, self.extent(hw, ax, self.env))) for ax in block_axes]
        blocks = list(itertools.product(*grid))
        self.rng.shuffle(blocks)
        for bidx in blocks:
            benv = dict(self.env)
            benv.update({n.var: bidx[block_axes.index(n.axis)] for n in hw if n.axis in block_axes})
            tdims = [range(max(1, self.extent(hw, ax, benv))) for ax in thread_axes]
            shared = {t.name: _poisoned(t, self.env) for t in self.scratch_tensors if t.memory == "shared"}
            threads = []
            for tidx in itertools.product(*tdims):
                mem = {**self.globals, **shared}
                mem.update({t.name: _poisoned(t, self.env) for t in self.scratch_tensors if t.memory == "local"})
                st = _State(mem, {**dict(zip(block_axes, bidx)), **dict(zip(thread_axes, tidx))},
                            not any(bidx), not any(tidx), self.rng)
                threads.append((tidx, st))
            where = ", ".join(f"{a}={i}" for a, i in zip(block_axes, bidx)) or "the only block"
            if barrier:
                run_phases([(tidx, fn(dict(self.env), st)) for tidx, st in threads], thread_axes, where, self.rng)
            else:
                self.rng.shuffle(threads)
                for _, st in threads:
                    fn(dict(self.env), st)

    def extent(self, hw, axis, env) -> int:
        """The grid/block extent of one axis: the largest upper bound of its loops."""
        best = 0
        for n in hw:
            if n.axis != axis:
                continue
            try:
                best = max(best, self.compiler.int(n.hi)(env, None))
            except KeyError as e:
                raise KernelError(f"the interpreter needs the bound of the {axis} loop '{n.var}' to "
                                  f"depend only on sizes and block indices, not on {e.args[0]}", n.loc) from None
        return best


_LAUNCHES: dict = {}  # (program, launch statement, parameter names, vector path, barrier) ids -> closure
LAUNCH_LIMIT = 256  # entries; the cache starts afresh past it


def _compiled(comp: Compiler, stmt, barrier: bool):
    """The closure of one launch, compiled once per program, statement, parameter names and
    vector path when the run reports no progress (the closures would hold the run's
    `advance`): the fuzzer runs each kernel at two size sets and replays a refutation at up
    to 4 sizes and 4 seeds, compiling it once. A closure depends on nothing else: sizes,
    memory, block and thread indices and the random source come with each call."""
    if comp.advance is not None:
        return comp.stmt(stmt, (False, False), barrier)
    key = (id(comp.program), id(stmt), frozenset(comp.params), comp.vectorize, barrier)
    hit = _LAUNCHES.get(key)
    if hit is not None and hit[0] is comp.program and hit[1] is stmt:
        return hit[2]
    fn = comp.stmt(stmt, (False, False), barrier)
    if len(_LAUNCHES) >= LAUNCH_LIMIT:
        _LAUNCHES.clear()
    _LAUNCHES[key] = (comp.program, stmt, fn)  # kept alive: their ids are not reused meanwhile
    return fn


def _drain(gen):
    for _ in gen:
        pass


def _poisoned(t: ir.Tensor, env: dict) -> np.ndarray:
    """A fresh scratch (shared/local) tensor filled with all-ones bits, as the C backend does
    (NaN for floats, -1 for i32): never zero, so reading it unwritten shows."""
    dtype = NP_DTYPE[t.prec]
    shape = storage_shape(t, env)
    return np.full(shape + (dtype.itemsize,), 0xFF, dtype=np.uint8).view(dtype).reshape(shape)


def run_kernel(program: ir.Program, kernel_name: str, sizes: dict, arrays: dict, seed: int = 0,
               vectorize: bool | None = None) -> dict:
    """Run `kernel_name` at `sizes`, mutating `arrays` (name -> storage-shaped array of every
    global/constant tensor the kernel uses) in place; returns `arrays`. `vectorize=False` (or
    VSCHED_INTERP_SCALAR=1) forces the scalar path everywhere (interp_vector explains the
    vector path, which gives the same bits)."""
    try:
        kernel = program.kernel(kernel_name)
    except KeyError:
        raise UsageError(f"no kernel named {kernel_name!r}") from None
    env = check_sizes(program, sizes)
    if vectorize is None:
        vectorize = os.environ.get("VSCHED_INTERP_SCALAR", "") in ("", "0")
    from ..core.progress import bar
    with bar(f"interpreting {kernel_name}", _work(program, kernel, env)) as advance:
        # no bar without a terminal: then the compiled launches are shared between runs
        run = _Run(program, kernel, env, arrays, seed, vectorize, advance if sys.stderr.isatty() else None)
        with np.errstate(all="ignore"):
            for stmt in kernel.body:
                run.launch(stmt)
                if not isinstance(stmt, ir.For) or ir.is_hardware(stmt.axis):
                    advance(1)
    return arrays


def _work(program, kernel, env) -> int:
    """Progress units of a run: each launch's outermost loop iterations (1 for other launches)."""
    total = 0
    comp = Compiler(program, env)
    for stmt in kernel.body:
        n = 1
        if isinstance(stmt, ir.For) and not ir.is_hardware(stmt.axis):
            try:
                n = max(0, comp.int(stmt.hi)(env, None) - comp.int(stmt.lo)(env, None))
            except (KeyError, KernelError, TypeError, AttributeError):
                n = 1
        total += n
    return total
