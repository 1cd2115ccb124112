"""The CUDA backend: one `__global__` kernel per launch and a host launcher per IR kernel.

Mapping: every top-level statement of a kernel is one launch.
block.x/y/z loops bind their iterator to blockIdx, thread.x/y/z loops to threadIdx; the launch
geometry is the largest upper bound of each axis's loops, computed on the host from the sizes
(thread extents may also depend on block iterators: the host then takes the maximum over the
grid). Serial loops stay loops, shared tensors become `__shared__` arrays (constant sizes),
local tensors per-thread arrays, barriers `__syncthreads()`, and a tensor-core block renders
as nvcuda::wmma where `codegen.cuda_mma` allows it (f16/bf16 operands, f32 target, multiples
of 16, a 32-lane thread.x loop), else as its scalar fallback under `if (lane == 0)`.
Expressions and indices come from the C backend (`codegen.c`), so both backends compute bitwise alike (`--fmad=false` keeps fp contraction off).

Barriers and guards: see `codegen.gpu_lowering` (the two-level walk shared with the
emulator); here a barrier under a mask is `__syncthreads_count(mask)`, and a count other than
0 or the block size is reported (launcher code 3) instead of hanging.

Effects outside every thread loop run on thread 0 only, outside every block loop on block 0
only (as the interpreter does). Top-level statements without hardware loops run as a <<<1,1>>>
launch, a top-level `zero` of a global tensor as `cudaMemset`.
"""
from __future__ import annotations

import shutil

from cffi import FFI

from verified_sched.core import ir, mma_rule
from verified_sched.core.errors import UsageError
from verified_sched.core.target_limits import THREADS_PER_BLOCK

from . import cuda_mma
from .build import CModule, compile_shared
from .c import PRELUDE, cname
from verified_sched.core.dtypes import C_STORAGE, global_tensors, param_names
from .gpu_lowering import (GpuLowering, Launch, Unsupported, const_count, is_global_zero,  # noqa: F401
                           used_globals, used_scratch)

AXIS_SLOT = {"x": 0, "y": 1, "z": 2}
NVCC_FLAGS = ("-O3", "-std=c++17", "--fmad=false", "-arch=sm_80", "-diag-suppress=177")
MAX_THREADS = THREADS_PER_BLOCK  # verified_sched/core/target_limits.py

CUDA_F16 = r"""#include <cuda_fp16.h>
static __device__ inline float vs_h2f(uint16_t h) { return __half2float(__ushort_as_half(h)); }
static __device__ inline uint16_t vs_f2h(float f) { return __half_as_ushort(__float2half_rn(f)); }
"""

CUDA_RUNTIME = r"""#include <stdio.h>
#include <cuda_runtime.h>
#define VS_CHECK(call) do { cudaError_t vs_e_ = (call); if (vs_e_ != cudaSuccess) { \
  fprintf(stderr, "verified_sched: %s failed: %s (%s:%d)\n", #call, cudaGetErrorString(vs_e_), \
          __FILE__, __LINE__); vs_rc = 1; goto vs_done; } } while (0)
static __device__ void vs_report(int *err, int code, int id, int count) {
  if (atomicCAS(err, 0, code) == 0) {
    err[1] = id; err[2] = (int)blockIdx.x; err[3] = (int)blockIdx.y; err[4] = (int)blockIdx.z; err[5] = count;
  }
}
"""


