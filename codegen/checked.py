"""Bounds-checked C for the oracle: an access outside storage is a finding.

The plain C backend indexes tensors unchecked (fast; what `vsched emit` prints and the
benchmarks time). Guard zones around the arrays catch an out-of-bounds *write* that changes a
guard cell, but not an out-of-bounds *read*, nor a write that stores back the guard's own
value (a blend lane), nor an index outside one dimension that stays inside the flat storage.
The oracle's C build therefore checks every index component of every access against its
storage dimension: `vs_ck(i, extent, code)` returns i, or records the access (tensor,
dimension, index, extent, read or write) and leaves the kernel through longjmp. The module's
`run` raises `OutOfStorage` (codegen/storage_error.py) naming it, so `vsched run` reports "FAILED ... reads
x[...] outside its storage" at an in_bounds counterexample's sizes.

Same signature `vs_<kernel>(sizes..., tensors...)` and arithmetic as codegen/c.py (the
emitter is a subclass that only changes how an offset is written).
"""
from __future__ import annotations

from pathlib import Path

from cffi import FFI

from verified_sched.core import ir
from .build import FLAGS, CModule, cdef_signature, compile_shared
from .c import KernelEmitter, cname, preludes, signature
from verified_sched.core.dtypes import check_sizes, param_names, storage_shape
from .storage_error import OutOfStorage

MEMO: dict = {}

RUNTIME = r"""#include <setjmp.h>
/* ---- bounds checks of the oracle build ---- */
static jmp_buf vs_ck_jmp;
static int64_t vs_ck_info[4];  /* code (tensor * 64 + dim * 2 + write) + 1, index, extent */
int vs_ck_status(int64_t *out) { memcpy(out, vs_ck_info, sizeof vs_ck_info); return vs_ck_info[0] != 0; }
static int64_t vs_ck(int64_t i, int64_t n, int64_t code) {
  if (i < 0 || i >= n) {
    vs_ck_info[0] = code + 1; vs_ck_info[1] = i; vs_ck_info[2] = n;
    longjmp(vs_ck_jmp, 1);
  }
  return i;
}
"""


def _par(text: str) -> str:
    return f"({text})"


class CheckedEmitter(KernelEmitter):
    """The C backend's emitter with every index component bounds-checked."""

    def __init__(self, program: ir.Program):
        super().__init__(program)
        self.ids = {t.name: k for k, t in enumerate(program.tensors)}
        self.writing = False

    def offset(self, tensor: str, index) -> str:
        t = self.program.tensor(tensor)
        if not index:
            return "0"
        dims = t.storage_dims()
        parts = []
        for k, (i, d) in enumerate(zip(index, dims)):
            code = self.ids[tensor] * 64 + min(k, 31) * 2 + int(self.writing)
            parts.append((f"vs_ck({self.index(i)[0]}, {self.index(d)[0]}, {code})", self.index(d)[0]))
        acc = parts[0][0]
        for (chk, _), d in zip(parts[1:], dims[1:]):
            acc = f"{_par(acc)} * {_par(self.index(d)[0])} + {chk}"
        return acc

    def raw_load(self, e: ir.Load) -> tuple:
        was, self.writing = self.writing, False
        try:
            return super().raw_load(e)
        finally:
            self.writing = was

    def store_target(self, t: str, idx) -> str:
        self.writing = True
        try:
            return super().store_target(t, idx)
        finally:
            self.writing = False


def emit_checked(program: ir.Program, kernels=None, split=None) -> str:
    """Bounds-checked C for the named kernels (`split`: as emit_c's)."""
    names = [k.name for k in program.kernels] if kernels is None else list(kernels)
    parts = preludes(program) + [RUNTIME]
    for name in names:
        k = program.kernel(name)
        emitter = CheckedEmitter(program)
        emitter.split = split
        body = emitter.kernel(k)
        head = signature(program, name, restrict=True)
        inner = head.replace(f"void vs_{name}(", f"static void vs_body_{name}(", 1)
        parts.append(body.replace(head, inner, 1))
        args = ", ".join([cname(p) for p in param_names(program)] +
                         [cname(t.name) for t in program.tensors if t.memory in ("global", "constant")])
        parts.append(f"{head} {{\n  memset(vs_ck_info, 0, sizeof vs_ck_info);\n"
                     f"  if (setjmp(vs_ck_jmp) == 0) vs_body_{name}({args});\n}}\n")
    return "\n".join(parts)


class CheckedModule(CModule):
    """A loaded bounds-checked library: `.run` raises OutOfStorage at the first bad access."""

    def run(self, kernel_name: str, sizes: dict, arrays: dict) -> None:
        super().run(kernel_name, sizes, arrays)
        info = self.ffi.new("int64_t[4]")
        if self.lib.vs_ck_status(info):
            code, index, extent = int(info[0]) - 1, int(info[1]), int(info[2])
            t = self.program.tensors[code // 64]
            dim, write = (code % 64) // 2, code % 2
            env = check_sizes(self.program, sizes)
            shape = storage_shape(t, env)
            raise OutOfStorage(kernel_name, t.name,
                               f"kernel {kernel_name} {'wrote' if write else 'read'} outside the storage of "
                               f"tensor {t.name}: index {index} of dimension {dim} (extent {extent}; "
                               f"storage shape {list(shape)})")


def load_checked(program: ir.Program, kernels=None, flags=FLAGS, split=None) -> CheckedModule:
    """Emit the bounds-checked C (`split`: as emit_c's), compile it through the C backend's
    cache, and load it."""
    names = [k.name for k in program.kernels] if kernels is None else list(kernels)
    source = emit_checked(program, names, split)
    symbols = {n: f"vs_{n}" for n in names}
    key = (source, flags)
    if key in MEMO:
        ffi, lib, path, status = *MEMO[key], "memory"
    else:
        path, _, status = compile_shared(source, flags)
        ffi = FFI()
        ffi.cdef("\n".join([cdef_signature(program, s) for s in symbols.values()] +
                           ["int vs_ck_status(int64_t *);"]))
        lib = ffi.dlopen(str(Path(path)))
        MEMO[key] = (ffi, lib, path)
    return CheckedModule(program, path, symbols, ffi, lib, status, 0.0, source)


__all__ = ["emit_checked", "load_checked", "CheckedModule", "CheckedEmitter"]
