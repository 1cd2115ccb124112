"""Tensor-core emission for the CUDA backend: a TensorCore block as nvcuda::wmma fragments.

A TensorCore block means exactly its scalar fallback run once by lane 0 (ir.TensorCore); every
backend may render that fallback, and the C backend and the GPU-on-CPU emulator always do. The
CUDA backend renders the WMMA intrinsic instead when all of these hold (`match`):

- the fallback is the perfect nest `for i in 0 .. M { for j in 0 .. N { for k in 0 .. K {
  d[.., I0 + i, J0 + j] += a[.., A0 + i, A1 + k] * b[.., B0 + k, B1 + j] } } }` (or
  `fma(a, b, d)`; loops not on hardware axes; each tile on its tensor's last two axes with unit
  coefficients, everything else free of i, j, k), with M, N, K multiples of 16: the block is a
  grid of m16n16k16 fragments, each d fragment loaded once, updated over K in k order, stored once;
- a and b are both f16 (any sm_70+) or both bf16 (sm_80+), d is f32, none of them local;
- the block's lane loop is `for lane in 0 .. 32 : thread.x` (one warp).

The fragment loads are row_major for a and b and mem_row_major for d, each from the tile's
address with the tensor's last storage dim (pad included) as the leading dimension. WMMA needs
256-bit aligned tile pointers and leading dimensions that are multiples of 16 bytes (8 f16 or
bf16 elements, 4 f32), and a whole converged warp: the emitted code tests, at run time and
warp-uniformly, the three pointers' alignment, the three leading dimensions and that
blockDim.x is a multiple of 32 (so lanes 0..31 of a thread.x row are one warp; the enclosing
code cannot depend on threadIdx.x, the lane loop being the only thread.x loop around the
block). When the test fails, the scalar fallback runs under `if (lane == 0)` as in the other
backends. Nothing else falls back at run time: any other shape, precision or lane extent is
rendered as the fallback statically.

Races: the intrinsic accesses exactly the cells the fallback does, from the lanes of lane 0's
own warp, so the verifier's race and dependence proofs (made on the fallback under lane == 0)
carry over once the warp's accesses are ordered: `__syncwarp()` before the fragment loads and
after the stores orders them with the warp's other accesses (a scalar fallback of another
iteration, code after the block).

Numerics: the products of f16 or bf16 values are exact in f32, and the intrinsic accumulates
them in f32, so its result equals the fallback's up to the order of the f32 additions inside a
fragment. That order (and the rounding of the intermediate sums) is unspecified by the
hardware, so the result is NOT guaranteed bitwise equal to the scalar fallback, which adds in
k order with round-to-nearest at every step: compare within an f32 summation tolerance.
"""
from __future__ import annotations

from verified_sched.core import ir
from verified_sched.core.mma_rule import MmaTile

from .c import cname

ELEMENT = {"f16": "__half", "bf16": "__nv_bfloat16"}
HEADER = "#include <mma.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"


def emit(em, tc: ir.TensorCore, t: MmaTile, depth: int, fallback) -> None:
    """Write the WMMA block for `tc` with emitter `em` (a codegen.cuda.CudaEmitter); the
    run-time test's else branch calls `fallback(depth)` (the scalar rendering)."""
    elem = ELEMENT[t.prec]
    pa, pb, pd = em.tmp("pa"), em.tmp("pb"), em.tmp("pd")
    lda, ldb, ldd = em.tmp("lda"), em.tmp("ldb"), em.tmp("ldd")
    ti, tj, tk = em.tmp("ti"), em.tmp("tj"), em.tmp("tk")
    fa, fb, fd = em.tmp("fa"), em.tmp("fb"), em.tmp("fd")
    m, n, kk = t.shape
    w = "nvcuda::wmma"

    def ptr(load: ir.Load, ctype: str) -> str:
        return f"({ctype} *)&{cname(load.tensor)}[{em.offset(load.tensor, t.base(load))}]"

    def ld(load: ir.Load) -> str:
        return em.index(em.program.tensor(load.tensor).storage_dims()[-1])[0]

    em.out(depth, f"{{  /* tensor core {m} x {n} x {kk}: {w} m16n16k16, {t.prec} x {t.prec} + f32, "
                  "one warp */")
    em.out(depth + 1, f"const {elem} *{pa} = {ptr(t.a, 'const ' + elem)};")
    em.out(depth + 1, f"const {elem} *{pb} = {ptr(t.b, 'const ' + elem)};")
    em.out(depth + 1, f"float *{pd} = {ptr(t.d, 'float')};")
    em.out(depth + 1, f"const int64_t {lda} = {ld(t.a)}, {ldb} = {ld(t.b)}, {ldd} = {ld(t.d)};")
    tests = ["blockDim.x % 32 == 0", f"{lda} % 8 == 0", f"{ldb} % 8 == 0", f"{ldd} % 4 == 0",
             f"{lda} <= 0x7fffffff", f"{ldb} <= 0x7fffffff", f"{ldd} <= 0x7fffffff",
             f"(((uintptr_t){pa} | (uintptr_t){pb} | (uintptr_t){pd}) & 31) == 0"]
    em.out(depth + 1, f"if ({' && '.join(tests)}) {{  /* warp-uniform */")
    d2 = depth + 2
    em.out(d2, "__syncwarp();  /* earlier writes of the warp's lanes are visible to the loads */")
    em.out(d2, f"for (int64_t {ti} = 0; {ti} < {m}; {ti} += 16) {{")
    em.out(d2 + 1, f"for (int64_t {tj} = 0; {tj} < {n}; {tj} += 16) {{")
    d4 = d2 + 2
    em.out(d4, f"{w}::fragment<{w}::accumulator, 16, 16, 16, float> {fd};")
    em.out(d4, f"{w}::load_matrix_sync({fd}, {pd} + {ti} * {ldd} + {tj}, (unsigned){ldd}, {w}::mem_row_major);")
    em.out(d4, f"for (int64_t {tk} = 0; {tk} < {kk}; {tk} += 16) {{")
    em.out(d4 + 1, f"{w}::fragment<{w}::matrix_a, 16, 16, 16, {elem}, {w}::row_major> {fa};")
    em.out(d4 + 1, f"{w}::fragment<{w}::matrix_b, 16, 16, 16, {elem}, {w}::row_major> {fb};")
    em.out(d4 + 1, f"{w}::load_matrix_sync({fa}, {pa} + {ti} * {lda} + {tk}, (unsigned){lda});")
    em.out(d4 + 1, f"{w}::load_matrix_sync({fb}, {pb} + {tk} * {ldb} + {tj}, (unsigned){ldb});")
    em.out(d4 + 1, f"{w}::mma_sync({fd}, {fa}, {fb}, {fd});")
    em.out(d4, "}")
    em.out(d4, f"{w}::store_matrix_sync({pd} + {ti} * {ldd} + {tj}, {fd}, (unsigned){ldd}, {w}::mem_row_major);")
    em.out(d2 + 1, "}")
    em.out(d2, "}")
    em.out(d2, "__syncwarp();  /* the stores are visible to the warp's later accesses */")
    em.out(depth + 1, "} else {  /* alignment or geometry does not allow the intrinsic */")
    fallback(depth + 2)
    em.out(depth + 1, "}")
    em.out(depth, "}")
