"""Compile emitted C with the system compiler and call it through cffi (ABI mode).

Why ABI mode: a plain `cc -shared` build plus `ffi.dlopen` needs no Python extension build,
loads any number of modules in one process, and works the same for foreign libraries (other
backends' kernels are compared through `load_shared`).

Cache layout: `$VSCHED_CACHE_DIR` (else `$XDG_CACHE_HOME/verified_sched`, else
`~/.cache/verified_sched`) / `c` / `<sha256>.so` and `<sha256>.c`, the key hashing the source,
the flags, the compiler path and its `--version` text. A build happens in a private temporary
folder inside the cache and is moved into place with `os.replace`, so parallel processes
(pytest-xdist workers) never see a half-written library; the loser of a race simply replaces
an identical file. Loaded libraries are memoized per process by the same key.
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from cffi import FFI

from verified_sched import ir
from verified_sched.errors import InternalError, UsageError

from .c import emit_c
from .dtypes import C_STORAGE, check_array, check_sizes, global_tensors, param_names

FLAGS = ("-O3", "-std=gnu11", "-fPIC", "-shared", "-ffp-contract=off", "-fno-math-errno",
         "-fopenmp-simd", "-fwrapv")
STATS = {"compiled": 0, "disk": 0, "memory": 0}  # how loads were served, for tests and benchmarks
_MEMO: dict = {}  # key -> (ffi, lib, path)


def compiler() -> str:
    cc = os.environ.get("CC", "cc")
    path = shutil.which(cc)
    if path is None:
        raise UsageError(f"no C compiler found (CC={cc!r}); install gcc or set CC")
    return path


@functools.cache
def compiler_version(cc: str) -> str:
    return subprocess.run([cc, "--version"], capture_output=True, text=True, check=False).stdout


def cache_dir() -> Path:
    root = os.environ.get("VSCHED_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "verified_sched")
    path = Path(root) / "c"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_key(source: str, flags=FLAGS, cc=None) -> str:
    cc = cc or compiler()
    text = "\0".join([source, " ".join(flags), cc, compiler_version(cc)])
    return hashlib.sha256(text.encode()).hexdigest()


def compile_shared(source: str, flags=FLAGS, cc=None, suffix: str = "c") -> tuple:
    """Path of the shared library built from `source` (cached); returns (path, key, status).

    `cc` (a compiler path, default the C compiler) and `suffix` (of the source file) let other
    backends (nvcc, `.cu`) share the cache and its atomic writes."""
    cc = cc or compiler()
    key = cache_key(source, flags, cc)
    folder = cache_dir()
    target = folder / f"{key}.so"
    if target.exists():
        return target, key, "disk"
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
    try:
        src, lib = tmp / f"kernel.{suffix}", tmp / "kernel.so"
        src.write_text(source)
        cmd = [cc, *flags, "-o", str(lib), str(src), "-lm"]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise InternalError(f"C compilation failed ({' '.join(cmd)}):\n{proc.stderr[:4000]}")
        os.replace(src, folder / f"{key}.{suffix}")
        os.replace(lib, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target, key, "compiled"


def cdef_signature(program: ir.Program, symbol: str) -> str:
    args = ["int64_t"] * len(param_names(program))
    args += [f"{C_STORAGE[t.prec]} *" for t in global_tensors(program)]
    return f"void {symbol}({', '.join(args) or 'void'});"


def _open(path: Path, program: ir.Program, symbols: dict):
    ffi = FFI()
    ffi.cdef("\n".join(cdef_signature(program, s) for s in symbols.values()))
    return ffi, ffi.dlopen(str(path))


@dataclass
class CModule:
    """A loaded library whose symbols follow the `vs_<kernel>` signature of `program`."""

    program: ir.Program
    path: Path
    symbols: dict  # kernel name -> symbol
    ffi: FFI = field(repr=False)
    lib: object = field(repr=False)
    status: str = "compiled"  # compiled | disk | memory | foreign
    seconds: float = 0.0
    source: str = field(default="", repr=False)

    def arguments(self, sizes: dict, arrays: dict) -> list:
        """Sizes in param order, then a pointer per global tensor, after checking every array."""
        env = check_sizes(self.program, sizes)
        globals_ = global_tensors(self.program)
        known = {t.name for t in globals_}
        for name in arrays:
            if name not in known:
                raise UsageError(f"array {name!r} is not a global tensor of the program")
        args = [env[p] for p in param_names(self.program)]
        for t in globals_:
            arr = check_array(t, arrays, env, contiguous=True)
            if arr.size == 0:
                args.append(self.ffi.NULL)
            else:
                args.append(self.ffi.from_buffer(f"{C_STORAGE[t.prec]}[]", arr, require_writable=True))
        return args

    def run(self, kernel_name: str, sizes: dict, arrays: dict) -> None:
        """Run one kernel in place on `arrays` (name -> storage-shaped array, every global tensor)."""
        if kernel_name not in self.symbols:
            raise UsageError(f"no kernel {kernel_name!r} in this module (have {sorted(self.symbols)})")
        args = self.arguments(sizes, arrays)
        getattr(self.lib, self.symbols[kernel_name])(*args)

    def runner(self, kernel_name: str):
        """A runner callable(kernel_name, sizes, arrays) that always calls `kernel_name`."""
        return lambda _name, sizes, arrays: self.run(kernel_name, sizes, arrays)


def load_c(program: ir.Program, kernels=None, flags=FLAGS) -> CModule:
    """Emit, compile (or fetch from the cache) and load the program's kernels."""
    start = time.perf_counter()
    names = [k.name for k in program.kernels] if kernels is None else list(kernels)
    source = emit_c(program, names)
    symbols = {n: f"vs_{n}" for n in names}
    key = cache_key(source, flags)
    if key in _MEMO:
        ffi, lib, path = _MEMO[key]
        status = "memory"
    else:
        path, key, status = compile_shared(source, flags)
        ffi, lib = _open(path, program, symbols)
        _MEMO[key] = (ffi, lib, path)
    STATS[status] += 1
    return CModule(program, path, symbols, ffi, lib, status, time.perf_counter() - start, source)


def load_shared(program: ir.Program, path, symbols=None) -> CModule:
    """Wrap a foreign shared library whose functions take the `vs_<kernel>` signature.

    `symbols` maps kernel name -> symbol (default `vs_<kernel>` for every kernel).
    """
    symbols = dict(symbols) if symbols else {k.name: f"vs_{k.name}" for k in program.kernels}
    path = Path(path).resolve()
    if not path.exists():
        raise UsageError(f"no shared library at {path}")
    ffi, lib = _open(path, program, symbols)
    for symbol in symbols.values():
        try:
            getattr(lib, symbol)
        except AttributeError:
            raise UsageError(f"{path} has no symbol {symbol!r}") from None
    return CModule(program, path, symbols, ffi, lib, "foreign")
