"""Test-wide setup: a deterministic hypothesis profile and the location of the verdict corpus.

The "ci" profile is loaded by default so every run (CI, a developer's machine, parallel
xdist workers) tries the same examples: derandomized, no example database and
the constants cache in a temporary folder (so no `.hypothesis/` directory is written), no
deadline (2 shared cores make timings noisy).
Set VSCHED_HYPOTHESIS_PROFILE=explore for a randomized, longer run while developing.
"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

settings.register_profile("ci", derandomize=True, database=None, deadline=None, max_examples=50,
                          print_blob=True)
settings.register_profile("explore", database=None, deadline=None, max_examples=500)
settings.load_profile(os.environ.get("VSCHED_HYPOTHESIS_PROFILE", "ci"))

# Hypothesis also caches constants collected from the source under `.hypothesis/` in the
# working directory, whatever the database setting: keep that in a private temporary folder.
_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="vsched-hypothesis-")
set_hypothesis_home_dir(_HYPOTHESIS_HOME)
atexit.register(shutil.rmtree, _HYPOTHESIS_HOME, ignore_errors=True)

REPO_ROOT = Path(__file__).resolve().parents[1]
# The verdict corpus, copied into the repository (tests/cases): the suite reads nothing outside it.
CASES_DIR = REPO_ROOT / "tests" / "cases"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def cases_dir() -> Path:
    assert CASES_DIR.is_dir(), f"verdict corpus missing at {CASES_DIR}"
    return CASES_DIR


def same_bits(a, b) -> bool:
    """Bitwise equality of two arrays, two NaNs counting as equal whatever their sign and
    payload (the C compiler may rewrite `a + -b` as `a - b`, which keeps a NaN's sign)."""
    import numpy as np

    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return bool(np.all((a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}")) | (np.isnan(a) & np.isnan(b))))
    return bool(np.array_equal(a, b))


def run_both(program, kernel: str, sizes: dict, arrays: dict, seed: int = 0):
    """Run one kernel in C and in the interpreter on copies of `arrays`; return both results."""
    from codegen.build import load_c
    from verified_sched.interp import run_kernel

    c_out = {k: v.copy() for k, v in arrays.items()}
    i_out = {k: v.copy() for k, v in arrays.items()}
    load_c(program).run(kernel, dict(sizes), c_out)
    run_kernel(program, kernel, dict(sizes), i_out, seed=seed)
    return c_out, i_out


@pytest.fixture(scope="session")
def interp_vs_c():
    """`check(program, kernel, sizes, arrays, seed)`: C and interpreter agree on every storage
    cell (NaN-aware bitwise); returns (c_out, interp_out)."""

    def check(program, kernel, sizes, arrays, seed=0):
        c_out, i_out = run_both(program, kernel, sizes, arrays, seed)
        bad = [name for name in arrays if not same_bits(c_out[name], i_out[name])]
        assert not bad, f"{kernel} at {sizes}: C and interpreter differ on {bad}"
        return c_out, i_out

    return check
