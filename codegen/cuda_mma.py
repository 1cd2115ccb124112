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

from dataclasses import dataclass
from typing import Optional

from verified_sched.core import ir

from .c import cname

FRAG = 16
ELEMENT = {"f16": "__half", "bf16": "__nv_bfloat16"}
HEADER = "#include <mma.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"


@dataclass(frozen=True)
class MmaTile:
    """A recognized fallback: target and operand loads, loop names, shape and operand precision."""

    d: ir.Load
    a: ir.Load
    b: ir.Load
    names: tuple  # (i, j, k)
    shape: tuple  # (M, N, K)
    prec: str

    def base(self, load: ir.Load) -> tuple:
        """The load's index at i = j = k = 0 (the tile's origin)."""
        zero = {n: ir.Int(0) for n in self.names}
        return tuple(ir.rewrite(ir.substitute(e, zero), _drop_zero) for e in load.index)


def _drop_zero(e):
    """x + 0, 0 + x, x - 0 -> x; c * 0, 0 * c -> 0 (readable tile addresses)."""
    match e:
        case ir.BinOp(op="+" | "-", a=x, b=ir.Int(value=0)) | ir.BinOp(op="+", a=ir.Int(value=0), b=x):
            return x
        case ir.BinOp(op="*", a=ir.Int(value=0)) | ir.BinOp(op="*", b=ir.Int(value=0)):
            return ir.Int(0)
    return None


def lane_loops(stmt) -> dict:
    """id(TensorCore) -> the loop binding its lane: the innermost loop around it when that loop's
    variable is the lane (None otherwise). Tensor cores inside a fallback are not looked at."""
    out = {}
    for x in ir.walk_scoped((stmt,), lambda x: not isinstance(x.stmt, ir.TensorCore)):
        if isinstance(x.stmt, ir.TensorCore):
            around = x.loops[-1] if x.loops else None
            out[id(x.stmt)] = around if around is not None and around.var == x.stmt.lane else None
    return out


def _coefficients(e, loops: set) -> Optional[dict]:
    """The coefficients of the nest's loops in `e` when `e` is affine in them with integer
    coefficients (everything free of them counts as a constant); None otherwise."""
    if not (ir.free_vars(e) & loops):
        return {}
    match e:
        case ir.Var(name=n):
            return {n: 1}
        case ir.BinOp(op=("+" | "-") as op, a=a, b=b):
            x, y = _coefficients(a, loops), _coefficients(b, loops)
            if x is None or y is None:
                return None
            sign = 1 if op == "+" else -1
            return {v: x.get(v, 0) + sign * y.get(v, 0) for v in x.keys() | y.keys()}
        case ir.BinOp(op="*", a=ir.Int(value=c), b=x) | ir.BinOp(op="*", a=x, b=ir.Int(value=c)):
            inner = _coefficients(x, loops)
            return None if inner is None else {v: c * w for v, w in inner.items()}
        case ir.Call(fn="neg", args=(x,)):
            inner = _coefficients(x, loops)
            return None if inner is None else {v: -w for v, w in inner.items()}
    return None


def _tile_axes(load: ir.Load, row: str, col: str, loops: set) -> bool:
    """The load's last two components are row + c and col + c', the others free of the loops."""
    idx = load.index
    if len(idx) < 2 or any(ir.free_vars(e) & loops for e in idx[:-2]):
        return False
    want = ({row: 1}, {col: 1})
    for e, w in zip(idx[-2:], want):
        got = _coefficients(e, loops)
        if got is None or {v: c for v, c in got.items() if c} != w:
            return False
    return True


def _nest(fallback: tuple):
    """(names, shape, assign) of a perfect 3-deep nest of constant 0-based loops, else None."""
    loops, body = [], fallback
    for _ in range(3):
        if len(body) != 1 or not isinstance(body[0], ir.For):
            return None
        lp = body[0]
        if ir.is_hardware(lp.axis) or lp.lo != ir.Int(0) or not isinstance(lp.hi, ir.Int):
            return None
        loops.append(lp)
        body = lp.body
    if len(body) != 1 or not isinstance(body[0], ir.Assign):
        return None
    return tuple(lp.var for lp in loops), tuple(lp.hi.value for lp in loops), body[0]


def match(program: ir.Program, tc: ir.TensorCore, lane_loop: Optional[ir.For]) -> Optional[MmaTile]:
    """The WMMA rendering of `tc` when the rule of the module docstring allows it, else None."""
    if lane_loop is None or lane_loop.axis != "thread.x" or lane_loop.lo != ir.Int(0) \
            or lane_loop.hi != ir.Int(32):
        return None
    nest = _nest(tc.fallback)
    if nest is None:
        return None
    names, shape, s = nest
    if any(n <= 0 or n % FRAG for n in shape):
        return None
    acc = ir.accumulation(s)
    if acc is None or acc[0] != "+":
        return None
    term = acc[1]
    if not (isinstance(term, ir.BinOp) and term.op == "*" and isinstance(term.a, ir.Load)
            and isinstance(term.b, ir.Load)):
        return None
    i, j, k = names
    loops = set(names)
    d = ir.Load(s.tensor, s.index)
    if not _tile_axes(d, i, j, loops):
        return None
    pair = next(((x, y) for x, y in ((term.a, term.b), (term.b, term.a))
                 if _tile_axes(x, i, k, loops) and _tile_axes(y, k, j, loops)), None)
    if pair is None:
        return None
    a, b = pair
    ta, tb, td = (program.tensor(x.tensor) for x in (a, b, d))
    if td.name in (ta.name, tb.name):
        return None
    if ta.prec != tb.prec or ta.prec not in ELEMENT or td.prec != "f32":
        return None
    if "local" in (ta.memory, tb.memory, td.memory):
        return None
    return MmaTile(d, a, b, names, shape, ta.prec)


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