class CudaEmitter(GpuLowering):
    """CUDA device code for one launch, and the host launcher of a kernel."""

    def __init__(self, program: ir.Program):
        super().__init__(program)
        self.lanes: dict = {}  # id(TensorCore) -> its lane loop, per launch (mma_rule.lane_loops)
        self.uses_mma = False  # some block was rendered as WMMA: the source needs <mma.h>

    def out(self, depth: int, text: str) -> None:
        """The C backend's loop pragmas in nvcc's dialect (no omp simd; `#pragma unroll N`)."""
        if text == "#pragma omp simd":
            return
        super().out(depth, text.replace("#pragma GCC unroll", "#pragma unroll"))

    def stmt(self, s, depth: int) -> None:
        """A tensor-core block as WMMA when `mma_rule.match` allows it (else, and in the
        run-time fallback branch, the inherited scalar rendering under `if (lane == 0)`)."""
        tile = mma_rule.match(self.program, s, self.lanes.get(id(s))) if isinstance(s, ir.TensorCore) else None
        if tile is None:
            super().stmt(s, depth)
            return
        self.uses_mma = True
        gate = self.gate()
        if gate:
            self.out(depth, f"if ({self.conj(gate)}) {{")
        cuda_mma.emit(self, s, tile, depth + bool(gate), lambda d: super(CudaEmitter, self).stmt(s, d))
        if gate:
            self.out(depth, "}")

    def hw_index(self, axis: str) -> str:
        kind, slot = axis.split(".")
        return f"(int64_t){'blockIdx' if kind == 'block' else 'threadIdx'}.{slot}"

    def lead(self, kind: str) -> str:
        v = "threadIdx" if kind == "thread" else "blockIdx"
        return f"{v}.x == 0 && {v}.y == 0 && {v}.z == 0"

    def barrier(self, bid: int, depth: int, mask: list) -> None:
        if not mask:
            self.out(depth, "__syncthreads();")
            return
        n = self.tmp("n")
        self.out(depth, f"{{ const int {n} = __syncthreads_count({self.conj(mask)});")
        self.out(depth, f"  if ({n} != 0 && {n} != (int)(blockDim.x * blockDim.y * blockDim.z)) {{")
        self.out(depth, f"    if ({self.lead('thread')}) vs_report(vs_err, 1, {bid}, {n});")
        self.out(depth, "    return;  /* uniform: every thread of the block sees the same count */")
        self.out(depth, "  } }")

    def block_max(self, value: str, depth: int) -> str:
        """The block-wide maximum of a non-negative int64 (three barriers, reached by all)."""
        red, out = self.tmp("red"), self.tmp("max")
        self.out(depth, f"__shared__ unsigned long long {red};")
        self.out(depth, f"if ({self.lead('thread')}) {red} = 0ull;")
        self.out(depth, "__syncthreads();")
        self.out(depth, f"atomicMax(&{red}, (unsigned long long)({value}));")
        self.out(depth, "__syncthreads();")
        self.out(depth, f"const int64_t {out} = (int64_t){red};")
        self.out(depth, "__syncthreads();")
        return out

    def nonuniform_loop(self, s: ir.For, depth: int, mask: list) -> None:
        lo, hi, trip, n = self.tmp("lo"), self.tmp("hi"), self.tmp("trip"), self.tmp("n")
        self.out(depth, "{")
        self.out(depth + 1, f"const int64_t {lo} = {self.index(s.lo)[0]}, {hi} = {self.index(s.hi)[0]};")
        self.out(depth + 1, f"const int64_t {trip} = ({self.conj(mask)}) && {hi} > {lo} ? {hi} - {lo} : 0;")
        most = self.block_max(trip, depth + 1)
        self.out(depth + 1, f"for (int64_t {n} = 0; {n} < {most}; {n}++) {{")
        self.bind(s.var, f"{lo} + {n}", depth + 2)
        self.uni(s.body, depth + 2, mask + [f"{n} < {trip}"])
        self.out(depth + 1, "}")
        self.out(depth, "}")

    def nonuniform_if(self, s: ir.If, depth: int, mask: list) -> None:
        c = self.tmp("c")
        self.out(depth, "{")
        guard = f"({self.conj(mask)}) ? " if mask else ""
        fallback = " : 0" if mask else ""
        self.out(depth + 1, f"const int {c} = {guard}({self.cond(s.cond, None)}){fallback};")
        self.uni(s.then, depth + 1, mask + [c])
        self.uni(s.orelse, depth + 1, mask + [f"!{c}"])
        self.out(depth, "}")

    # ------------------------------------------------------------ launches
    def device_kernel(self, name: str, launch: Launch) -> str:
        self.lines, self.hw, self.where = [], launch.hardware, (False, False)
        self.full = launch.full_axes
        self.lanes = mma_rule.lane_loops(launch.stmt)
        sig = [f"int64_t {cname(p)}" for p in param_names(self.program)]
        sig += [f"{C_STORAGE[t.prec]} *__restrict__ {cname(t.name)}" for t in global_tensors(self.program)]
        sig.append("int *vs_err")
        for t in used_scratch(self.program, launch.stmt):
            n = const_count(t)
            if n is None:
                raise Unsupported(f"{t.memory} tensor {t.name} has size-dependent dims: CUDA needs constant sizes")
            ctype, c = C_STORAGE[t.prec], cname(t.name)
            if not launch.hardware:
                continue  # run-wide scratch: a __device__ array (see emit_cuda)
            if t.memory == "shared":
                self.out(1, f"__shared__ {ctype} {c}[{n}];")
            else:
                self.out(1, f"{ctype} {c}[{n}];  /* local */")
                self.out(1, f"memset({c}, 0xff, sizeof {c});")
        shared = [t for t in used_scratch(self.program, launch.stmt) if t.memory == "shared"]
        if launch.hardware and shared:
            self.out(1, "{  /* shared tensors start as all-ones bits (NaN), as in the interpreter */")
            self.out(2, "const int64_t vs_tid = threadIdx.x + (int64_t)blockDim.x * (threadIdx.y + "
                        "(int64_t)blockDim.y * threadIdx.z);")
            self.out(2, "const int64_t vs_nt = (int64_t)blockDim.x * blockDim.y * blockDim.z;")
            for t in shared:
                c = cname(t.name)
                self.out(2, f"for (int64_t vs_i = vs_tid; vs_i < (int64_t)sizeof {c}; vs_i += vs_nt) "
                            f"((unsigned char *){c})[vs_i] = 0xff;")
            self.out(1, "}")
            self.out(1, "__syncthreads();")
        self.uni([launch.stmt], 1, [])
        fn = f"vs_{name}_L{launch.index}"
        return f"__global__ void {fn}({', '.join(sig)}) {{\n" + "\n".join(self.lines) + "\n}\n"

    def geometry(self, launch: Launch, depth: int) -> None:
        """Host code setting vs_g[3] and vs_t[3] for `launch`."""
        self.out(depth, "vs_g[0] = vs_g[1] = vs_g[2] = vs_t[0] = vs_t[1] = vs_t[2] = 1;")
        for ax in launch.block_axes:
            for hi in launch.his(ax):
                slot = AXIS_SLOT[ax[-1]]
                self.out(depth, f"vs_g[{slot}] = vs_max_i64(vs_g[{slot}], {self.index(hi)[0]});")
        thread = [(AXIS_SLOT[ax[-1]], hi) for ax in launch.thread_axes for hi in launch.his(ax)]
        if not launch.needs_grid_walk:
            for slot, hi in thread:
                self.out(depth, f"vs_t[{slot}] = vs_max_i64(vs_t[{slot}], {self.index(hi)[0]});")
            return
        self.out(depth, "for (int64_t vs_hz = 0; vs_hz < vs_g[2]; vs_hz++)")
        self.out(depth, "for (int64_t vs_hy = 0; vs_hy < vs_g[1]; vs_hy++)")
        self.out(depth, "for (int64_t vs_hx = 0; vs_hx < vs_g[0]; vs_hx++) {")
        for v, ax in launch.block_vars.items():
            self.out(depth + 1, f"const int64_t {cname(v)} = vs_h{ax[-1]};")
        for slot, hi in thread:
            self.out(depth + 1, f"vs_t[{slot}] = vs_max_i64(vs_t[{slot}], {self.index(hi)[0]});")
        self.out(depth, "}")

    def fail(self, cond: str, report: list, rc: int) -> None:
        """Host code in a launch's block: when `cond` holds, run the `report` lines and leave
        with exit code `rc`."""
        self.out(2, f"if ({cond}) {{")
        for line in report:
            self.out(3, line)
        self.out(3, f"vs_rc = {rc}; goto vs_done;")
        self.out(2, "}")

    def host(self, kernel: ir.Kernel, launches: list) -> str:
        self.lines, self.hw = [], False
        tensors = global_tensors(self.program)
        used = used_globals(self.program, kernel.body)
        args = [f"int64_t {cname(p)}" for p in param_names(self.program)]
        args += [f"{C_STORAGE[t.prec]} *h_{t.name}" for t in tensors]
        self.out(1, "int vs_rc = 0;")
        self.out(1, "int *vs_derr = NULL;")
        self.out(1, "int vs_herr[8] = {0};")
        self.out(1, "int64_t vs_g[3], vs_t[3];")
        for t in used:
            self.out(1, f"{C_STORAGE[t.prec]} *d_{t.name} = NULL;")
            self.out(1, f"const size_t vs_n_{t.name} = (size_t)({self.count(t)}) * sizeof({C_STORAGE[t.prec]});")
        for t in used:
            self.out(1, f"VS_CHECK(cudaMalloc((void **)&d_{t.name}, vs_n_{t.name} + 1));")
            self.out(1, f"VS_CHECK(cudaMemcpy(d_{t.name}, h_{t.name}, vs_n_{t.name}, cudaMemcpyHostToDevice));")
        self.out(1, "VS_CHECK(cudaMalloc((void **)&vs_derr, sizeof vs_herr));")
        self.out(1, "VS_CHECK(cudaMemset(vs_derr, 0, sizeof vs_herr));")
        dev_args = [cname(p) for p in param_names(self.program)]
        dev_args += [f"d_{t.name}" if t in used else "NULL" for t in tensors]
        dev_args.append("vs_derr")
        for launch in launches:
            s = launch.stmt
            self.out(1, f"{{  /* launch {launch.index} */")
            if is_global_zero(self.program, s):
                self.out(2, f"VS_CHECK(cudaMemset(d_{s.tensor}, 0, vs_n_{s.tensor}));")
                self.out(1, "}")
                continue
            self.geometry(launch, 2)
            self.fail(f"vs_t[0] * vs_t[1] * vs_t[2] > {MAX_THREADS} || vs_t[2] > 64 || vs_g[1] > 65535 || "
                      "vs_g[2] > 65535 || vs_g[0] > 2147483647",
                      [f'fprintf(stderr, "verified_sched: vs_launch_{kernel.name}: launch {launch.index} '
                       f'needs grid (%lld, %lld, %lld) x block (%lld, %lld, %lld), beyond the hardware '
                       f'limits\\n", (long long)vs_g[0], (long long)vs_g[1], (long long)vs_g[2], '
                       f'(long long)vs_t[0], (long long)vs_t[1], (long long)vs_t[2]);'], 2)
            self.out(2, f"vs_{kernel.name}_L{launch.index}<<<dim3((unsigned)vs_g[0], (unsigned)vs_g[1], "
                        f"(unsigned)vs_g[2]), dim3((unsigned)vs_t[0], (unsigned)vs_t[1], (unsigned)vs_t[2])>>>"
                        f"({', '.join(dev_args)});")
            self.out(2, "VS_CHECK(cudaGetLastError());")
            self.out(2, "VS_CHECK(cudaDeviceSynchronize());")
            self.out(2, "VS_CHECK(cudaMemcpy(vs_herr, vs_derr, sizeof vs_herr, cudaMemcpyDeviceToHost));")
            locs = ", ".join('"' + b.replace('"', "'") + '"' for b in self.barriers) or '"?"'
            self.fail("vs_herr[0] != 0",
                      [f"static const char *const vs_locs[] = {{{locs}}};",
                       f'fprintf(stderr, "verified_sched: vs_launch_{kernel.name}: barrier divergence: the '
                       f'barrier at %s is reached by %d threads of block (%d, %d, %d) but not by all\\n", '
                       f'vs_locs[vs_herr[1]], vs_herr[5], vs_herr[2], vs_herr[3], vs_herr[4]);'], 3)
            self.out(1, "}")
        written = {n.tensor for n in ir.walk(kernel.body) if isinstance(n, (ir.Assign, ir.Zero))}
        for t in used:
            if t.name not in written:
                continue
            self.out(1, f"VS_CHECK(cudaMemcpy(h_{t.name}, d_{t.name}, vs_n_{t.name}, cudaMemcpyDeviceToHost));")
        self.out(0, "vs_done:")
        for name in [f"d_{t.name}" for t in used] + ["vs_derr"]:
            self.out(1, f"if ({name}) {{ cudaError_t vs_e = cudaFree({name}); if (vs_e != cudaSuccess && "
                        f"vs_rc == 0) {{ fprintf(stderr, \"verified_sched: cudaFree({name}) failed: %s\\n\", "
                        f"cudaGetErrorString(vs_e)); vs_rc = 1; }} }}")
        self.out(1, "return vs_rc;")
        return f'extern "C" int vs_launch_{kernel.name}({", ".join(args)}) {{\n' + "\n".join(self.lines) + "\n}\n"


