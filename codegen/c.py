"""The C backend: one C function per kernel; statements here, expressions spelled by
`codegen/c_expr.py` (translators over the semantics table, verified_sched/core/semantics.py).

Signature of `vs_<kernel>`: int64_t for every size parameter (program order), then a restrict
pointer for every global/constant tensor (program order) over its flat row-major storage
(dims + trailing pad). Typing rules (shared with the interpreter so both agree bitwise):

- Index expressions are int64; floor division and modulo go through `vs_floordiv`/`vs_mod`
  (mathematical semantics, C truncates); a dynamic index reads the tensor and widens it.
- An assignment computes in the compute type of its target (f64 double; f32/f16/bf16 float;
  i32 int32); loads, iterators and constants are converted to it leaf by leaf. FloorDiv/Mod
  subtrees are evaluated as integers first. `Cast(p, e)` evaluates e in p's compute type,
  rounds to p's storage, then converts to the surrounding type.
- A comparison whose operands are both integer typed (`semantics.integer_typed`: literals,
  sizes, iterators, i32 reads and casts, and + - * min max neg abs relu floor mod where of
  them) is done in int64 (so `-N < 0` at N = 2^31 + 5 holds); otherwise in the
  surrounding compute type (at statement level: double if an f64 load or cast is involved,
  else float if any float load, cast or literal is, else int32).
- float min/max are IEEE 754-2019 minimum/maximum (`vs_min_f32` ...: a NaN operand gives the
  canonical quiet NaN, -0 < +0), relu(x) = max(x, +0); abs(x) = x < 0 ? -x : x (the
  interpreter implements the same rules, NaN and -0 included);
  i32 `/` truncates (x/0 = 0 here; the interpreter reports it); i32 overflow wraps (-fwrapv).
  floor/mod of a non-integer operand: floor(x / c) and x - c * floor(x / c) in the compute type.
- f16 is stored as IEEE binary16 bits (uint16_t) and converted through _Float16 (GCC >= 12,
  clang); bf16 is the upper half of the f32 pattern with round-to-nearest-even on store.
- Shared/local tensors are function-local arrays, 64-byte aligned (stack if small and
  constant-sized, else slices of a per-thread workspace kept between calls) filled with all-ones bits at entry (NaN for floats, -1 for i32), unless the first
  top-level statement naming one is its `zero` (then nothing can read the fill).
- Hardware loops are serial loops; barrier is a comment; a tensor-core block runs its scalar
  fallback once, under `if (lane == 0)` when the lane loop encloses it.
"""
from __future__ import annotations

import math

from verified_sched.core import ir
from verified_sched.core.errors import InternalError, UsageError
from verified_sched.core.expr_mapper import NODE_METHODS

from .c_expr import (ADD, ATOM, MUL, UNARY, CONDITION_KINDS, IndexC, ScalarC,  # noqa: F401
                     cname, float_literal, is_int_expr, par as _par)
from .c_tile import emit_jam, emit_tile, match_jam, match_tile
from verified_sched.core.dtypes import C_COMPUTE, C_STORAGE, NP_DTYPE, eval_int, global_tensors, param_names

STACK_LIMIT = 64 * 1024  # bytes; larger or size-dependent local tensors are in the workspace
WORKSPACE_KEEP_MB = 256  # a thread's workspace above this is freed after the call

def _float_helpers(ctype: str, suffix: str, zero: str) -> str:
    """The C text of vs_min/vs_max/vs_abs of one float type (IEEE 754-2019 minimum/maximum: a
    NaN operand gives the canonical quiet NaN, -0 < +0; see the prelude's comment)."""
    lines = []
    for fn, cmp, tie in (("min", "<", "a : b"), ("max", ">", "b : a")):
        lines += [f"static inline {ctype} vs_{fn}_{suffix}({ctype} a, {ctype} b) {{",
                  f"  if (a != a || b != b) return vs_nan_{suffix}();",
                  f"  if (a == b) return vs_neg_{suffix}(a) ? {tie};",
                  f"  return a {cmp} b ? a : b;",
                  "}"]
    lines.append(f"static inline {ctype} vs_abs_{suffix}({ctype} a) {{ return a < {zero} ? -a : a; }}")
    return "\n".join(lines) + "\n"


