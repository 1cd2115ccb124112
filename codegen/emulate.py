"""GPU-on-CPU emulation: the parallel kernel as C that runs each block's threads phase by phase.

Why: CI has no GPU, yet GPU schedules must run. The emulated C keeps the CUDA backend's
two-level structure (`codegen.cuda.GpuLowering`) and replaces "every thread runs the
statement" by loop fission at barriers: statements holding a barrier run once per block
(the uniform level), and every maximal barrier-free run of statements becomes one pass over
the block's threads in a fresh seeded random order (a phase, or part of one):

    for each block (random order):          fresh shared tensors (all-ones bits)
      for k in 0 .. K (uniform bounds):     the serial loop runs around the phases
        for t in shuffled threads: if (mask(t)) { load tile }
        barrier: mask(t) must hold for all threads or none, else BarrierDivergence
        for t in shuffled threads: if (mask(t)) { compute }

Per-thread state that lives across phases is kept per thread id: local tensors as arrays of
`threads x cells`; iterators of hardware loops are recomputed from the thread id; a serial
loop or `if` holding a barrier whose bounds/condition are not uniform is evaluated per thread
into arrays (lower bound and trip count; branch taken), the loop running for the block-wide
maximum trip count with `n < trip(t)` in each thread's mask. A barrier whose mask holds for
some threads but not all is the runtime error "barrier divergence" (the reference semantics
requires every thread of the block to reach each barrier together).

Race detector (compile flag -DVS_RACE=1, `detect_races=True`): shadow memory per cell of every
global and shared tensor records the last writer (block, thread, phase), the reader blocks and
the readers of the current phase; a conflict is two different threads of one block in one
phase with at least one write, or two different blocks (unordered) with at least one write.
The first conflict stops the run and raises RaceError naming both accesses, the cell and the
phase. The detector also reports an index outside a tensor's storage. With or without it,
every index component of every access is checked against its dimension (shared and local
tensors have no guard zones, and an out-of-bounds read is invisible otherwise): an index
outside raises EmulationError ("index out of bounds"), never corrupts the heap.

Entry points: `emit_emulated(program, kernels=None) -> str` (functions `vs_<kernel>` with the C
backend's signature, so `build.load_shared` and the oracle take them as they are) and
`load_emulated(program, seed=0, detect_races=False)` whose `.run(kernel_name, sizes, arrays)`
is a runner for `verified_sched.oracle.compare.compare_kernels`. The runtime state is static in the library:
one run at a time per process (pytest-xdist workers are processes, so that is fine).
"""
from __future__ import annotations

import numpy as np

from verified_sched.core import ir
from verified_sched.core.errors import UsageError, VschedError

from .build import FLAGS, CModule, cdef_signature, compile_shared
from .c import KernelEmitter, cname, preludes, signature
from .gpu_lowering import GpuLowering, Launch, used_globals, used_scratch
from verified_sched.core.dtypes import C_STORAGE, check_sizes, param_names, storage_shape
from .emulate_runtime import RUNTIME, RUNTIME_DECLARED, RUNTIME_OBJECT

RACE_FLAGS = FLAGS + ("-DVS_RACE=1",)
MEMO: dict = {}


def quick_flags(flags: tuple, source: str) -> tuple:
    """`flags` at -O0 when `source` has no `#pragma omp simd` (the only construct whose meaning
    the optimization level changes: vectorized lanes), else `flags`: for short runs where the
    compile is the cost (the fuzzer's race checks at sizes up to 12: -O0 compiles an
    emulation 2.5x to 4x faster). Without the pragma the results are the same bits at any level:
    -ffp-contract=off, -fwrapv, no fast-math, and every access is checked by the emulation."""
    if "#pragma omp simd" in source:
        return flags
    return tuple("-O0" if f.startswith("-O") else f for f in flags)


class EmulationError(VschedError):
    """The emulated kernel failed at run time (a finding about the kernel, like KernelError)."""

    def __init__(self, message: str, info=None):
        super().__init__(message)
        self.info = info


class RaceError(EmulationError):
    """Two unordered accesses to one cell, at least one a write (the detector's finding)."""

    def __init__(self, message, tensor, cell, first, second, phase, info=None):
        super().__init__(message, info)
        self.tensor, self.cell, self.first, self.second, self.phase = tensor, cell, first, second, phase