def emit_cuda(program: ir.Program, kernels=None) -> str:
    """CUDA source: device kernels `vs_<kernel>_L<n>` per launch and host launchers
    `extern "C" int vs_launch_<kernel>(int64_t sizes..., T *host tensors...)` returning 0 on
    success, 1 on a CUDA error, 2 on a launch beyond the hardware limits, 3 on a divergent
    barrier (each printed on stderr)."""
    names = [k.name for k in program.kernels] if kernels is None else list(kernels)
    parts = ["#include <stdint.h>\n#include <string.h>\n#include <math.h>",
             PRELUDE.replace("static inline", "static __host__ __device__ inline").replace(
                 "#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n#include <math.h>\n", ""),
             CUDA_RUNTIME]
    if any(t.prec == "f16" for t in program.tensors) or any(
            isinstance(n, ir.Cast) and n.prec == "f16" for n in ir.walk(program.kernels)):
        parts.append(CUDA_F16)
    declared, mma = set(), False
    for name in names:
        kernel = program.kernel(name)
        launches = [Launch(program, s, i) for i, s in enumerate(kernel.body)]
        em = CudaEmitter(program)
        for launch in launches:
            if not launch.hardware:
                for t in used_scratch(program, launch.stmt):
                    if t.name not in declared:
                        declared.add(t.name)
                        parts.append(f"__device__ {C_STORAGE[t.prec]} {cname(t.name)}[{const_count(t)}];  "
                                     f"/* {t.memory}, outside hardware loops: lives for the run */")
            if not is_global_zero(program, launch.stmt):
                parts.append(f"/* kernel {name}, launch {launch.index} */\n" + em.device_kernel(name, launch))
        parts.append(em.host(kernel, launches))
        mma = mma or em.uses_mma
    if mma:
        parts.insert(1, cuda_mma.HEADER)
    return "\n".join(parts)


