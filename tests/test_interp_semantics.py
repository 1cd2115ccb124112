"""The interpreter's scalar semantics: bitwise agreement with C on every precision, every
function, casts, floor/mod, dynamic indices, padding; clear errors for bad arrays and indices."""
from __future__ import annotations

import numpy as np
import pytest

from verified_sched.core.dtypes import f32_to_bf16
from verified_sched.oracle.compare import random_inputs
from verified_sched.dsl import parse_text
from verified_sched.core.errors import UsageError
from verified_sched.interp.interpreter import KernelError, run_kernel

MIX = """
params N where N >= 1
tensor x[N] f32
tensor z[N] f32
tensor h[N] f16
tensor g[N] bf16
tensor d[N] f64
tensor n[N] i32
tensor y[N] f32
tensor yh[N] f16
tensor yg[N] bf16
tensor yd[N] f64
tensor yn[N] i32
tensor m[N, 6] f32 pad(0, 2)

kernel mix {
  zero m
  for i in 0 .. N {
    yh[i] = x[i] * 3.1 + h[i]
    yg[i] = g[i] / (x[i] + 2.5) - fma(g[i], x[i], h[i])
    yd[i] = d[i] * x[i] + i / 3 - exp(d[i]) + log(abs(d[i]) + 0.5) * sqrt(abs(d[i]))
    yn[i] = n[i] / 3 + n[i] % 5 + floor(n[i] / 4) - n[i] * 1000000 * 1000 + n[i] / (n[i] - n[i])
    y[i] = where(x[i] > 0, exp(x[i]), log(abs(x[i]) + 1)) + sqrt(abs(x[i])) + fma(x[i], z[i], 1.5)
    m[i, 0] = max(x[i], z[i])
    m[i, 1] = min(x[i], z[i])
    m[i, 2] = relu(x[i]) + neg(z[i])
    m[i, 3] = abs(z[i]) + f16(x[i] * 1000.1) + bf16(x[i]) + i32(x[i] * 10.0)
    m[i, 4] = f32((i - 5) % 3) + floor((i - 5) / 4) + f64(x[i]) * 0.1
    m[i, 5] = where(d[i] > x[i], 1, 2) + where(i % 2 == 0, x[i] / z[i], z[i] - x[i])
  }
}
"""

SPECIAL = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 0.5, -2.5, 3e38, -1e-45,
                    65504.0, 1e5, -7.25])
TAME = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, -7.25, 1e-45, -3.5, 2.5, 4.5, 100.0, -100.0, 3.0])


@pytest.fixture(scope="module")
def mix():
    return parse_text(MIX, "mix.vs")


@pytest.mark.parametrize("n,mode", [(1, "random"), (5, "small-int"), (13, "random")])
def test_mix_matches_c_on_random_inputs(mix, interp_vs_c, n, mode):
    arrays = random_inputs(mix, None, {"N": n}, seed=n, mode=mode)
    c_out, _ = interp_vs_c(mix, "mix", {"N": n}, arrays, seed=n)
    assert np.isfinite(c_out["y"]).any() and c_out["y"].any()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mix_matches_c_on_special_values(mix, interp_vs_c, seed):
    """NaN, infinities, signed zeros, subnormals, f16/bf16 overflow and rounding ties."""
    rng = np.random.default_rng(seed)
    n = len(SPECIAL)
    arrays = random_inputs(mix, None, {"N": n}, seed=seed)
    arrays["x"] = rng.permutation(TAME).astype(np.float32)  # i32(x * 10) must stay in range
    arrays["z"] = rng.permutation(SPECIAL).astype(np.float32)
    arrays["d"] = rng.permutation(SPECIAL)
    with np.errstate(over="ignore"):
        arrays["h"] = rng.permutation(SPECIAL).astype(np.float16)
    arrays["g"] = f32_to_bf16(rng.permutation(SPECIAL).astype(np.float32))
    interp_vs_c(mix, "mix", {"N": n}, arrays, seed=seed)


