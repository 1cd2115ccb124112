"""The C emitter: every IR form compiles and computes what numpy (or the interpreter) computes."""
from __future__ import annotations

import numpy as np
import pytest

from codegen.build import load_c
from codegen.c import emit_c, float_literal
from verified_sched.core.dtypes import bf16_to_f32, f32_to_bf16
from verified_sched.oracle.compare import compare_kernels, poison, random_inputs
from verified_sched.core import ir
from verified_sched.dsl import parse_text

V, I = ir.Var, ir.Int


def run(text: str, kernel: str, sizes: dict, arrays: dict) -> dict:
    load_c(parse_text(text)).run(kernel, sizes, arrays)
    return arrays


def nan(shape, dtype=np.float32):
    return np.full(shape, np.nan, dtype)


MATMUL = """
params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32 pad(0, 3)
kernel matmul {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}
"""


def test_matmul_matches_numpy_and_zero_clears_padding():
    rng = np.random.default_rng(1)
    n, m, k = 7, 5, 9
    a = rng.integers(-8, 9, (n, k)).astype(np.float32)
    b = rng.integers(-8, 9, (k, m)).astype(np.float32)
    out = run(MATMUL, "matmul", {"N": n, "M": m, "K": k}, {"a": a, "b": b, "c": nan((n, m + 3))})
    assert np.array_equal(out["c"][:, :m], a @ b)  # small integers: exact in any order
    assert np.all(out["c"][:, m:] == 0) and not np.signbit(out["c"][:, m:]).any()


def test_matmul_inner_loop_is_plain_c():
    src = emit_c(parse_text(MATMUL))
    assert "void vs_matmul(int64_t N, int64_t M, int64_t K, float *restrict a, float *restrict b, " \
           "float *restrict c)" in src
    assert "c[i * (M + 3) + j] += a[i * K + k] * b[k * M + j];" in src
    assert "memset(c, 0, sizeof(float) * (size_t)(N * (M + 3)));" in src


def test_floor_and_mod_with_negative_operands():
    text = """
params N where N >= 1
tensor q[N] i32
tensor r[N] i32
tensor x[3] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    q[i] = floor((i - 7) / 3)
    r[i] = (i - 7) % 3
    y[i] = x[(2 - 3 * i) % 3] + floor((5 - 2 * i) / 4)
  }
}
"""
    n = 12
    x = np.array([10, 20, 30], np.float32)
    out = run(text, "k", {"N": n}, {"q": np.zeros(n, np.int32), "r": np.zeros(n, np.int32), "x": x,
                                     "y": nan(n)})
    i = np.arange(n)
    assert np.array_equal(out["q"], (i - 7) // 3)
    assert np.array_equal(out["r"], (i - 7) % 3)
    assert np.array_equal(out["y"], x[(2 - 3 * i) % 3] + (5 - 2 * i) // 4)


def test_floor_helpers_never_use_plain_division_in_index_math():
    src = emit_c(parse_text("""
params N where N >= 1
tensor x[N] f32
kernel k {
  for i in 0 .. N {
    x[i % 4 + floor(i / 4) * 4] = 1
  }
}
"""))
    body = src[src.index("/* kernel k */"):]
    assert "vs_mod(i, 4)" in body and "vs_floordiv(i, 4)" in body and " % " not in body


def test_min_max_in_indices():
    text = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    y[i] = x[min(i + 2, N - 1)] - x[max(i - 2, 0)]
  }
}
"""
    n = 9
    x = (np.arange(n, dtype=np.float32) ** 2)
    out = run(text, "k", {"N": n}, {"x": x, "y": nan(n)})
    i = np.arange(n)
    assert np.array_equal(out["y"], x[np.minimum(i + 2, n - 1)] - x[np.maximum(i - 2, 0)])


def test_guards_and_where():
    text = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    if i % 2 == 0 and i >= 2 {
      y[i] = x[i]
    } else {
      y[i] = where(x[i] > 0.5, 2 * x[i], neg(x[i]))
    }
  }
}
"""
    n = 11
    x = np.linspace(-1, 1, n).astype(np.float32)
    out = run(text, "k", {"N": n}, {"x": x, "y": nan(n)})
    i = np.arange(n)
    expect = np.where((i % 2 == 0) & (i >= 2), x, np.where(x > 0.5, 2 * x, -x))
    assert np.array_equal(out["y"], expect)


def test_padding_cells_are_left_alone_by_assignments():
    text = """
params N where N >= 1
tensor x[N, 3] f32 pad(1, 2)
tensor y[N, 3] f32 pad(2, 1)
kernel k {
  for i in 0 .. N {
    for j in 0 .. 3 {
      y[i, j] = x[i, j] * 2
    }
  }
}
"""
    n = 4
    x = np.arange((n + 1) * 5, dtype=np.float32).reshape(n + 1, 5)
    y = np.full((n + 2, 4), 7.0, np.float32)
    out = run(text, "k", {"N": n}, {"x": x, "y": y})
    assert np.array_equal(out["y"][:n, :3], x[:n, :3] * 2)
    assert np.all(out["y"][n:, :] == 7.0) and np.all(out["y"][:, 3:] == 7.0)


