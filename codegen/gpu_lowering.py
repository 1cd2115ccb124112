"""The two-level lowering of a launch shared by the CUDA backend and the GPU-on-CPU emulator.

Why two levels: on a GPU every thread runs the whole statement, and a hardware loop `for i in 0 .. 63 : thread.x` runs its body only where
threadIdx.x < 63. Wrapping a body that holds a barrier in that guard would make the barrier
divergent (undefined behaviour: a hang). So statements are lowered at two levels:

- a statement with no barrier below it is rendered plainly inside one `if (mask)`, hardware
  loops as `{ const int64_t i = threadIdx.x; if (i < hi) { ... } }`;
- a statement with a barrier below it is executed by EVERY thread of the block ("uniform
  level"): a hardware loop only adds its range test to a mask, an `if` on a thread-dependent
  condition runs both branches with the mask narrowed (`c` / `!c`), a serial loop runs for the
  block-wide maximum trip count with `n < own trip count` added to the mask when its bounds
  are not uniform (uniform bounds: params, block and uniform loop iterators only: a plain
  loop). Leaf statements run only where the mask holds. Every thread thus reaches every
  barrier the same number of times, and a barrier checks that its mask holds for all threads
  of the block or for none: otherwise the reference semantics diverge there (some threads
  would skip it), which is reported as barrier divergence instead of hanging (CUDA:
  `__syncthreads_count(mask)`; emulation: a count over the block's threads).

A hardware axis whose loops all share one size-only extent needs no range test (its guard
always holds), so the common tiled kernel has no masks and plain barriers. Statements outside
every thread loop run on thread 0 only, outside every block loop on block 0 only, as in the
interpreter (loops and conditions are still evaluated by all threads).

`GpuLowering` subclasses (`cuda.CudaEmitter`, `emulate.EmuEmitter`) say how a hardware index,
a leader test, a barrier, a barrier-free segment and a non-uniform loop or `if` are rendered;
expressions and indices come from the C backend's emitter, so all backends compute alike.
"""
from __future__ import annotations

import math

from verified_sched.core import ir
from verified_sched.core.errors import UsageError

from .c import KernelEmitter, cname
from verified_sched.core.dtypes import eval_int, global_tensors, param_names


class Unsupported(UsageError):
    """A construct this backend cannot render (e.g. a size-dependent shared tensor)."""


def has_barrier(node) -> bool:
    return any(isinstance(n, ir.Barrier) for n in ir.walk(node))


def hw_loops(stmt) -> list:
    return [n for n in ir.walk(stmt) if isinstance(n, ir.For) and ir.is_hardware(n.axis)]


def used_scratch(program: ir.Program, node) -> list:
    """Shared/local tensors read, written or zeroed below `node` (program order)."""
    used = {n.tensor for n in ir.walk(node) if isinstance(n, (ir.Load, ir.Assign, ir.Zero))}
    return [t for t in program.tensors if t.memory in ("shared", "local") and t.name in used]


def is_global_zero(program: ir.Program, stmt) -> bool:
    """A top-level `zero` of a global tensor: the host launcher uses cudaMemset."""
    return isinstance(stmt, ir.Zero) and program.tensor(stmt.tensor).memory in ("global", "constant")


def used_globals(program: ir.Program, node) -> list:
    used = {n.tensor for n in ir.walk(node) if isinstance(n, (ir.Load, ir.Assign, ir.Zero))}
    return [t for t in global_tensors(program) if t.name in used]


def const_count(t: ir.Tensor):
    """Number of storage cells when constant, else None."""
    try:
        return max(1, math.prod(eval_int(d, {}) for d in t.storage_dims()))
    except UsageError:
        return None