class BarrierDivergenceError(EmulationError):
    """A barrier reached by some threads of a block but not all."""


class EmuEmitter(GpuLowering):
    """Emulated C for one kernel (see the module docstring)."""

    def __init__(self, program: ir.Program):
        super().__init__(program)
        self.tbind: list = []  # (iterator, C value) per thread, outermost first
        self.locals_: list = []  # local tensors of the current launch
        self.arrays: list = []  # (name, ctype) per-thread arrays of the current launch
        self.instrument = False

    # ------------------------------------------------------------ hooks
    def hw_index(self, axis: str) -> str:
        kind, slot = axis.split(".")
        return f"vs_{'b' if kind == 'block' else 't'}{slot}"

    def lead(self, kind: str) -> str:
        return "vs_t == 0" if kind == "thread" else "vs_blk == 0"

    def bind(self, var: str, value: str, depth: int, per_thread: bool = False) -> None:
        if per_thread:
            self.tbind.append((var, value))
        else:
            super().bind(var, value, depth)

    def unbind(self, var: str) -> None:
        if self.tbind and self.tbind[-1][0] == var:
            self.tbind.pop()

    def watched(self, tensor: str) -> bool:
        return self.instrument and self.program.tensor(tensor).memory != "local"

    def offset(self, tensor: str, index) -> str:
        """The flat offset with every index component checked against its dimension (vs_inb)."""
        if not index:
            return "0"
        dims = self.program.tensor(tensor).storage_dims()
        tid = [t.name for t in self.program.tensors].index(tensor)
        acc = ""
        for k, (i, d) in enumerate(zip(index, dims)):
            chk = f"vs_inb({self.index(i)[0]}, {self.index(d)[0]}, {tid * 64 + min(k, 63)})"
            acc = chk if k == 0 else f"({acc}) * ({self.index(d)[0]}) + {chk}"
        return acc

    def raw_load(self, e: ir.Load) -> tuple:
        if not self.watched(e.tensor):
            return super().raw_load(e)
        return (f"{cname(e.tensor)}[VS_RD(vs_sh_{e.tensor}, {self.offset(e.tensor, e.index)})]", 100)

    def store_target(self, t: str, idx) -> str:
        if not self.watched(t):
            return super().store_target(t, idx)
        return f"{cname(t)}[VS_WR(vs_sh_{t}, {self.offset(t, idx)})]"

    def stmt(self, s, depth: int) -> None:
        if isinstance(s, ir.Zero) and self.watched(s.tensor):
            gate = self.gate()
            self.out(depth, f"if ({self.conj(gate)}) {{")
            self.out(depth + 1, f"VS_WR_ALL(vs_sh_{s.tensor});")
            KernelEmitter.stmt(self, s, depth + 1)
            self.out(depth, "}")
            return
        super().stmt(s, depth)

    # ------------------------------------------------------------ per-thread passes
    def prologue(self, depth: int) -> None:
        self.out(depth, "const int64_t vs_tx = vs_t % vs_t0, vs_ty = vs_t / vs_t0 % vs_t1, "
                        "vs_tz = vs_t / (vs_t0 * vs_t1);")
        self.out(depth, "(void)vs_tx; (void)vs_ty; (void)vs_tz; VS_THREAD(vs_t);")
        for t in self.locals_:
            ctype, c = C_STORAGE[t.prec], cname(t.name)
            self.out(depth, f"{ctype} *restrict {c} = vs_all_{t.name} + vs_t * vs_cells_{t.name}; (void){c};")
        for var, value in self.tbind:
            self.out(depth, f"const int64_t {cname(var)} = {value}; (void){cname(var)};")

    def each_thread(self, depth: int, shuffled: bool) -> None:
        if shuffled:
            self.out(depth, "vs_shuffle(vs_perm, vs_nt);")
            self.out(depth, "for (int64_t vs_p = 0; vs_p < vs_nt; vs_p++) {")
            self.out(depth + 1, "const int64_t vs_t = vs_perm[vs_p];")
        else:
            self.out(depth, "for (int64_t vs_t = 0; vs_t < vs_nt; vs_t++) {")
        self.prologue(depth + 1)

    def segment(self, stmts, depth: int, mask: list) -> None:
        if not self.hw:
            self.body(stmts, depth)
            return
        self.each_thread(depth, True)
        if mask:
            self.out(depth + 1, f"if ({self.conj(mask)}) {{")
            self.body(stmts, depth + 2)
            self.out(depth + 1, "}")
        else:
            self.body(stmts, depth + 1)
        self.out(depth, "}")

    def barrier(self, bid: int, depth: int, mask: list) -> None:
        if not mask:
            self.out(depth, "vs_phase++;")
            return
        self.out(depth, "{")
        self.out(depth + 1, "int64_t vs_in = 0, vs_a = -1, vs_o = -1;")
        self.each_thread(depth + 1, False)
        self.out(depth + 2, f"if ({self.conj(mask)}) {{ vs_in++; vs_a = vs_t; }} else vs_o = vs_t;")
        self.out(depth + 1, "}")
        self.out(depth + 1, f"if (vs_in != 0 && vs_in != vs_nt) vs_diverge({bid}, vs_a, vs_o, vs_in, vs_nt);")
        self.out(depth + 1, "if (vs_in != 0) vs_phase++;")
        self.out(depth, "}")

    def array(self, stem: str, ctype: str = "int64_t") -> str:
        name = self.tmp(stem)
        self.arrays.append((name, ctype))
        return name

    def nonuniform_loop(self, s: ir.For, depth: int, mask: list) -> None:
        lo, trip, most, n = self.array("lo"), self.array("trip"), self.tmp("most"), self.tmp("n")
        self.out(depth, "{")
        self.out(depth + 1, f"int64_t {most} = 0;")
        self.each_thread(depth + 1, False)
        self.out(depth + 2, f"const int64_t vs_l = {self.index(s.lo)[0]}, vs_h = {self.index(s.hi)[0]};")
        self.out(depth + 2, f"{lo}[vs_t] = vs_l;")
        self.out(depth + 2, f"{trip}[vs_t] = ({self.conj(mask)}) && vs_h > vs_l ? vs_h - vs_l : 0;")
        self.out(depth + 2, f"if ({trip}[vs_t] > {most}) {most} = {trip}[vs_t];")
        self.out(depth + 1, "}")
        self.out(depth + 1, f"for (int64_t {n} = 0; {n} < {most}; {n}++) {{")
        self.tbind.append((s.var, f"{lo}[vs_t] + {n}"))
        self.uni(s.body, depth + 2, mask + [f"{n} < {trip}[vs_t]"])
        self.tbind.pop()
        self.out(depth + 1, "}")
        self.out(depth, "}")

    def nonuniform_if(self, s: ir.If, depth: int, mask: list) -> None:
        c = self.array("c", "signed char")
        self.each_thread(depth, False)
        self.out(depth + 1, f"{c}[vs_t] = ({self.conj(mask)}) ? (({self.cond(s.cond, None)}) ? 1 : 2) : 0;")
        self.out(depth, "}")
        self.uni(s.then, depth, mask + [f"{c}[vs_t] == 1"])
        self.uni(s.orelse, depth, mask + [f"{c}[vs_t] == 2"])

    # ------------------------------------------------------------ launches
    def launch(self, launch: Launch, depth: int) -> None:
        if not launch.hardware:
            self.hw, self.instrument, self.where = False, False, (False, False)
            self.out(depth, f"/* launch {launch.index}: no hardware loops, runs once */")
            self.out(depth, "vs_launch = " + str(launch.index) + ";")
            self.uni([launch.stmt], depth, [])
            return
        self.hw, self.instrument, self.where = True, True, (False, False)
        self.full = launch.full_axes
        scratch = used_scratch(self.program, launch.stmt)
        shared = [t for t in scratch if t.memory == "shared"]
        self.locals_ = [t for t in scratch if t.memory == "local"]
        watched = used_globals(self.program, launch.stmt) + shared
        self.arrays, outer, self.lines = [], self.lines, []
        self.uni([launch.stmt], 3, [])
        body, self.lines = self.lines, outer
        ids = {t.name: i for i, t in enumerate(self.program.tensors)}
        d = depth + 1
        self.out(depth, f"{{  /* launch {launch.index} */")
        self.out(d, f"vs_launch = {launch.index};")
        self.out(d, "const int vs_mark = vs_nallocs;  /* this launch's buffers are freed at its end */")
        self.out(d, "int64_t vs_g0 = 1, vs_g1 = 1, vs_g2 = 1, vs_t0 = 1, vs_t1 = 1, vs_t2 = 1, vs_ntmax = 1;")
        for ax in launch.block_axes:
            for hi in launch.his(ax):
                g = f"vs_g{'xyz'.index(ax[-1])}"
                self.out(d, f"{g} = vs_max_i64({g}, {self.index(hi)[0]});")
        self.out(d, "const int64_t vs_nblk = vs_g0 * vs_g1 * vs_g2;")
        self.out(d, "for (int64_t vs_blk = 0; vs_blk < vs_nblk; vs_blk++) {  /* the largest block */")
        self.block_extents(launch, d + 1)
        self.out(d + 1, "vs_ntmax = vs_max_i64(vs_ntmax, vs_t0 * vs_t1 * vs_t2);")
        self.out(d + 1, "if (!" + ("1" if launch.needs_grid_walk else "0") + ") break;")
        self.out(d, "}")
        self.out(d, "int64_t *restrict vs_border = (int64_t *)vs_alloc(sizeof(int64_t) * (size_t)vs_nblk);")
        self.out(d, "int64_t *restrict vs_perm = (int64_t *)vs_alloc(sizeof(int64_t) * (size_t)vs_ntmax);")
        for name, ctype in self.arrays:
            self.out(d, f"{ctype} *restrict {name} = ({ctype} *)vs_alloc(sizeof({ctype}) * (size_t)vs_ntmax);")
        for t in shared:
            ctype, c = C_STORAGE[t.prec], cname(t.name)
            self.out(d, f"const size_t vs_bytes_{t.name} = sizeof({ctype}) * (size_t)({self.count(t)});")
            self.out(d, f"{ctype} *restrict {c} = ({ctype} *)vs_alloc(vs_bytes_{t.name});  /* shared */")
        for t in self.locals_:
            ctype = C_STORAGE[t.prec]
            self.out(d, f"const int64_t vs_cells_{t.name} = {self.count(t)};")
            self.out(d, f"{ctype} *restrict vs_all_{t.name} = ({ctype} *)vs_alloc(sizeof({ctype}) * "
                        f"(size_t)(vs_cells_{t.name} * vs_ntmax));  /* local, per thread */")
        self.out(0, "#ifdef VS_RACE")
        for t in watched:
            self.out(d, f"vs_shadow vs_sh_{t.name}; vs_shadow_init(&vs_sh_{t.name}, {ids[t.name]}, "
                        f"{self.count(t)});")
        self.out(0, "#endif")
        self.out(d, "vs_iota(vs_border, vs_nblk);")
        self.out(d, "vs_shuffle(vs_border, vs_nblk);")
        self.out(d, "for (int64_t vs_bi = 0; vs_bi < vs_nblk; vs_bi++) {")
        self.out(d + 1, "const int64_t vs_blk = vs_border[vs_bi];")
        self.block_extents(launch, d + 1)
        self.out(d + 1, "const int64_t vs_nt = vs_t0 * vs_t1 * vs_t2;")
        self.out(d + 1, "vs_dims[0] = vs_g0; vs_dims[1] = vs_g1; vs_dims[2] = vs_g2;")
        self.out(d + 1, "vs_dims[3] = vs_t0; vs_dims[4] = vs_t1; vs_dims[5] = vs_t2;")
        self.out(d + 1, "vs_cur_block = vs_blk; vs_phase = 0;")
        self.out(d + 1, "vs_iota(vs_perm, vs_nt);")
        for t in shared:
            self.out(d + 1, f"memset({cname(t.name)}, 0xff, vs_bytes_{t.name});")
        for t in self.locals_:
            self.out(d + 1, f"memset(vs_all_{t.name}, 0xff, sizeof(*vs_all_{t.name}) * "
                            f"(size_t)(vs_cells_{t.name} * vs_nt));")
        if shared:
            self.out(0, "#ifdef VS_RACE")
            for t in shared:
                self.out(d + 1, f"vs_shadow_reset(&vs_sh_{t.name});")
            self.out(0, "#endif")
        self.lines.extend(body)
        self.out(d, "}")
        self.out(d, "vs_free_to(vs_mark);")
        self.out(depth, "}")
        self.locals_ = []

    def block_extents(self, launch: Launch, depth: int) -> None:
        """vs_bx/by/bz from vs_blk, then this block's thread extents vs_t0/1/2."""
        self.out(depth, "const int64_t vs_bx = vs_blk % vs_g0, vs_by = vs_blk / vs_g0 % vs_g1, "
                        "vs_bz = vs_blk / (vs_g0 * vs_g1);")
        self.out(depth, "(void)vs_bx; (void)vs_by; (void)vs_bz;")
        self.out(depth, "vs_t0 = vs_t1 = vs_t2 = 1;")
        self.out(depth, "{")
        for v, ax in launch.block_vars.items():
            self.out(depth + 1, f"const int64_t {cname(v)} = vs_b{ax[-1]}; (void){cname(v)};")
        for ax in launch.thread_axes:
            for hi in launch.his(ax):
                t = f"vs_t{'xyz'.index(ax[-1])}"
                self.out(depth + 1, f"{t} = vs_max_i64({t}, {self.index(hi)[0]});")
        self.out(depth, "}")

    def kernel_source(self, k: ir.Kernel) -> str:
        self.lines = []
        launches = [Launch(self.program, s, i) for i, s in enumerate(k.body)]
        # scratch used outside hardware launches lives for the whole run, as in the C backend
        plain = [t for ln in launches if not ln.hardware for t in used_scratch(self.program, ln.stmt)]
        for t in dict.fromkeys(plain):
            ctype, c = C_STORAGE[t.prec], cname(t.name)
            self.out(1, f"{ctype} *restrict {c} = ({ctype} *)vs_alloc(sizeof({ctype}) * (size_t)({self.count(t)}));")
            self.out(1, f"memset({c}, 0xff, sizeof({ctype}) * (size_t)({self.count(t)}));")
        for ln in launches:
            self.launch(ln, 1)
        head = signature(self.program, k.name, restrict=True)
        inner = head.replace(f"void vs_{k.name}(", f"static void vs_body_{k.name}(", 1)
        args = ", ".join([cname(p) for p in param_names(self.program)] +
                         [cname(t.name) for t in self.program.tensors if t.memory in ("global", "constant")])
        return (f"/* kernel {k.name} (emulated) */\n{inner} {{\n" + "\n".join(self.lines) + "\n}\n"
                f"{head} {{\n  vs_status = 0; vs_nallocs = 0; memset(vs_info, 0, sizeof vs_info);\n"
                f"  if (setjmp(vs_jmp) == 0) vs_body_{k.name}({args});\n  vs_free_all();\n}}\n")


