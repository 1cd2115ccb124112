"""Compile emitted C with the system compiler and call it through cffi (ABI mode).

Why ABI mode: a plain `cc -shared` build plus `ffi.dlopen` needs no Python extension build,
loads any number of modules in one process, and works the same for foreign libraries (other
backends' kernels are compared through `load_shared`).

Cache layout: `$VSCHED_CACHE_DIR` (else `$XDG_CACHE_HOME/verified_sched`, else
`~/.cache/verified_sched`) / `c` / `<key>.c`, `<key>.sha256` (the library's content hash) and
`<key>-<hash prefix>.so`, the key hashing the source, the flags, the compiler path and its
`--version` text. The folders are private (mode 0700, this user's; a group- or world-writable
one is made private, another user's is refused). A library is loaded only if it and its
record are this user's files and its bytes hash to the recorded sha256; anything else is
rebuilt. A build happens in a private temporary folder inside the cache and is moved into
place with `os.replace` (the library, then its record, each written whole), so parallel
processes (pytest-xdist workers) never see a half-written file. Loaded libraries are memoized
per process by the same key.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import stat
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from cffi import FFI

from verified_sched.core import ir
from verified_sched.core.errors import InternalError, UsageError

from .c import emit_c
from verified_sched.core.dtypes import C_STORAGE, check_array, check_sizes, global_tensors, param_names

FLAGS = ("-O3", "-std=gnu11", "-fPIC", "-shared", "-ffp-contract=off", "-fno-math-errno",
         "-fopenmp-simd", "-fwrapv")
# `--cflags`: what a user may add (target ISA, tuning, optimization level); anything else could
# change the arithmetic. FMA contraction only under the `approximate` profile (bitwise results
# of `default`/`reproducible`/`finite` must not change).
USER_FLAG_PREFIXES = ("-march=", "-mtune=", "-mcpu=", "-mprefer-vector-width=", "-mavx", "-msse", "-mfma",
                      "-mno-", "-O1", "-O2", "-O3", "-Os", "-funroll-loops", "-fno-unroll-loops",
                      "-fvect-cost-model=", "-fno-tree-vectorize", "-ffp-contract=")
CONTRACT = ("-ffp-contract=fast", "-ffp-contract=on")
STATS = {"compiled": 0, "disk": 0, "memory": 0}  # how loads were served, for tests and benchmarks
MEMO: dict = {}  # key -> (ffi, lib, path)


def flags_for(profile=None, cflags="") -> tuple:
    """The backend's flags with the user's `--cflags` (a string, split like a shell; e.g.
    `-march=native`). Only target/tuning flags are accepted (USER_FLAG_PREFIXES);
    `-ffp-contract=fast` (FMA contraction) only under the `approximate` profile: a UsageError
    otherwise, never a silent change of the bits."""
    import shlex

    try:
        extra = shlex.split(cflags or "")
    except ValueError as e:
        raise UsageError(f"--cflags: {e}") from None
    out = list(FLAGS)
    for flag in extra:
        if not flag.startswith(USER_FLAG_PREFIXES):
            raise UsageError(f"--cflags: {flag!r} is not allowed (only target and tuning flags: "
                             f"{', '.join(p.rstrip('=') for p in USER_FLAG_PREFIXES[:4])}, -O1..-O3, ...)")
        if flag.startswith("-ffp-contract="):
            if flag in CONTRACT and profile != "approximate":
                raise UsageError(f"--cflags: {flag} (FMA contraction) changes rounding; it is allowed "
                                 f"only under the approximate profile (this one: {profile or 'default'})")
            out = [flag if f.startswith("-ffp-contract=") else f for f in out]
        elif flag not in out:
            out.append(flag)
    return tuple(out)


def compiler() -> str:
    cc = os.environ.get("CC", "cc")
    path = shutil.which(cc)
    if path is None:
        raise UsageError(f"no C compiler found (CC={cc!r}); install gcc or set CC")
    return path


@functools.cache
def compiler_version(cc: str) -> str:
    return subprocess.run([cc, "--version"], capture_output=True, text=True, check=False).stdout


@functools.cache
def target_macros(flags: tuple) -> frozenset:
    """The names of the macros the C compiler predefines under `flags` (`__AVX512F__`, ...):
    which ISA a build targets (`-march=native` on this host, say); empty when it cannot say."""
    cmd = [compiler(), *(f for f in flags if f not in ("-shared",)), "-dM", "-E", "-x", "c", os.devnull]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return frozenset(line.split()[1] for line in proc.stdout.splitlines() if line.startswith("#define "))


def _private_dir(path: Path) -> None:
    """Create `path` (mode 0700) or check an existing one: a folder owned by this user, not a
    link; group/world write permission is removed (any library already in it must then pass
    `cached_library`, which also requires files owned by this user)."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(path)
    except OSError as err:
        raise UsageError(f"cannot create the compile cache {path}: {err.strerror or err} "
                         "(set VSCHED_CACHE_DIR to a writable folder)") from None
    if not stat.S_ISDIR(info.st_mode):
        raise UsageError(f"the compile cache {path} is not a folder (or is a link); "
                         "set VSCHED_CACHE_DIR to a private folder")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise UsageError(f"the compile cache {path} belongs to another user (uid {info.st_uid}); "
                         "set VSCHED_CACHE_DIR to a folder of your own")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)


