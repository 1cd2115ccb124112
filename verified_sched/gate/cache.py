"""The proof cache: verification results keyed by what decides them, and `vsched cache`.

Key: sha256 of the normalized program (the printer's text of the parsed file, so comments
and layout do not count), the effective profile, the options that can change a verdict
(`--timeout`, `--shared-limit`), the package version and a fingerprint of the verifier's own
source and of the solvers' versions (so an edited or upgraded verifier never reuses old
proofs). Only results in which every obligation was decided are stored: an `unknown` (a
timeout, an isl budget hit) may be decided on a later run, so it is always proved again.

Layout: `$VSCHED_CACHE_DIR` (else `$XDG_CACHE_HOME/verified_sched`, else
`~/.cache/verified_sched`, the compile cache's root) / `proofs` / `<key>.json`, the folder
mode 0700 and each entry written to a private temporary file and moved into place with
`os.replace`, so parallel workers and concurrent runs never read a half-written entry. A
damaged or foreign entry reads as a miss. The cache is best effort: a folder that cannot be
written only means nothing is stored.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from ..core.version import package_version

FORMAT = 2  # entry layout version (part of the key); 2: positions as data (FileReport.to_data)
_PACKAGES = ("verified_sched", "polyhedral", "smt")


def cache_root() -> Path:
    """The cache root shared with the compile cache (codegen/build.py cache_dir's parent)."""
    root = os.environ.get("VSCHED_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "verified_sched")
    return Path(root)


def proof_dir() -> Path:
    return cache_root() / "proofs"


def compile_dir() -> Path:
    return cache_root() / "c"


def dist_version(dist: str) -> str:
    """The installed version of distribution `dist` ("?" if none), read from the name of its
    `.dist-info` folder on sys.path, first match as importlib.metadata finds it: importing
    importlib.metadata (email, zipfile, ...) costs more than the rest of a cache hit's start-up."""
    stem = dist.replace("-", "_").lower()
    for entry in sys.path:
        try:
            folders = list(Path(entry or ".").glob("*.dist-info"))
        except OSError:
            continue
        for folder in folders:
            name, _, ver = folder.name[:-len(".dist-info")].partition("-")
            if name.replace("-", "_").lower() == stem:
                return ver
    return "?"


@functools.cache
def code_fingerprint() -> str:
    """sha256 of the verifier's source files (verified_sched, polyhedral, smt) and of the
    package and solver versions."""
    import importlib

    h = hashlib.sha256()
    h.update(f"verified_sched={package_version()}\n".encode())
    for name in ("islpy", "z3-solver"):
        h.update(f"{name}={dist_version(name)}\n".encode())
    for pkg in _PACKAGES:
        root = Path(importlib.import_module(pkg).__file__).parent
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def normalized_text(program) -> str:
    from ..core.printer import print_program

    return print_program(program)


def source_key(path: str, text: str, profile, timeout: float, shared_limit: int) -> str:
    """The key of a file's exact text at `path` verified with these options (`profile`: the
    option as given, the file's own `profile` line being part of its text): what a re-run on
    an unchanged file finds without parsing it (ProofCache.parsed)."""
    blob = json.dumps({"format": FORMAT, "path": path, "text": text, "profile": profile,
                       "timeout": float(timeout), "shared_limit": int(shared_limit),
                       "version": package_version(), "code": code_fingerprint()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def proof_key(program, profile, timeout: float, shared_limit: int) -> str:
    """The cache key of verifying `program` with these options."""
    effective = profile or program.profile or "default"
    blob = json.dumps({"format": FORMAT, "program": normalized_text(program), "profile": effective,
                       "timeout": float(timeout), "shared_limit": int(shared_limit),
                       "version": package_version(), "code": code_fingerprint()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


class ProofCache:
    """get/put of packed results (report/results.py) by key; `enabled=False` reads and writes
    nothing (`--no-cache`)."""

    def __init__(self, enabled: bool = True, folder: Path | None = None):
        self.enabled = enabled
        self.folder = folder or proof_dir()
        # source key -> proof key (`parsed`): beside proofs/, or inside a folder given here
        self.sources = cache_root() / "sources" if folder is None else self.folder / "sources"
        self.hits = self.misses = self.stores = 0

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get(self, key: str):
        """The cached entry {"status", "reports", "seconds"} or None."""
        if not self.enabled:
            return None
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.misses += 1
            return None
        if (not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key
                or not isinstance(entry.get("reports"), list) or entry.get("status") not in ("legal", "illegal")):
            self.misses += 1
            return None
        self.hits += 1
        return entry

    def parsed(self, skey: str):
        """What parsing the file of source key `skey` (`source_key`) gave last time: {"key":
        its proof key, "nodes", "sites"} (FileResult's), or None. A hit through it parses
        nothing, so it imports neither the parser nor any op (issue 23 item 8)."""
        if not self.enabled:
            return None
        try:
            seen = json.loads((self.sources / f"{skey}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        ok = (isinstance(seen, dict) and seen.get("format") == FORMAT and seen.get("source_key") == skey
              and isinstance(seen.get("key"), str) and isinstance(seen.get("nodes"), list)
              and isinstance(seen.get("sites"), list))
        return seen if ok else None

    def put_parsed(self, skey: str, key: str, nodes: list, sites: list) -> bool:
        """Remember that the file of source key `skey` parses to proof key `key` with these
        node positions and sites; False when not stored."""
        if not self.enabled:
            return False
        entry = {"format": FORMAT, "source_key": skey, "key": key, "nodes": nodes, "sites": sites}
        return write_json_atomic(self.sources / f"{skey}.json", entry)

    def put(self, key: str, status: str, reports: list, seconds: float) -> bool:
        """Store a decided result (legal or illegal with no unknown obligation); False when
        it is not stored (disabled, undecided, or the folder cannot be written)."""
        from ..report.results import has_unknown

        if not self.enabled or status not in ("legal", "illegal") or has_unknown(reports):
            return False
        entry = {"format": FORMAT, "key": key, "status": status, "reports": reports, "seconds": seconds}
        if not write_json_atomic(self._path(key), entry):
            return False
        self.stores += 1
        return True


def write_json_atomic(path: Path, data, **dump) -> bool:
    """Write `data` as JSON to `path` in a private folder (`ensure_private_dir`) through a
    temporary file and a rename, so concurrent readers and writers never see a partial file;
    False when the folder cannot be written."""
    try:
        ensure_private_dir(path.parent)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, **dump)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        return False
    return True


def ensure_private_dir(folder: Path) -> None:
    """Create the folder (and the cache root) readable by the user only (mode 0700)."""
    root = folder.parent
    if not root.exists():
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder.mkdir(exist_ok=True, mode=0o700)
    if folder.stat().st_mode & 0o077:
        os.chmod(folder, 0o700)


# ---------------------------------------------------------------- vsched cache


def folder_stats(folder: Path, entry_suffix: str) -> tuple:
    """(entries, bytes) of a cache folder: files ending in entry_suffix, all files' bytes."""
    if not folder.is_dir():
        return 0, 0
    entries = size = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            size += path.stat().st_size
            entries += path.name.endswith(entry_suffix) and not path.name.startswith(".")
    return entries, size


def _caches() -> list:
    # timings/: the durations that order `verify -j N`'s files (gate/timings.py)
    # sources/: which proof key a file's exact text has (ProofCache.parsed)
    return [("compile", compile_dir(), ".so"), ("proof", proof_dir(), ".json"),
            ("source", cache_root() / "sources", ".json"), ("timing", cache_root() / "timings", ".json")]


def cmd_cache(args) -> int:
    if args.action == "info":
        print(f"cache root: {cache_root()}")
        for name, folder, suffix in _caches():
            entries, size = folder_stats(folder, suffix)
            print(f"{name} cache: {folder}: {entries} entries, {size} bytes")
        return 0
    for name, folder, suffix in _caches():
        entries, size = folder_stats(folder, suffix)
        if folder.is_dir():
            shutil.rmtree(folder)
        print(f"{name} cache: removed {entries} entries ({size} bytes) from {folder}")
    return 0


def add_subparser(sub) -> None:
    """`vsched cache info|clear` on the CLI's subparsers."""
    p = sub.add_parser("cache", help="show or clear the compile and proof caches",
                       description="info: where the compile and proof caches are, their entries and "
                                   "bytes; clear: remove both")
    p.add_argument("action", choices=("info", "clear"))
    p.set_defaults(fn=cmd_cache)