class Launch:
    """The geometry of one top-level statement: its hardware loops per axis."""

    def __init__(self, program: ir.Program, stmt, index: int):
        self.stmt, self.index = stmt, index
        loops = hw_loops(stmt)
        self.loops = loops
        self.block_axes = sorted({n.axis for n in loops if n.axis.startswith("block")})
        self.thread_axes = sorted({n.axis for n in loops if n.axis.startswith("thread")})
        params = set(param_names(program))
        self.block_vars = {n.var: n.axis for n in loops if n.axis.startswith("block")}
        self.needs_grid_walk = False
        for n in loops:
            allowed = params | (set(self.block_vars) if n.axis.startswith("thread") else set())
            extra = ir.free_vars(n.hi) - allowed
            if extra or ir.reads(n.hi):
                raise Unsupported(f"the extent of the {n.axis} loop '{n.var}' must depend only on sizes"
                                  f"{' and block iterators' if n.axis.startswith('thread') else ''}, "
                                  f"not on {', '.join(sorted(extra)) or 'tensor data'}")
            if ir.free_vars(n.hi) & set(self.block_vars):
                self.needs_grid_walk = True
        # axes whose loops all share one size-only extent: their range test always holds
        self.full_axes = {ax for ax in self.block_axes + self.thread_axes
                          if len(set(self.his(ax))) == 1 and ir.free_vars(self.his(ax)[0]) <= params}

    @property
    def hardware(self) -> bool:
        return bool(self.loops)

    def his(self, axis: str) -> list:
        return [n.hi for n in self.loops if n.axis == axis]


