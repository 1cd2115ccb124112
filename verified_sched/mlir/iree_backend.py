"""IREE as a backend under test: `vsched run --target iree`, a `runner_cand` for
`verified_sched.oracle.compare.compare_kernels`, and a `vsched fuzz --backend` factory.

A kernel runs as: emit its MLIR at the sizes of the call (emit.py), compile it with
`iree-compile` for the local llvm-cpu device (cached by the sha256 of the source, the flags and
the compiler version, in `$VSCHED_CACHE_DIR/iree` or `~/.cache/verified_sched/iree`; written
to a temporary name and moved into place, so parallel processes share it), load the vmfb in
the IREE runtime, call the function on the storage arrays and copy its results back into them.

Needs the optional extra: `pip install '.[iree]'` (iree-base-compiler, iree-base-runtime).
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np

from verified_sched.core.dtypes import NP_DTYPE, global_tensors
from verified_sched.core import ir

from .emit import emit_mlir
from .optional import require

FLAGS = ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
         "--iree-llvmcpu-target-cpu=generic", "--iree-input-demote-f64-to-f32=false")
STATS = {"compiled": 0, "disk": 0, "memory": 0}
MEMO: dict = {}


class IreeError(Exception):
    """iree-compile rejected a module, or the runtime failed: a finding about the backend."""


def _iree():
    return require("'vsched run --target iree' needs iree: pip install 'verified_sched[iree]' "
                   "(iree-base-compiler and iree-base-runtime 3.13.0)", "iree.compiler", "iree.runtime")


def cache_dir() -> Path:
    from codegen.build import cache_dir as c_cache

    path = c_cache().parent / "iree"
    path.mkdir(parents=True, exist_ok=True)
    return path


def compile_vmfb(source: str, flags=FLAGS) -> Path:
    """Path of the compiled module (cached by content hash)."""
    compiler, _ = _iree()
    version = getattr(compiler, "__version__", "") or _compiler_version()
    key = hashlib.sha256("\0".join([source, " ".join(flags), version]).encode()).hexdigest()
    path = cache_dir() / f"{key}.vmfb"
    if path.exists():
        STATS["disk"] += 1
        return path
    try:
        blob = compiler.compile_str(source, extra_args=list(flags))
    except compiler.CompilerToolError as e:
        raise IreeError(f"iree-compile failed: {str(e).strip()[:4000]}") from None
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "wb") as fh:
        fh.write(blob)
    os.replace(tmp, path)
    (path.parent / f"{key}.mlir").write_text(source)
    STATS["compiled"] += 1
    return path


def _compiler_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("iree-base-compiler")
    except PackageNotFoundError:
        return ""


class IreeModule:
    """A compiled MLIR module in the IREE runtime (local-sync, one thread: deterministic)."""

    def __init__(self, source: str):
        _, runtime = _iree()
        path = compile_vmfb(source)
        key = str(path)
        if key in MEMO:
            STATS["memory"] += 1
            self.ctx = MEMO[key]
            return
        config = runtime.Config("local-sync")
        self.ctx = runtime.SystemContext(config=config)
        self.ctx.add_vm_module(runtime.VmModule.copy_buffer(self.ctx.instance, path.read_bytes()))
        MEMO[key] = self.ctx

    def function(self, name: str):
        return self.ctx.modules.module[name]


def run_kernel(program: ir.Program, kernel_name: str, sizes: dict, arrays: dict) -> None:
    """Run one kernel (as written) through IREE, updating the storage arrays in place."""
    kernel = program.kernel(kernel_name)
    source = emit_mlir(program, sizes, [kernel_name])
    used = {n.tensor for n in ir.walk(kernel.body) if isinstance(n, (ir.Load, ir.Assign, ir.Zero))}
    written = {n.tensor for n in ir.walk(kernel.body) if isinstance(n, (ir.Assign, ir.Zero))}
    args = [t for t in global_tensors(program) if t.name in used]
    results = [t for t in args if t.name in written]
    fn = IreeModule(source).function(kernel_name)
    inputs = [np.ascontiguousarray(arrays[t.name]).view(np.int16) if t.prec == "bf16"
              else np.ascontiguousarray(arrays[t.name]) for t in args]
    try:
        out = fn(*inputs)
    except Exception as e:  # noqa: BLE001 - the IREE runtime raises plain RuntimeError/ValueError
        raise IreeError(f"IREE runtime failed on {kernel_name}: {e}") from None
    if len(results) == 1:
        out = [out]
    for t, value in zip(results, out):
        host = np.asarray(value.to_host() if hasattr(value, "to_host") else value)
        arrays[t.name][...] = host.view(NP_DTYPE[t.prec]).reshape(arrays[t.name].shape)


class IreeRunner:
    """callable(kernel_name, sizes, arrays) for compare_kernels' runner_cand/runner_ref."""

    def __init__(self, program: ir.Program):
        self.program = program

    def run(self, kernel_name: str, sizes: dict, arrays: dict) -> None:
        run_kernel(self.program, kernel_name, sizes, arrays)

    __call__ = run


def load_iree(program: ir.Program) -> IreeRunner:
    return IreeRunner(program)


class FuzzRunner(IreeRunner):
    """The fuzz backend: a kernel linalg cannot express is declined (oracle/backend.py), not a finding."""

    def run(self, kernel_name: str, sizes: dict, arrays: dict) -> None:
        from verified_sched.oracle.backend import Declined

        from .emit import Inexpressible

        try:
            emit_mlir(self.program, sizes, [kernel_name])
        except Inexpressible as e:
            raise Declined(e.message) from None
        run_kernel(self.program, kernel_name, sizes, arrays)

    __call__ = run


def factory(program: ir.Program):
    """`vsched fuzz --backend verified_sched.mlir.iree_backend:factory`: kernels linalg cannot
    express are declined (counted as `backend_declined`), the others run through IREE."""
    return FuzzRunner(program)
