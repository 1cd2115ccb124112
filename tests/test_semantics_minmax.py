"""Issue 9 item 3: min/max are IEEE 754-2019 minimum/maximum in every backend.

A NaN operand gives the canonical quiet NaN and -0 < +0, so a min/max reduction gives the same
bits in every order (which is what lets the `reproducible` profile reorder it). The
interpreter, the C backend and the GPU emulator must agree *bitwise* (NaN bits included, no
NaN-tolerant comparison here) on every pair of special operands in both orders and on
reductions in several orders; the CUDA source of the same helpers compiles with nvcc.
Regression: the C backend's `a > b ? a : b` dropped a NaN first operand (the interpreter
kept it), and max(-0, +0) depended on the order.
"""
from __future__ import annotations

import itertools
import shutil
import subprocess

import numpy as np
import pytest

from codegen.build import load_c
from codegen.emulate import load_emulated
from verified_sched.dsl import parse_text
from verified_sched.interp.interpreter import run_kernel
from verified_sched.interp.scalar import NUMS

SPECIAL = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -1.0, 2.5]
PAIRS = list(itertools.product(SPECIAL, SPECIAL))  # both orders of every pair

PAIRWISE = """
params N where N >= 1
tensor x[N] f32
tensor z[N] f32
tensor d[N] f64
tensor e[N] f64
tensor y[N, 5] f32
tensor yd[N, 5] f64

kernel pairwise {
  for i in 0 .. N {
    y[i, 0] = max(x[i], z[i])
    y[i, 1] = min(x[i], z[i])
    y[i, 2] = relu(x[i])
    y[i, 3] = max(max(x[i], z[i]), x[i])
    y[i, 4] = min(z[i], min(x[i], z[i]))
    yd[i, 0] = max(d[i], e[i])
    yd[i, 1] = min(d[i], e[i])
    yd[i, 2] = relu(d[i])
    yd[i, 3] = max(max(d[i], e[i]), d[i])
    yd[i, 4] = min(e[i], min(d[i], e[i]))
  }
}
"""

REDUCE = """
params N where N >= 1
tensor x[N] f32
tensor d[N] f64
tensor r[4] f32
tensor rd[4] f64

kernel reduce {
  r[0] = x[0]
  r[1] = x[0]
  rd[0] = d[0]
  rd[1] = d[0]
  for i in 1 .. N {
    r[0] = max(r[0], x[i])
    r[1] = min(r[1], x[i])
    rd[0] = max(rd[0], d[i])
    rd[1] = min(rd[1], d[i])
  }
  r[2] = x[N - 1]
  r[3] = x[N - 1]
  rd[2] = d[N - 1]
  rd[3] = d[N - 1]
  for i in 1 .. N {
    r[2] = max(x[N - 1 - i], r[2])
    r[3] = min(x[N - 1 - i], r[3])
    rd[2] = max(d[N - 1 - i], rd[2])
    rd[3] = min(d[N - 1 - i], rd[3])
  }
}
"""


def _expected_max(a: float, b: float) -> float:
    """IEEE 754-2019 maximum, written from the standard's definition."""
    if np.isnan(a) or np.isnan(b):
        return np.nan
    if a == b == 0.0:
        return 0.0 if not (np.signbit(a) and np.signbit(b)) else -0.0
    return max(a, b)


def _expected_min(a: float, b: float) -> float:
    if np.isnan(a) or np.isnan(b):
        return np.nan
    if a == b == 0.0:
        return -0.0 if (np.signbit(a) or np.signbit(b)) else 0.0
    return min(a, b)


def _bits(arr: np.ndarray) -> np.ndarray:
    return arr.view(f"u{arr.itemsize}")


def _canonical(values, dtype) -> np.ndarray:
    """The expected results with NaN as the canonical quiet NaN (np.nan's bits)."""
    out = np.array(values, dtype=dtype)
    out[np.isnan(out)] = dtype(np.nan)
    return out


def _backends(program):
    c = load_c(program).run
    emu = load_emulated(program, seed=3).run
    return {"interp": lambda k, s, a: run_kernel(program, k, s, a, seed=1, vectorize=True),
            "interp-scalar": lambda k, s, a: run_kernel(program, k, s, a, seed=1, vectorize=False),
            "c": c, "emulate": emu}


def _run_all(program, kernel, sizes, arrays) -> dict:
    out = {}
    for name, runner in _backends(program).items():
        copy = {k: v.copy() for k, v in arrays.items()}
        runner(kernel, dict(sizes), copy)
        out[name] = copy
    return out