def test_zero_clears_padding_and_i32_wraps(mix):
    arrays = random_inputs(mix, None, {"N": 3}, seed=4)
    arrays["m"][...] = 7.0
    arrays["n"][:] = [2**20, -7, 9]
    run_kernel(mix, "mix", {"N": 3}, arrays)
    assert np.all(arrays["m"][:, 6:] == 0), "zero must clear the padding too"
    def wrap(v):
        return (v + 2**31) % 2**32 - 2**31
    # C's truncating i32 division, mathematical % and floor, wrapping products, x / 0 = 0
    assert arrays["yn"][0] == wrap(2**20 // 3 + 2**20 % 5 + 2**20 // 4 - 2**20 * 10**9 + 0)
    assert arrays["yn"][1] == wrap(-2 + 3 + -2 + 7 * 10**9 + 0)
    # floor/mod on negative operands are mathematical: (0 - 5) % 3 = 1, floor((0 - 5) / 4) = -2
    assert arrays["m"][0, 4] == np.float32(1 + -2 + np.float32(np.float64(arrays["x"][0]) * 0.1))


SMALL = """
params N where N >= 1
tensor x[N] f32
tensor idx[N] i32
tensor y[N] f32 pad(3)
tensor c[2, N] f32

kernel gather {
  for i in 0 .. N {
    y[i] = x[idx[i]] + x[floor((i + 1) / 2)] * f32(i % 3)
  }
}

kernel shifted {
  for i in 0 .. N {
    y[i] = x[i + 1]
  }
}

kernel behind {
  for i in 0 .. N {
    c[1, i] = x[i - 1]
  }
}

kernel padded {
  for i in 0 .. N + 3 {
    y[i] = 1.5
  }
}

kernel order {
  for i in 0 .. N : vectorized {
    c[0, 0] = x[i]
  }
}
"""


@pytest.fixture(scope="module")
def small():
    return parse_text(SMALL, "small.vs")


def test_dynamic_index_and_modulo_match_c(small, interp_vs_c):
    for n in (1, 4, 9):
        arrays = random_inputs(small, ["gather"], {"N": n}, seed=n)
        assert arrays["idx"].min() >= 0 and arrays["idx"].max() < n
        c_out, _ = interp_vs_c(small, "gather", {"N": n}, arrays)
        i = np.arange(n)
        want = arrays["x"][arrays["idx"]] + arrays["x"][(i + 1) // 2] * (i % 3).astype(np.float32)
        assert np.array_equal(c_out["y"][:n], want)


def test_writes_into_padding_are_in_bounds(small):
    arrays = random_inputs(small, None, {"N": 2})
    run_kernel(small, "padded", {"N": 2}, arrays)
    assert np.all(arrays["y"] == 1.5)


def test_index_past_the_end_names_tensor_index_and_instance(small):
    arrays = random_inputs(small, None, {"N": 4})
    with pytest.raises(KernelError) as err:
        run_kernel(small, "shifted", {"N": 4}, arrays)
    assert "x[4]" in str(err.value) and "[4]" in str(err.value) and "i=3" in str(err.value)
    assert err.value.loc is not None and err.value.loc.line == 16


def test_negative_index_is_an_error_not_a_wraparound(small):
    arrays = random_inputs(small, None, {"N": 4})
    with pytest.raises(KernelError, match=r"x\[-1\].*i=0"):
        run_kernel(small, "behind", {"N": 4}, arrays)


def test_vectorized_iterations_run_in_a_seeded_random_order(small):
    results = set()
    for seed in range(8):
        arrays = random_inputs(small, None, {"N": 6}, seed=0)
        run_kernel(small, "order", {"N": 6}, arrays, seed=seed)
        results.add(float(arrays["c"][0, 0]))
        again = random_inputs(small, None, {"N": 6}, seed=0)
        run_kernel(small, "order", {"N": 6}, again, seed=seed)
        assert again["c"][0, 0] == arrays["c"][0, 0], "the same seed gives the same order"
    assert len(results) > 1, "a vectorized loop must not always run in order"


def test_bad_arrays_are_usage_errors(small):
    good = random_inputs(small, None, {"N": 4})
    with pytest.raises(UsageError, match="missing array for tensor x"):
        run_kernel(small, "gather", {"N": 4}, {k: v for k, v in good.items() if k != "x"})
    with pytest.raises(UsageError, match=r"tensor y: expected shape \(7,\).*got \(4,\)"):
        run_kernel(small, "gather", {"N": 4}, {**good, "y": np.zeros(4, np.float32)})
    with pytest.raises(UsageError, match="tensor x is f32: expected dtype float32, got float64"):
        run_kernel(small, "gather", {"N": 4}, {**good, "x": good["x"].astype(np.float64)})
    with pytest.raises(UsageError):
        run_kernel(small, "gather", {"N": 0}, good)
    with pytest.raises(UsageError, match="no kernel named"):
        run_kernel(small, "nope", {"N": 4}, good)
