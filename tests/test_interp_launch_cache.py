"""The interpreter compiles a launch once per program, statement, parameter names and vector
path when it reports no progress (verified_sched/interp/interpreter.py `_compiled`): the
fuzzer runs each kernel at two size sets and replays a refutation at several sizes and
seeds. Work is counted (compiles), never timed; the runs give the same bits as fresh compiles."""
from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from verified_sched.dsl import parse_text
from verified_sched.interp import interpreter
from verified_sched.interp.interpreter import run_kernel
from verified_sched.oracle.compare import random_inputs

KERNELS = """params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
tensor s[N] f64
kernel matmul { zero c
  for i in 0 .. N { for j in 0 .. M { for k in 0 .. K { c[i, j] += a[i, k] * b[k, j] } } } }
kernel guarded {
  for i in 0 .. N { s[i] = 0.0
    for k in 0 .. K { if k < i { s[i] += a[i, k] } else { s[i] = s[i] * 0.5 } } } }
"""
SIZES = ({"N": 3, "M": 4, "K": 5}, {"N": 5, "M": 2, "K": 7})


@pytest.fixture
def compiles(monkeypatch) -> list:
    """The launches compiled (top-level `Compiler.stmt` calls), on an empty cache."""
    monkeypatch.setattr(interpreter, "_LAUNCHES", {})
    seen, depth = [], [0]
    real = interpreter.Compiler.stmt

    def counted(self, s, where, gen):
        depth[0] += 1
        try:
            return real(self, s, where, gen)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                seen.append(s)
    monkeypatch.setattr(interpreter.Compiler, "stmt", counted)
    return seen


def _runs(program, kernel, vectorize=None) -> list:
    out = []
    for sizes in SIZES:
        for seed in range(3):
            arrays = random_inputs(program, [kernel], sizes, seed)
            out.append({k: v.tobytes() for k, v in run_kernel(program, kernel, sizes, arrays, seed, vectorize).items()})
    return out


def test_a_kernel_run_at_other_sizes_and_seeds_compiles_each_launch_once(compiles, monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    program = parse_text(KERNELS)
    _runs(program, "matmul")
    launches = len(program.kernel("matmul").body)
    assert len(compiles) == launches  # not 6 runs x launches
    _runs(program, "matmul", vectorize=False)  # the scalar path is compiled apart
    assert len(compiles) == 2 * launches


@pytest.mark.parametrize("kernel", ["matmul", "guarded"])
@pytest.mark.parametrize("vectorize", [True, False])
def test_shared_launches_give_the_bits_of_fresh_compiles(kernel, vectorize, monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    program = parse_text(KERNELS)
    monkeypatch.setattr(interpreter, "_LAUNCHES", {})
    shared = _runs(program, kernel, vectorize)
    fresh = []
    for sizes in SIZES:
        for seed in range(3):
            interpreter._LAUNCHES.clear()  # noqa: SLF001 - the cache itself
            arrays = random_inputs(program, [kernel], sizes, seed)
            fresh.append({k: v.tobytes() for k, v in run_kernel(program, kernel, sizes, arrays, seed, vectorize).items()})
    assert shared == fresh and np.frombuffer(shared[0]["c" if kernel == "matmul" else "s"], np.uint8).any()


def test_a_run_drawing_a_progress_bar_compiles_afresh(compiles, monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True
    monkeypatch.setattr(sys, "stderr", Tty())
    program = parse_text(KERNELS)
    _runs(program, "guarded")
    assert len(compiles) == 6 * len(program.kernel("guarded").body) and not interpreter._LAUNCHES  # noqa: SLF001