def emit_emulated(program: ir.Program, kernels=None, linked: bool = False) -> str:
    """Emulation C source: `void vs_<kernel>(...)` with the C backend's signature, plus
    `vs_emu_seed(uint64_t)`, `vs_emu_status()` and `vs_emu_info(int64_t[24])`. `linked`: the
    runtime only declared, its object (emulate_runtime.RUNTIME_OBJECT) linked in."""
    names = [k.name for k in program.kernels] if kernels is None else list(kernels)
    parts = preludes(program) + [RUNTIME_DECLARED if linked else RUNTIME]
    for name in names:
        parts.append(EmuEmitter(program).kernel_source(program.kernel(name)))
    return "\n".join(parts)


def _barrier_locs(program: ir.Program, kernel: str) -> list:
    em = EmuEmitter(program)
    em.kernel_source(program.kernel(kernel))
    return em.barriers


class EmulatedModule(CModule):
    """A loaded emulation library; `.run` raises RaceError / BarrierDivergenceError."""

    seed: int = 0
    detect_races: bool = False

    def run(self, kernel_name: str, sizes: dict, arrays: dict, seed=None) -> None:
        if kernel_name not in self.symbols:
            raise UsageError(f"no kernel {kernel_name!r} in this module (have {sorted(self.symbols)})")
        args = self.arguments(sizes, arrays)
        self.lib.vs_emu_seed(self.seed if seed is None else seed)
        getattr(self.lib, self.symbols[kernel_name])(*args)
        status = self.lib.vs_emu_status()
        if status:
            buf = self.ffi.new("int64_t[24]")
            self.lib.vs_emu_info(buf)
            raise self.error(kernel_name, sizes, [int(x) for x in buf])

    def error(self, kernel: str, sizes: dict, info: list) -> EmulationError:
        env = check_sizes(self.program, sizes)
        launch = Launch(self.program, self.program.kernel(kernel).body[info[18]], info[18])
        g, t = info[12:15], info[15:18]

        def block(b):
            parts = [f"{ax}={(b // ([1, g[0], g[0] * g[1]][i])) % g[i]}"
                     for i, ax in enumerate(("block.x", "block.y", "block.z")) if ax in launch.block_axes]
            return ", ".join(parts) or "the only block"

        def thread(x):
            parts = [f"{ax}={(x // ([1, t[0], t[0] * t[1]][i])) % t[i]}"
                     for i, ax in enumerate(("thread.x", "thread.y", "thread.z")) if ax in launch.thread_axes]
            return ", ".join(parts) or "the only thread"

        match info[0]:
            case 1:
                tensor = self.program.tensors[info[1]]
                cell = tuple(int(i) for i in np.unravel_index(info[2], storage_shape(tensor, env)))
                text = f"{tensor.name}[{', '.join(map(str, cell))}]"
                b1, t1, p1, w1, b2, t2, p2, w2 = info[3:11]
                first = (block(b1), thread(t1), "writes" if w1 else "reads")
                second = (block(b2), thread(t2), "writes" if w2 else "reads")
                if b1 != b2:
                    msg = (f"race on {tensor.memory} {text}: {first[0]}, {first[1]} {first[2]} it and "
                           f"{second[0]}, {second[1]} {second[2]} it; different blocks are unordered")
                else:
                    msg = (f"race on {tensor.memory} {text} in {second[0]}, barrier phase {p2}: "
                           f"{first[1]} {first[2]} it and {second[1]} {second[2]} it with no barrier between")
                return RaceError(f"{kernel}: {msg}", tensor.name, cell, first, second, p2, info)
            case 2:
                locs = _barrier_locs(self.program, kernel)
                where = locs[info[1]] if info[1] < len(locs) else "?"
                return BarrierDivergenceError(
                    f"{kernel}: barrier divergence in {block(info[2])}: the barrier at {where} (after "
                    f"phase {info[3]}) is reached by {info[6]} of {info[7]} threads (e.g. {thread(info[4])}) "
                    f"but not by {thread(info[5])}", info)
            case 5:
                tensor = self.program.tensors[info[1] // 64]
                return EmulationError(
                    f"{kernel}: index out of bounds: index {info[2]} of dimension {info[1] % 64} of "
                    f"{tensor.name} (extent {info[3]}) in {block(info[4])}, {thread(info[5])}", info)
            case 3:
                tensor = self.program.tensors[info[1]]
                return EmulationError(
                    f"{kernel}: index out of bounds: flat offset {info[2]} of {tensor.name} (storage of "
                    f"{info[3]} cells) in {block(info[4])}, {thread(info[5])}", info)
        return EmulationError(f"{kernel}: the emulation failed: out of memory or more than 256 live "
                              f"buffers (code {info[0]})", info)


def load_emulated(program: ir.Program, seed: int = 0, detect_races: bool = False, kernels=None,
                  quick: bool = False) -> EmulatedModule:
    """Emit, compile (through the C backend's content-hash cache) and load the emulation;
    `quick`: compiled at -O0 where that gives the same results (`quick_flags`), linking the
    runtime's object instead of compiling the runtime again (emulate_runtime: the same
    definitions; an optimized build keeps them in its unit, where they can be inlined)."""
    names = [k.name for k in program.kernels] if kernels is None else list(kernels)
    source = emit_emulated(program, names)
    flags = base = RACE_FLAGS if detect_races else FLAGS
    if quick:
        flags = quick_flags(flags, source)
    key = (source, flags)
    if key in MEMO:
        ffi, lib, path, status = *MEMO[key][:3], "memory"
    elif flags != base:
        linked = source.replace(RUNTIME, RUNTIME_DECLARED, 1)  # emit_emulated(..., linked=True)
        path, _, status = compile_shared(linked, flags, objects=(RUNTIME_OBJECT,))
    else:
        path, _, status = compile_shared(source, flags)
    if key not in MEMO:
        from cffi import FFI

        ffi = FFI()
        ffi.cdef("\n".join([cdef_signature(program, f"vs_{n}") for n in names] + [
            "void vs_emu_seed(uint64_t);", "int vs_emu_status(void);", "void vs_emu_info(int64_t *);"]))
        lib = ffi.dlopen(str(path))
        MEMO[key] = (ffi, lib, path)
    mod = EmulatedModule(program, path, {n: f"vs_{n}" for n in names}, ffi, lib, status, 0.0, source)
    mod.seed, mod.detect_races = seed, detect_races
    return mod