PRELUDE = r"""#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static inline int64_t vs_floordiv(int64_t a, int64_t c) { int64_t q = a / c; return q - (a % c < 0); }
static inline int64_t vs_mod(int64_t a, int64_t c) { int64_t r = a % c; return r < 0 ? r + c : r; }
static inline int64_t vs_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t vs_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t vs_abs_i64(int64_t a) { return a < 0 ? -a : a; }
static inline int32_t vs_min_i32(int32_t a, int32_t b) { return a < b ? a : b; }
static inline int32_t vs_max_i32(int32_t a, int32_t b) { return a > b ? a : b; }
static inline int32_t vs_abs_i32(int32_t a) { return a < 0 ? -a : a; }
static inline int32_t vs_div_i32(int32_t a, int32_t b) { return b == 0 ? 0 : (b == -1 ? -a : a / b); }
/* float min/max: IEEE 754-2019 minimum/maximum (the interpreter implements the same rule):
   a NaN operand gives the canonical quiet NaN, -0 < +0, so a min/max reduction gives the same
   bits in every order. Not `a > b ? a : b` (drops a NaN first operand) nor fmax (drops NaN). */
static inline float vs_nan_f32(void) { uint32_t u = 0x7fc00000u; float f; memcpy(&f, &u, 4); return f; }
static inline double vs_nan_f64(void) { uint64_t u = 0x7ff8000000000000ull; double f; memcpy(&f, &u, 8); return f; }
static inline int vs_neg_f32(float a) { uint32_t u; memcpy(&u, &a, 4); return (int)(u >> 31); }
static inline int vs_neg_f64(double a) { uint64_t u; memcpy(&u, &a, 8); return (int)(u >> 63); }
""" + _float_helpers("float", "f32", "0.0f") + _float_helpers("double", "f64", "0.0") + r"""static inline float vs_bf2f(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static inline uint16_t vs_f2bf(float f) {
  uint32_t u; memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
"""

F16_PRELUDE = r"""#ifndef __FLT16_MANT_DIG__
#error "verified_sched: f16 tensors need a C compiler with _Float16 (GCC >= 12 or clang)"
#endif
static inline float vs_h2f(uint16_t h) { _Float16 x; memcpy(&x, &h, 2); return (float)x; }
static inline uint16_t vs_f2h(float f) { _Float16 x = (_Float16)f; uint16_t h; memcpy(&h, &x, 2); return h; }
"""


