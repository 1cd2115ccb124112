"""numpy's BLAS on one thread while tune times `a @ b` (the comparison of issue 25 is against
one core). `vsched` imports numpy before any option is read, so OPENBLAS_NUM_THREADS cannot be
set in time; the bundled OpenBLAS's own `set_num_threads` is called instead (found through
ctypes in numpy's `numpy.libs`; nothing happens when there is no such library)."""
from __future__ import annotations

import contextlib
import ctypes
import glob
import os

PREFIXES = ("scipy_openblas", "openblas")
SUFFIXES = ("64_", "")


def _functions():
    """(set_num_threads, get_num_threads) of numpy's bundled OpenBLAS, or None."""
    import numpy as np

    for lib in sorted(glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs", "*openblas*"))):
        try:
            dll = ctypes.CDLL(lib)
        except OSError:
            continue
        for prefix in PREFIXES:
            for suffix in SUFFIXES:
                setter = getattr(dll, f"{prefix}_set_num_threads{suffix}", None)
                getter = getattr(dll, f"{prefix}_get_num_threads{suffix}", None)
                if setter is not None and getter is not None:
                    setter.argtypes, getter.restype = [ctypes.c_int], ctypes.c_int
                    return setter, getter
    return None


@contextlib.contextmanager
def one_thread():
    """numpy's OpenBLAS on one thread inside the block (restored after); True when it was set."""
    fns = _functions()
    if fns is None:
        yield False
        return
    setter, getter = fns
    before = getter()
    setter(1)
    try:
        yield True
    finally:
        setter(before)
