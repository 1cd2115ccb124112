"""`--max-memory`: a cap on the process's address space, so an allocation blow-up (isl on a
huge parameter set, z3, numpy) becomes a clear error instead of the kernel's OOM killer.

The cap is RLIMIT_AS (the `resource` module; POSIX only). Past it, malloc fails: Python raises
MemoryError, isl reports an allocation error (islpy raises isl.Error) and z3 answers unknown or
raises. Inside an obligation the verifier turns that into `unknown` with the reason
(budget.unknown_reason); elsewhere `guard(what)` turns a MemoryError into
`vsched: error: memory limit of N bytes exceeded while WHAT` (a VschedError: exit 2).

Default: the address space already mapped plus 75% of the physical memory (or of the
cgroup's limit when lower).
"""
from __future__ import annotations

import contextlib
import os
import re

from .errors import UsageError, VschedError

DEFAULT_FRACTION = 0.75
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_state = {"limit": None}


def parse_bytes(text: str) -> int:
    """'4G', '512M', '1.5g', '4GiB', '4GB', '1000000' -> bytes (binary units: K = 1024)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text or "")
    if not m:
        raise UsageError(f"--max-memory: expected a byte count such as 4G, 512M or 1000000, got {text!r}")
    value = float(m.group(1)) * _UNITS[m.group(2).upper()]
    if not 0 < value < 2 ** 63:
        raise UsageError(f"--max-memory: {text!r} is not a positive size")
    return int(value)


def byte_count(text: str) -> int:
    """argparse `type=` for --max-memory (an argparse usage error when malformed)."""
    import argparse
    try:
        return parse_bytes(text)
    except UsageError as e:
        raise argparse.ArgumentTypeError(e.message.removeprefix("--max-memory: ")) from None


def physical_memory() -> int | None:
    """Bytes of RAM available to this process: physical memory, or the cgroup limit if lower."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = open(path).read().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < total:
            total = int(text)
    return total


def address_space() -> int:
    """Bytes of address space this process maps now (0 where unknown)."""
    try:
        import resource
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError, ImportError):
        return 0


def default_limit() -> int | None:
    """75% of RAM on top of the address space already mapped: the cap is on address space,
    which counts reservations that use no memory (a GPU runtime in the same process maps far
    more than RAM), so growth, not the total, is what the default bounds."""
    total = physical_memory()
    return address_space() + int(total * DEFAULT_FRACTION) if total else None


def current_limit() -> int | None:
    """The limit applied by `apply` (None when none was)."""
    return _state["limit"]


def apply(limit: int | None = None) -> int | None:
    """Cap the address space at `limit` bytes (default: `default_limit()`), never above the
    hard limit already set. Returns the cap in force (None where RLIMIT_AS is unavailable)."""
    try:
        import resource
    except ImportError:  # not POSIX
        return None
    limit = default_limit() if limit is None else limit
    if limit is None:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError) as e:
        raise UsageError(f"--max-memory: cannot set the limit to {limit} bytes ({e})") from None
    _state["limit"] = limit
    return limit


def exceeded_message(what: str) -> str:
    limit = _state["limit"]
    size = f"{limit} bytes" if limit is not None else "the available memory"
    return f"memory limit of {size} exceeded while {what}"


@contextlib.contextmanager
def capped(limit: int | None, what: str):
    """Within: the address space capped at `limit` bytes (default: `default_limit()`) and a
    MemoryError turned into `memory limit of N bytes exceeded while WHAT` (a VschedError).
    The previous limit is restored on the way out, so a caller that goes on (the test suite, a
    later CUDA run in the same process) is not left capped."""
    try:
        import resource
        before = resource.getrlimit(resource.RLIMIT_AS)
    except ImportError:  # not POSIX: no cap
        resource = before = None
    previous = _state["limit"]
    try:
        apply(limit)
        with guard(what):
            yield
    finally:
        if resource is not None:
            resource.setrlimit(resource.RLIMIT_AS, before)
        _state["limit"] = previous


@contextlib.contextmanager
def guard(what: str):
    """Turn a MemoryError raised inside into a VschedError naming the limit and `what`."""
    try:
        yield
    except MemoryError:
        raise VschedError(exceeded_message(what)) from None