class KernelEmitter:
    split = None  # callable(program, body) -> body run on each kernel's body first (emit_c's `split`)
    register_tiles = False  # emit_c: accumulation tiles held in vector registers (codegen/c_tile.py)

    def __init__(self, program: ir.Program):
        self.program = program
        self.lines: list[str] = []
        self.scope: list[str] = []
        self.counter = 0

    def out(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    # ------------------------------------------------------------ expressions
    def offset(self, tensor: str, index) -> str:
        """Horner form of the flat row-major offset over the storage dims."""
        t = self.program.tensor(tensor)
        if not index:
            return "0"
        dims = t.storage_dims()
        acc = self.index(index[0])
        for d, i in zip(dims[1:], index[1:]):
            acc = (f"{_par(acc, MUL)} * {_par(self.index(d), MUL)} + {_par(self.index(i), ADD)}", ADD)
        return acc[0]

    def raw_load(self, e: ir.Load) -> tuple:
        return (f"{cname(e.tensor)}[{self.offset(e.tensor, e.index)}]", ATOM)

    def index(self, e) -> tuple:
        """An int64 C expression (codegen.c_expr.IndexC)."""
        return IndexC(self)(e)

    def convert(self, tp: tuple, src: str, dst: str) -> tuple:
        return tp if src == dst else (f"({dst}){_par(tp, UNARY)}", UNARY)

    def scalar(self, e, ct: str) -> tuple:
        """A C expression of type ct ('float', 'double' or 'int32_t'; codegen.c_expr.ScalarC)."""
        if type(e) in NODE_METHODS and not isinstance(e, CONDITION_KINDS):
            return ScalarC(self)(e, ct)
        raise InternalError(f"not a scalar expression: {e!r}")

    def cond(self, c, ct) -> str:
        return self._cond(c, ct)[0]

    def _cond(self, c, ct) -> tuple:
        if not isinstance(c, CONDITION_KINDS):
            raise InternalError(f"not a condition: {c!r}")
        return ScalarC(self)(c, ct)

    # ------------------------------------------------------------ statements
    def body(self, stmts, depth: int) -> None:
        for s in stmts:
            self.stmt(s, depth)

    def bound(self, e, depth: int) -> str:
        """Loop bounds are evaluated once; non-trivial ones get a const local."""
        text = self.index(e)
        if isinstance(e, (ir.Int, ir.Var)):
            return text[0]
        self.counter += 1
        name = f"vs_b{self.counter}"
        self.out(depth, f"const int64_t {name} = {text[0]};")
        return name

    def stmt(self, s, depth: int) -> None:
        match s:
            case ir.For() if self.register_tiles and (jam := match_jam(self.program, s)):
                emit_jam(self, jam, depth)
            case ir.For() if self.register_tiles and (tile := match_tile(self.program, s)):
                emit_tile(self, tile, depth)
            case ir.For(var=v, lo=lo, hi=hi, axis=axis, body=body):
                lo_s, hi_s = self.bound(lo, depth), self.bound(hi, depth)
                note = ""
                if axis == "vectorized":
                    self.out(depth, "#pragma omp simd")
                elif axis == "unrolled":
                    n = hi.value - lo.value if isinstance(lo, ir.Int) and isinstance(hi, ir.Int) else 16
                    self.out(depth, f"#pragma GCC unroll {min(max(n, 1), 64)}")  # capped: compile time
                elif ir.is_hardware(axis):
                    note = f"  /* {axis} */"
                c = cname(v)
                self.out(depth, f"for (int64_t {c} = {lo_s}; {c} < {hi_s}; {c}++) {{{note}")
                self.scope.append(v)
                self.body(body, depth + 1)
                self.scope.pop()
                self.out(depth, "}")
            case ir.Assign(tensor=t, index=idx, value=value):
                self.assign(t, idx, value, depth)
            case ir.Zero(tensor=t):
                tensor = self.program.tensor(t)
                self.out(depth, f"memset({cname(t)}, 0, sizeof({C_STORAGE[tensor.prec]}) * "
                                f"(size_t)({self.count(tensor)}));")
            case ir.If(cond=c, then=then, orelse=orelse):
                self.out(depth, f"if ({self.cond(c, None)}) {{")
                self.body(then, depth + 1)
                if orelse:
                    self.out(depth, "} else {")
                    self.body(orelse, depth + 1)
                self.out(depth, "}")
            case ir.Barrier():
                self.out(depth, "/* barrier */")
            case ir.TensorCore(lane=lane, shape=shape, fallback=fallback):
                dims = " x ".join(str(x) for x in shape)
                head = f"if ({cname(lane)} == 0) {{" if lane in self.scope else "{"
                self.out(depth, f"{head}  /* tensor core {dims}: scalar fallback, run once */")
                self.body(fallback, depth + 1)
                self.out(depth, "}")
            case _:
                raise InternalError(f"not a statement: {s!r}")

    def workspace(self, heap: list, zeroed: set) -> None:
        """The large local tensors as 64-byte aligned slices of one per-thread workspace that
        is kept between calls (grown when a call needs more; freed after a call above
        WORKSPACE_KEEP_MB): no allocation, and no page faults of fresh pages, on every call.
        64 bytes (a cache line, an AVX-512 vector): malloc's 16 would split every vector load
        of a register tile across two lines."""
        self.out(1, "static __thread unsigned char *vs_ws = 0;  /* workspace of the local tensors */")
        self.out(1, "static __thread size_t vs_ws_size = 0;")
        offset = "0"
        for t in heap:
            ctype, name = C_STORAGE[t.prec], cname(t.name)
            self.out(1, f"const size_t vs_o_{name} = {offset};  /* {t.memory} {t.name} */")
            offset = (f"vs_o_{name} + ((sizeof({ctype}) * (size_t)({self.count(t)}) + 64) & ~(size_t)63)")
        self.out(1, f"const size_t vs_ws_need = {offset};")
        self.out(1, "if (vs_ws_need > vs_ws_size) {")
        self.out(2, "void *vs_p = 0;")
        self.out(2, "free(vs_ws);")
        self.out(2, "if (posix_memalign(&vs_p, 64, vs_ws_need)) abort();")
        self.out(2, "vs_ws = (unsigned char *)vs_p;")
        self.out(2, "vs_ws_size = vs_ws_need;")
        self.out(1, "}")
        for t in heap:
            ctype, name = C_STORAGE[t.prec], cname(t.name)
            self.out(1, f"{ctype} *restrict {name} = ({ctype} *)(vs_ws + vs_o_{name});")
            if t.name not in zeroed:
                self.out(1, f"memset({name}, 0xff, sizeof({ctype}) * (size_t)({self.count(t)}));")

    def plain(self, s, depth: int) -> None:
        """Emit `s` without register tiles (codegen/c_tile.py's fallback)."""
        saved, self.register_tiles = self.register_tiles, False
        try:
            self.stmt(s, depth)
        finally:
            self.register_tiles = saved

    def assign(self, t: str, idx, value, depth: int) -> None:
        prec = self.program.tensor(t).prec
        ct = C_COMPUTE[prec]
        target = self.store_target(t, idx)
        if prec in ("f32", "f64", "i32"):
            # t[I] = t[I] op e prints as t[I] op= e: the same arithmetic in the same type
            match value:
                case ir.BinOp(op=("+" | "-" | "*") as op, a=ir.Load(tensor=lt, index=li), b=e) \
                        if lt == t and li == idx:
                    rhs = self.scalar(e, ct)
                    self.out(depth, f"{target} {op}= {rhs[0]};")
                    return
        rhs = self.scalar(value, ct)[0]
        if prec == "f16":
            rhs = f"vs_f2h({rhs})"
        elif prec == "bf16":
            rhs = f"vs_f2bf({rhs})"
        self.out(depth, f"{target} = {rhs};")

    def store_target(self, t: str, idx) -> str:
        """The lvalue of an assignment (a hook: the emulator's race detector records the write)."""
        return f"{cname(t)}[{self.offset(t, idx)}]"

    def count(self, tensor: ir.Tensor) -> str:
        dims = tensor.storage_dims()
        if not dims:
            return "1"
        acc = self.index(dims[0])
        for d in dims[1:]:
            acc = (f"{_par(acc, MUL)} * {_par(self.index(d), MUL)}", MUL)
        return acc[0]

    # ------------------------------------------------------------ kernels
    def kernel(self, k: ir.Kernel) -> str:
        head = signature(self.program, k.name, restrict=True)
        used = {n.tensor for n in ir.walk(k.body) if isinstance(n, (ir.Load, ir.Assign, ir.Zero))}
        locals_ = [t for t in self.program.tensors if t.memory in ("shared", "local") and t.name in used]
        self.lines = []
        heap = []
        zeroed = zeroed_first(k.body)
        for t in locals_:
            ctype, name = C_STORAGE[t.prec], cname(t.name)
            try:
                n = math.prod(eval_int(d, {}) for d in t.storage_dims())
            except UsageError:  # dims depend on parameters: heap allocation
                n = None
            if n is not None and n * NP_DTYPE[t.prec].itemsize <= STACK_LIMIT:
                self.out(1, f"{ctype} {name}[{max(n, 1)}] __attribute__((aligned(64)));  /* {t.memory} */")
                if t.name not in zeroed:
                    self.out(1, f"memset({name}, 0xff, sizeof {name});")
            else:
                heap.append(t)
        if heap:
            self.workspace(heap, zeroed)
        self.body(k.body if self.split is None else self.split(self.program, k.body), 1)
        if heap:
            self.out(1, f"if (vs_ws_size > ((size_t){WORKSPACE_KEEP_MB} << 20)) {{ free(vs_ws); vs_ws = 0; vs_ws_size = 0; }}")
        return f"/* kernel {k.name} */\n{head} {{\n" + "\n".join(self.lines) + "\n}\n"




def zeroed_first(body) -> set:
    """Tensors whose first top-level statement that names them is `zero t`: its memset covers
    the poison fill of a local tensor before anything can read it, so the fill is left out."""
    seen, out = set(), set()
    for s in body:
        if isinstance(s, ir.Zero) and s.tensor not in seen:
            out.add(s.tensor)
        seen |= {n.tensor for n in ir.walk(s) if isinstance(n, (ir.Load, ir.Assign, ir.Zero))}
    return out


def signature(program: ir.Program, kernel_name: str, restrict: bool = False) -> str:
    """`void vs_<kernel>(int64_t P..., T *restrict t...)` (without restrict for cffi's cdef)."""
    args = [f"int64_t {cname(p)}" for p in param_names(program)]
    r = " *restrict " if restrict else " *"
    args += [f"{C_STORAGE[t.prec]}{r}{cname(t.name)}" for t in global_tensors(program)]
    return f"void vs_{kernel_name}({', '.join(args) or 'void'})"


def emit_c(program: ir.Program, kernels=None, split=None) -> str:
    """C source for the named kernels (default: every kernel of the program). `split`:
    None, or callable(program, body) -> body applied to each kernel's body before emission;
    the layers above pass `verified_sched.analysis.full_tiles.full_tiles` (loops split so
    full tiles run guard-free where isl proves it; the backend imports nothing above core)."""
    names = [k.name for k in program.kernels] if kernels is None else list(kernels)
    parts = preludes(program)
    for name in names:
        emitter = KernelEmitter(program)
        emitter.split = split
        emitter.register_tiles = True
        parts.append(emitter.kernel(program.kernel(name)))
    return "\n".join(parts)


def preludes(program: ir.Program) -> list:
    """The helper definitions every C source of `program` starts with (f16 ones only when an
    f16 tensor or cast occurs); shared with the GPU-on-CPU emulator."""
    parts = [PRELUDE]
    if any(t.prec == "f16" for t in program.tensors) or any(
            isinstance(n, ir.Cast) and n.prec == "f16" for n in ir.walk(program.kernels)):
        parts.append(F16_PRELUDE)
    return parts