def cache_dir() -> Path:
    """The compile cache folder (created private to the user, mode 0700)."""
    root = os.environ.get("VSCHED_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "verified_sched")
    root = Path(root)
    _private_dir(root)
    path = root / "c"
    _private_dir(path)
    return path


def cache_key(source: str, flags=FLAGS, cc=None) -> str:
    cc = cc or compiler()
    text = "\0".join([source, " ".join(flags), cc, compiler_version(cc)])
    return hashlib.sha256(text.encode()).hexdigest()


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _owned_file(path: Path) -> bool:
    """A regular file (not a link) owned by this user and writable by nobody else."""
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o022:
        return False
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()


def cached_library(folder: Path, key: str, suffix: str = "so"):
    """The cached library of `key` if it may be loaded, else None. The record `<key>.sha256`
    names the library's content hash, the library is `<key>-<hash prefix>.so`, and its bytes
    must hash to the recorded value; both files must be this user's and writable by nobody
    else. Anything else (planted, changed, torn) is rebuilt, never loaded. (`suffix`: `o` for
    the objects of `compile_object`, kept the same way.)"""
    record = folder / f"{key}.sha256"
    try:
        if not _owned_file(record):
            return None
        expected = record.read_text(encoding="ascii").strip()
        if len(expected) != 64 or any(c not in "0123456789abcdef" for c in expected):
            return None
        target = folder / f"{key}-{expected[:32]}.{suffix}"
        if _owned_file(target) and file_sha256(target) == expected:
            return target
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _atomic_write(folder: Path, name: str, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, folder / name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def compile_shared(source: str, flags=FLAGS, cc=None, suffix: str = "c", objects=()) -> tuple:
    """Path of the shared library built from `source` (cached); returns (path, key, status).

    `cc` (a compiler path, default the C compiler) and `suffix` (of the source file) let other
    backends (nvcc, `.cu`) share the cache and its atomic writes. `objects`: C sources built
    once into objects (`compile_object`, same flags) and linked in; the key covers them. A
    cached library is used only when `cached_library` accepts it (its sha256 matches its
    record); otherwise it is rebuilt."""
    cc = cc or compiler()
    key = cache_key("\0".join((source, *objects)), flags, cc)
    folder = cache_dir()
    cached = cached_library(folder, key)
    if cached is not None:
        return cached, key, "disk"
    linked = [compile_object(o, flags, cc) for o in objects]
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
    try:
        src, lib = tmp / f"kernel.{suffix}", tmp / "kernel.so"
        src.write_text(source)
        names = []
        for k, data in enumerate(linked):  # the verified bytes, never the cached file itself
            (tmp / f"linked{k}.o").write_bytes(data)
            names.append(f"linked{k}.o")
        # relative names, run in the build folder: the library does not embed a random path
        cmd = [cc, *flags, "-o", lib.name, src.name, *names, "-lm"]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tmp)
        if proc.returncode != 0:
            raise InternalError(f"C compilation failed ({' '.join(cmd)}):\n{proc.stderr[:4000]}")
        os.chmod(lib, 0o700)
        digest = file_sha256(lib)
        target = folder / f"{key}-{digest[:32]}.so"
        os.replace(src, folder / f"{key}.{suffix}")
        # the library under its content name first, then the record that points to it: a
        # reader never sees a record without its library, and concurrent builds that differ
        # byte for byte each keep their own file
        os.replace(lib, target)
        _atomic_write(folder, f"{key}.sha256", (digest + "\n").encode("ascii"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target, key, "compiled"


OBJECTS: dict = {}  # (source, flags, cc) -> the object's bytes, once verified or built


def compile_object(source: str, flags=FLAGS, cc=None) -> bytes:
    """The bytes of the object built from `source` with `flags` (`-c` instead of `-shared`):
    a runtime that many libraries link instead of compiling it again each time. Cached like
    a library (`<key>.sha256` record, `<key>-<hash prefix>.o`, the same checks), and per
    process in OBJECTS; the caller links these bytes, not the cached file."""
    cc = cc or compiler()
    obj_flags = tuple(f for f in flags if f != "-shared") + ("-c",)
    memo = OBJECTS.get((source, obj_flags, cc))
    if memo is not None:
        return memo
    key = cache_key(source, obj_flags, cc)
    folder = cache_dir()
    data = _cached_object(folder, key)
    if data is None:
        data = _build_object(folder, key, source, obj_flags, cc)
    OBJECTS[(source, obj_flags, cc)] = data
    return data


def _cached_object(folder: Path, key: str):
    """The cached object's bytes when `cached_library` accepts it and the bytes read hash to
    its record (read once, then checked: what is linked is what was checked), else None."""
    path = cached_library(folder, key, "o")
    if path is None:
        return None
    try:
        data = path.read_bytes()
        expected = (folder / f"{key}.sha256").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return data if hashlib.sha256(data).hexdigest() == expected else None


def _build_object(folder: Path, key: str, source: str, flags: tuple, cc: str) -> bytes:
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
    try:
        (tmp / "unit.c").write_text(source)
        cmd = [cc, *flags, "-o", "unit.o", "unit.c"]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tmp)
        if proc.returncode != 0:
            raise InternalError(f"C compilation failed ({' '.join(cmd)}):\n{proc.stderr[:4000]}")
        data = (tmp / "unit.o").read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        os.chmod(tmp / "unit.o", 0o700)
        os.replace(tmp / "unit.o", folder / f"{key}-{digest[:32]}.o")
        _atomic_write(folder, f"{key}.sha256", (digest + "\n").encode("ascii"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return data


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


def load_c(program: ir.Program, kernels=None, flags=FLAGS, split=None) -> CModule:
    """Emit (`split`: as emit_c's), compile (or fetch from the cache) and load the program's kernels."""
    start = time.perf_counter()
    names = [k.name for k in program.kernels] if kernels is None else list(kernels)
    source = emit_c(program, names, split)
    symbols = {n: f"vs_{n}" for n in names}
    key = cache_key(source, flags)
    if key in MEMO:
        ffi, lib, path = MEMO[key]
        status = "memory"
    else:
        path, key, status = compile_shared(source, flags)
        ffi, lib = _open(path, program, symbols)
        MEMO[key] = (ffi, lib, path)
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