def test_pairwise_minmax_is_ieee_and_bitwise_equal_in_every_backend():
    program = parse_text(PAIRWISE, "pairwise.vs")
    a = np.array([p[0] for p in PAIRS])
    b = np.array([p[1] for p in PAIRS])
    n = len(PAIRS)
    arrays = {"x": a.astype(np.float32), "z": b.astype(np.float32), "d": a.copy(), "e": b.copy(),
              "y": np.zeros((n, 5), np.float32), "yd": np.zeros((n, 5), np.float64)}
    outs = _run_all(program, "pairwise", {"N": n}, arrays)
    for dtype, t in ((np.float32, "y"), (np.float64, "yd")):
        want_max = _canonical([_expected_max(x, z) for x, z in PAIRS], dtype)
        want_min = _canonical([_expected_min(x, z) for x, z in PAIRS], dtype)
        want_relu = _canonical([_expected_max(x, 0.0) for x, _ in PAIRS], dtype)
        for backend, out in outs.items():
            got = out[t]
            for col, want in ((0, want_max), (1, want_min), (2, want_relu), (3, want_max), (4, want_min)):
                bad = np.flatnonzero(_bits(got[:, col]) != _bits(want))
                assert not bad.size, (f"{backend} {t}[:, {col}] at {PAIRS[bad[0]]}: "
                                      f"{got[bad[0], col]!r} vs {want[bad[0]]!r}")


@pytest.mark.parametrize("perm_seed", range(6))
def test_minmax_reduction_gives_the_same_bits_in_every_order(perm_seed):
    """A min/max reduction over NaN, +-0 and infinities: every backend, every order, both
    operand orders of the accumulation, the same bits."""
    program = parse_text(REDUCE, "reduce.vs")
    rng = np.random.default_rng(perm_seed)
    pool = [0.0, -0.0, np.inf, -np.inf, 1.0, -1.0] + ([np.nan] if perm_seed % 2 else [])
    pool += list(rng.choice([0.0, -0.0], size=3))
    results = []
    for _ in range(3):
        vals = rng.permutation(np.array(pool))
        arrays = {"x": vals.astype(np.float32), "d": vals.copy(),
                  "r": np.zeros(4, np.float32), "rd": np.zeros(4, np.float64)}
        for backend, out in _run_all(program, "reduce", {"N": len(vals)}, arrays).items():
            for t in ("r", "rd"):
                got = out[t]
                assert _bits(got[0]) == _bits(got[2]) and _bits(got[1]) == _bits(got[3]), (backend, t, got)
            results.append((backend, _bits(out["r"]).tobytes(), _bits(out["rd"]).tobytes()))
    assert len({r[1:] for r in results}) == 1, results
    r = np.frombuffer(results[0][1], np.float32)
    if perm_seed % 2:
        assert np.isnan(r).all()
    else:
        assert r[0] == np.inf and r[1] == -np.inf


def test_interpreter_scalar_rule_matches_the_definition():
    for prec, dtype in (("f32", np.float32), ("f64", np.float64)):
        num = NUMS[prec]
        for a, b in PAIRS:
            got_max, got_min = num.max(dtype(a), dtype(b)), num.min(dtype(a), dtype(b))
            assert _bits(np.array(got_max, dtype)) == _bits(_canonical([_expected_max(a, b)], dtype))[0]
            assert _bits(np.array(got_min, dtype)) == _bits(_canonical([_expected_min(a, b)], dtype))[0]


def test_vector_interpreter_lanes_match_the_definition():
    """The interpreter's numpy lane path (interp_vector) implements the same rule."""
    from verified_sched.interp.vector import lane_maximum, lane_minimum

    for dtype in (np.float32, np.float64):
        a = np.array([p[0] for p in PAIRS], dtype)
        b = np.array([p[1] for p in PAIRS], dtype)
        want_max = _canonical([_expected_max(x, z) for x, z in PAIRS], dtype)
        want_min = _canonical([_expected_min(x, z) for x, z in PAIRS], dtype)
        assert np.array_equal(_bits(np.asarray(lane_maximum(a, b), dtype)), _bits(want_max))
        assert np.array_equal(_bits(np.asarray(lane_minimum(a, b), dtype)), _bits(want_min))
        relu = np.asarray(lane_maximum(a, dtype(0)), dtype)
        assert np.array_equal(_bits(relu), _bits(_canonical([_expected_max(x, 0.0) for x, _ in PAIRS], dtype)))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_cuda_minmax_helpers_compile_with_nvcc(tmp_path):
    """The CUDA source carries the same helpers as host+device functions and compiles."""
    from codegen.cuda import emit_cuda

    program = parse_text(PAIRWISE.replace("for i in 0 .. N {", "for i in 0 .. N : block.x {"), "p.vs")
    source = emit_cuda(program)
    assert "vs_max_f32(float a, float b)" in source and "__device__" in source
    assert "a != a || b != b" in source
    src = tmp_path / "k.cu"
    src.write_text(source)
    proc = subprocess.run(["nvcc", "-c", str(src), "-o", str(tmp_path / "k.o")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