def test_i32_dynamic_index_gather_and_scatter():
    text = """
params N, M where N >= 1, M >= 1
tensor idx[N] i32
tensor x[M] f32
tensor y[N] f32
tensor z[M] f32
kernel k {
  zero z
  for i in 0 .. N {
    y[i] = x[idx[i]]
    z[idx[i]] += 1
  }
}
"""
    n, m = 10, 4
    idx = np.array([3, 0, 1, 1, 2, 3, 3, 0, 2, 1], np.int32)
    x = np.array([1.5, 2.5, 3.5, 4.5], np.float32)
    out = run(text, "k", {"N": n, "M": m}, {"idx": idx, "x": x, "y": nan(n), "z": nan(m)})
    assert np.array_equal(out["y"], x[idx])
    assert np.array_equal(out["z"], np.bincount(idx, minlength=m).astype(np.float32))


def test_f64_arithmetic_is_double():
    text = """
params N where N >= 1
tensor x[N] f64
tensor y[N] f64
tensor s[N] f32
kernel k {
  for i in 0 .. N {
    y[i] = x[i] * 0.1 + sqrt(x[i] * x[i] + 1) / 3
    s[i] = x[i] * 0.1
  }
}
"""
    n = 6
    x = np.linspace(-3, 5, n)
    out = run(text, "k", {"N": n}, {"x": x, "y": np.zeros(n), "s": nan(n)})
    assert np.array_equal(out["y"], x * 0.1 + np.sqrt(x * x + 1) / 3)
    # an f32 target computes in float: x converted to float, 0.1 rounded to float
    assert np.array_equal(out["s"], x.astype(np.float32) * np.float32(0.1))


def test_f16_and_bf16_storage_round_trip():
    text = """
params N where N >= 1
tensor x[N] f32
tensor h[N] f16
tensor b[N] bf16
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    h[i] = x[i] * 3
    b[i] = x[i] * 3
  }
  for i in 0 .. N {
    y[i] = h[i] + b[i]
  }
}
"""
    n = 64
    x = np.random.default_rng(3).uniform(-2, 2, n).astype(np.float32)
    x[:4] = [np.inf, -0.0, 65519.0 / 3, 1e-6]
    out = run(text, "k", {"N": n}, {"x": x, "h": np.zeros(n, np.float16), "b": np.zeros(n, np.uint16),
                                     "y": nan(n)})
    x3 = x * np.float32(3)
    assert np.array_equal(out["h"].view(np.uint16), x3.astype(np.float16).view(np.uint16))
    assert np.array_equal(out["b"], f32_to_bf16(x3))
    expect = x3.astype(np.float16).astype(np.float32) + bf16_to_f32(f32_to_bf16(x3))
    assert np.array_equal(out["y"], expect)


def test_bf16_rounds_to_nearest_even_and_keeps_nan():
    bits = np.array([0x3F808000, 0x3F818000, 0x3F80C000, 0x7F800001, 0xFF7FFFFF], np.uint32)
    got = f32_to_bf16(bits.view(np.float32))
    assert list(got[:3]) == [0x3F80, 0x3F82, 0x3F81]
    assert np.isnan(bf16_to_f32(got[3:4]))[0] and got[4] == 0xFF80  # overflow rounds to -inf


def test_vectorized_and_unrolled_pragmas():
    text = """
params N where N >= 1
tensor x[N, 4] f32
tensor y[N, 4] f32
kernel k {
  for i in 0 .. N {
    for j in 0 .. 4 : unrolled {
      y[i, j] = x[i, j] + 1
    }
  }
  for i in 0 .. N : vectorized {
    y[i, 0] = y[i, 0] * 2
  }
}
"""
    src = emit_c(parse_text(text))
    assert "#pragma GCC unroll 4\n" in src and "#pragma omp simd\n" in src
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = run(text, "k", {"N": 3}, {"x": x, "y": nan((3, 4))})
    expect = x + 1
    expect[:, 0] *= 2
    assert np.array_equal(out["y"], expect)


@pytest.mark.parametrize("value", [0.1, -2.5, 1e-45, 3.4028235677973366e38, 16777217.0, -0.0, 1 / 3])
def test_float_literals_are_exact(value):
    text, _ = float_literal(value, "float")
    prog = ir.Program(tensors=(ir.Tensor("y", (I(1),)),), kernels=(ir.Kernel("k", (
        ir.Assign("y", (I(0),), ir.Float(value)),)),))
    y = nan(1)
    load_c(prog).run("k", {}, {"y": y})
    with np.errstate(over="ignore"):
        want = np.float32(value)
    assert y.view(np.uint32)[0] == want.view(np.uint32), text