class GpuLowering(KernelEmitter):
    """The two-level walk (module docstring). Subclasses say how a thread index, a leader test,
    a barrier, a mask-free segment and a non-uniform loop/if are rendered."""

    def __init__(self, program: ir.Program):
        super().__init__(program)
        self.params = set(param_names(program))
        self.uniform: set = set(self.params)
        self.where = (False, False)  # (inside a block loop, inside a thread loop)
        self.hw = False  # inside a launch with hardware loops: leaves are gated by leadership
        self.barriers: list = []  # barrier id -> loc text
        self.full: set = set()  # hardware axes of the current launch whose guards always hold

    # ------------------------------------------------------------ hooks
    def hw_index(self, axis: str) -> str:
        raise NotImplementedError

    def lead(self, kind: str) -> str:
        raise NotImplementedError

    # ------------------------------------------------------------ helpers
    def tmp(self, stem: str) -> str:
        self.counter += 1
        return f"vs_{stem}{self.counter}"

    def is_uniform(self, node) -> bool:
        return not ir.reads(node) and ir.free_vars(node) <= self.uniform

    def range_cond(self, var: str, lo, hi) -> str:
        """`lo <= var < hi`."""
        c = cname(var)
        parts = [] if lo == ir.Int(0) else [f"{c} >= {self.index(lo)[0]}"]
        return " && ".join(parts + [f"{c} < {self.index(hi)[0]}"])

    @staticmethod
    def conj(mask) -> str:
        return " && ".join(f"({m})" for m in mask) if mask else "1"

    def gate(self) -> list:
        """Leadership conditions of a leaf at the current position."""
        if not self.hw:
            return []
        out = []
        if not self.where[1]:
            out.append(self.lead("thread"))
        if not self.where[0]:
            out.append(self.lead("block"))
        return out

    def enter_hw(self, axis: str):
        old = self.where
        self.where = (old[0] or axis.startswith("block"), old[1] or axis.startswith("thread"))
        return old

    # ------------------------------------------------------------ plain (barrier-free) level
    def stmt(self, s, depth: int) -> None:
        match s:
            case ir.For(var=v, lo=lo, hi=hi, axis=axis, body=body) if ir.is_hardware(axis):
                self.out(depth, f"{{  /* {axis} */")
                self.out(depth + 1, f"const int64_t {cname(v)} = {self.hw_index(axis)};")
                self.out(depth + 1, f"if ({self.range_cond(v, lo, hi)}) {{")
                old = self.enter_hw(axis)
                self.scope.append(v)
                self.body(body, depth + 2)
                self.scope.pop()
                self.where = old
                self.out(depth + 1, "}")
                self.out(depth, "}")
            case ir.Assign() | ir.Zero() | ir.TensorCore() if self.gate():
                self.out(depth, f"if ({self.conj(self.gate())}) {{")
                super().stmt(s, depth + 1)
                self.out(depth, "}")
            case ir.Barrier():
                raise UsageError("internal: a barrier reached the plain level")
            case _:
                super().stmt(s, depth)

    # ------------------------------------------------------------ uniform level
    def uni(self, stmts, depth: int, mask: list) -> None:
        run: list = []
        for s in stmts:
            if not has_barrier(s):
                run.append(s)
                continue
            if run:
                self.segment(run, depth, mask)
                run = []
            self.uni_stmt(s, depth, mask)
        if run:
            self.segment(run, depth, mask)

    def uni_stmt(self, s, depth: int, mask: list) -> None:
        match s:
            case ir.Barrier(loc=loc):
                self.barriers.append(str(loc) if loc else "?")
                self.barrier(len(self.barriers) - 1, depth, mask)
            case ir.For(var=v, lo=lo, hi=hi, axis=axis, body=body) if ir.is_hardware(axis):
                self.out(depth, f"{{  /* {axis} */")
                old = self.enter_hw(axis)
                self.bind(v, self.hw_index(axis), depth + 1, axis.startswith("thread"))
                self.scope.append(v)
                cond = self.range_cond(v, lo, hi)
                if axis in self.full and lo == ir.Int(0):
                    # the axis's extent is exactly hi (when hi >= 1): every index passes the range
                    # test, which reduces to the uniform `hi > 0` (no mask, plain barriers)
                    if axis.startswith("block"):
                        self.uniform.add(v)
                    self.out(depth + 1, f"if ({self.index(hi)[0]} > 0) {{")
                    self.uni(body, depth + 2, mask)
                    self.out(depth + 1, "}")
                    self.uniform.discard(v)
                elif axis.startswith("block") and self.is_uniform(hi) and self.is_uniform(lo):
                    self.uniform.add(v)
                    self.out(depth + 1, f"if ({cond}) {{")
                    self.uni(body, depth + 2, mask)
                    self.out(depth + 1, "}")
                    self.uniform.discard(v)
                else:
                    self.uni(body, depth + 1, mask + [cond])
                self.scope.pop()
                self.unbind(v)
                self.where = old
                self.out(depth, "}")
            case ir.For(var=v, lo=lo, hi=hi, body=body):
                self.scope.append(v)
                if self.is_uniform(lo) and self.is_uniform(hi):
                    c = cname(v)
                    lo_s, hi_s = self.bound(lo, depth), self.bound(hi, depth)
                    self.out(depth, f"for (int64_t {c} = {lo_s}; {c} < {hi_s}; {c}++) {{")
                    self.uniform.add(v)
                    self.uni(body, depth + 1, mask)
                    self.uniform.discard(v)
                    self.out(depth, "}")
                else:
                    self.nonuniform_loop(s, depth, mask)
                self.scope.pop()
            case ir.If(cond=c, then=then, orelse=orelse):
                if self.is_uniform(c):
                    self.out(depth, f"if ({self.cond(c, None)}) {{")
                    self.uni(then, depth + 1, mask)
                    if orelse:
                        self.out(depth, "} else {")
                        self.uni(orelse, depth + 1, mask)
                    self.out(depth, "}")
                else:
                    self.nonuniform_if(s, depth, mask)
            case _:
                raise Unsupported(f"a barrier inside {type(s).__name__} is not supported on GPUs")

    def bind(self, var: str, value: str, depth: int, per_thread: bool = False) -> None:
        """Give an iterator its value at the uniform level (per_thread: a value per thread)."""
        self.out(depth, f"const int64_t {cname(var)} = {value};")

    def unbind(self, var: str) -> None:
        pass

    def segment(self, stmts, depth: int, mask: list) -> None:
        if mask:
            self.out(depth, f"if ({self.conj(mask)}) {{")
            self.body(stmts, depth + 1)
            self.out(depth, "}")
        else:
            self.body(stmts, depth)
