"""Every kernel of the verdict corpus: emitted C agrees bitwise with the interpreter.

Three size sets per file (extents of 1, odd extents, a mix), found by search over the file's
constraints. Two files are racy on purpose, where serial C and the interpreter's phase-by-phase
threads legitimately disagree (or the interpreter refuses a divergent barrier).
"""
from __future__ import annotations

import itertools
import math

import pytest

from codegen.build import load_c
from verified_sched.analysis.full_tiles import full_tiles
from verified_sched.core.dtypes import check_sizes, param_names, storage_shape
from verified_sched.oracle.compare import compare_kernels
from verified_sched.core.errors import UsageError

from verified_sched import dsl
from verified_sched.interp import interpreter as interp  # noqa: E402

RACY = {"shared_missing_barrier.vs", "barrier_divergent.vs"}
MAX_CELLS = 2048
CANDIDATES = ([1, 2, 4, 8, 16], [3, 5, 7, 9, 2, 4, 8, 16, 1], [5, 2, 3, 11, 4, 8, 16, 1])


def size_sets(program) -> list:
    names, out = param_names(program), []
    for values in CANDIDATES:
        for combo in itertools.product(values, repeat=len(names)):
            sizes = dict(zip(names, combo))
            try:
                env = check_sizes(program, sizes)
            except UsageError:
                continue
            if sum(math.prod(storage_shape(t, env)) for t in program.tensors) > MAX_CELLS:
                continue  # the interpreter is slow: keep each run small
            if sizes not in out:
                out.append(sizes)
            break
    return out


def corpus_files():
    from conftest import CASES_DIR
    return sorted(CASES_DIR.glob("*.vs")) if CASES_DIR.is_dir() else []


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_corpus_kernel_c_matches_interpreter(path):
    program = dsl.parse_file(str(path))
    module = load_c(program, split=full_tiles)  # the code `vsched emit --target c` prints
    sets = size_sets(program)
    assert sets, "no sizes satisfy the constraints among the candidates"
    for kernel in program.kernels:
        meaningful = False
        for sizes in sets:
            try:
                report = compare_kernels(program, kernel.name, kernel.name, sizes, seed=1,
                                         runner_ref=lambda k, s, a: interp.run_kernel(program, k, s, a),
                                         runner_cand=module.run)
            except interp.KernelError:
                assert path.name in RACY
                continue
            if path.name in RACY:
                continue
            assert report.equal, report.text()
            meaningful |= not report.vacuous
        assert meaningful or path.name in RACY, f"{kernel.name}: vacuous at every size set"