def test_local_and_shared_tensors_and_barrier():
    text = """
params B, T where B >= 1, T >= 1
tensor x[B, 64] f32
tensor y[B, 64] f32
tensor t[64] f32 shared
tensor big[T, 8] f32 local
kernel k {
  for b in 0 .. B : block.x {
    for i in 0 .. 64 : thread.x {
      t[i] = x[b, i]
    }
    barrier
    for i in 0 .. 63 : thread.x {
      y[b, i] = t[i + 1]
    }
    for i in 0 .. T {
      big[i, 0] = x[b, 0]
    }
    y[b, 63] = big[T - 1, 0]
  }
}
"""
    src = emit_c(parse_text(text))
    assert "float t[64] __attribute__((aligned(64)));" in src and "/* barrier */" in src
    assert "posix_memalign(&vs_p, 64, vs_ws_need)" in src and "float *restrict big = (float *)(vs_ws + vs_o_big);" in src
    x = np.arange(3 * 64, dtype=np.float32).reshape(3, 64)
    out = run(text, "k", {"B": 3, "T": 5}, {"x": x, "y": nan((3, 64))})
    assert np.array_equal(out["y"][:, :63], x[:, 1:]) and np.array_equal(out["y"][:, 63], x[:, 0])


def test_tensor_core_runs_its_fallback_once_on_lane_zero():
    body = (ir.For("lane", I(0), I(32), "serial", (ir.TensorCore("lane", (1, 1, 4), (
        ir.For("k", I(0), I(4), "serial", (
            ir.Assign("c", (I(0),), ir.BinOp("+", ir.Load("c", (I(0),)), ir.Load("a", (V("k"),)))),)),)),)),)
    prog = ir.Program(tensors=(ir.Tensor("a", (I(4),)), ir.Tensor("c", (I(1),))),
                      kernels=(ir.Kernel("k", (ir.Zero("c"),) + body),))
    assert "if (lane == 0) {" in emit_c(prog)
    arrays = {"a": np.array([1, 2, 3, 4], np.float32), "c": nan(1)}
    load_c(prog).run("k", {}, arrays)
    assert arrays["c"][0] == 10


def test_c_keywords_and_reserved_prefix_are_mangled():
    prog = ir.Program(params=("int",), tensors=(ir.Tensor("double", (V("int"),)), ir.Tensor("vs_x", (V("int"),))),
                      kernels=(ir.Kernel("k", (ir.For("for", I(0), V("int"), "serial", (
                          ir.Assign("double", (V("for"),), ir.BinOp("*", ir.Load("vs_x", (V("for"),)), V("for"))),)),)),))
    arrays = {"double": nan(5), "vs_x": np.ones(5, np.float32)}
    load_c(prog).run("k", {"int": 5}, arrays)
    assert np.array_equal(arrays["double"], np.arange(5, dtype=np.float32))


EVERYTHING = """
params N where N >= 2
tensor x[N] f32
tensor w[N] f64
tensor n[N] i32
tensor y[N] f32
tensor d[N] f64
tensor m[N] i32
tensor h[N] f16
tensor b[N] bf16
kernel every {
  for i in 0 .. N {
    y[i] = fma(x[i], 3.5, -x[i]) + max(x[i], 0.25) - min(x[i], w[i]) + relu(x[i]) * abs(x[i])
    y[i] += exp(x[i]) + log(abs(x[i]) + 1) + sqrt(abs(x[i])) + where(i < N / 2 or x[i] > 0, i, -i)
    d[i] = fma(w[i], x[i], w[i] / 3) + f32(w[i] * 0.1) + exp(w[i]) + floor(i / 3) - i % 3
    m[i] = n[i] * 7 - n[i] / 3 + max(n[i], i) + i32(x[i] * 10) + abs(n[i]) + n[N - 1 - i] % 5
    h[i] = x[i] / 7 + f16(x[i] * 1.1)
    b[i] = bf16(x[i]) * 3 + h[i]
    if x[i] > w[i] {
      y[i] = y[i] * 2
    }
  }
}
"""


def test_c_agrees_with_the_interpreter_bitwise_on_every_expression_form():
    from verified_sched.interp import interpreter as interp
    program = parse_text(EVERYTHING)
    c = load_c(program)
    for seed, size in ((0, 2), (1, 7), (2, 16)):
        report = compare_kernels(program, "every", "every", {"N": size}, seed=seed,
                                 runner_ref=lambda k, s, a: interp.run_kernel(program, k, s, a),
                                 runner_cand=c.run)
        assert report.ok, report.text()


def test_random_corpus_style_inputs_roundtrip_through_poison():
    program = parse_text(MATMUL)
    arrays = random_inputs(program, ["matmul"], {"N": 3, "M": 2, "K": 4}, seed=5)
    poison(arrays, ["c"], program)
    load_c(program).run("matmul", {"N": 3, "M": 2, "K": 4}, arrays)
    assert np.allclose(arrays["c"][:, :2], arrays["a"].astype(np.float64) @ arrays["b"], rtol=1e-6)