# ---------------------------------------------------------------- nvcc


def nvcc() -> str | None:
    return shutil.which("nvcc")


def load_cuda(program: ir.Program, kernels=None, flags=NVCC_FLAGS):
    """Build the launchers as a shared library (nvcc, cached like the C backend) and wrap them:
    `.run(kernel_name, sizes, arrays)` copies in, launches, copies out, and raises UsageError
    with the launcher's return code when a CUDA call fails (e.g. no GPU on this machine)."""
    tool = nvcc()
    if tool is None:
        raise UsageError("nvcc not found: install the CUDA toolkit to run the CUDA backend")
    names = [k.name for k in program.kernels] if kernels is None else list(kernels)
    source = emit_cuda(program, names)
    path, _, status = compile_shared(source, (*flags, "-shared", "-Xcompiler", "-fPIC"), cc=tool, suffix="cu")
    ffi = FFI()
    args = ["int64_t"] * len(param_names(program)) + [f"{C_STORAGE[t.prec]} *" for t in global_tensors(program)]
    ffi.cdef("\n".join(f"int vs_launch_{n}({', '.join(args) or 'void'});" for n in names))
    lib = ffi.dlopen(str(path))
    return CudaModule(program, path, {n: f"vs_launch_{n}" for n in names}, ffi, lib, status, 0.0, source)


class CudaModule(CModule):
    """A loaded launcher library: `.run` raises UsageError when the launcher reports an error."""

    def run(self, kernel_name: str, sizes: dict, arrays: dict) -> None:
        if kernel_name not in self.symbols:
            raise UsageError(f"no kernel {kernel_name!r} in this module (have {sorted(self.symbols)})")
        rc = getattr(self.lib, self.symbols[kernel_name])(*self.arguments(sizes, arrays))
        if rc != 0:
            what = {1: "a CUDA call failed", 2: "the launch exceeds the hardware limits",
                    3: "a barrier is divergent"}.get(rc, "unknown error")
            raise UsageError(f"CUDA run of {kernel_name}: {what} (code {rc}; details on stderr)")
