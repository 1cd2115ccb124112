"""`vsched exec`: one kernel on given .npy inputs, compared with numpy."""
from __future__ import annotations

import numpy as np
import pytest

from verified_sched.cli import main

PADDED = """
params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32 pad(0, 3)
tensor c[N, M] f32 pad(0, 5)
tensor bias[M] f64
tensor y[N, M] f64
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
kernel biased {
  for i in 0 .. N {
    for j in 0 .. M {
      y[i, j] = c[i, j] + bias[j]
    }
  }
}
"""


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(7)
    a = rng.integers(-8, 9, (5, 3)).astype(np.float32)
    b = rng.integers(-8, 9, (3, 4)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    (tmp_path / "p.vs").write_text(PADDED)
    return tmp_path, a, b


@pytest.mark.parametrize("target", ["c", "interp"])
def test_exec_matmul_matches_numpy(repo_root, files, target):
    tmp, a, b = files
    out = tmp / "c.npy"
    code = main(["exec", str(repo_root / "examples" / "matmul.vs"), "--kernel", "matmul",
                 "--size", "N=5,M=4,K=3", "--in", f"a={tmp / 'a.npy'}", "--in", f"b={tmp / 'b.npy'}",
                 "--out", f"c={out}", "--target", target])
    assert code == 0
    c = np.load(out)
    assert c.dtype == np.float32 and c.shape == (5, 4)
    assert np.array_equal(c, a @ b) and c.any()


def test_exec_infers_sizes_and_accepts_logical_shapes_with_padding(files, capsys):
    tmp, a, b = files
    out = tmp / "c.npy"
    # b's padded dim could be M = 4 (logical shape) or M = 1 (storage shape): ambiguous
    assert main(["exec", str(tmp / "p.vs"), "--kernel", "matmul", "--in", f"a={tmp / 'a.npy'}",
                 "--in", f"b={tmp / 'b.npy'}", "--out", f"c={out}"]) == 2
    assert "cannot infer M from the arrays' shapes (M: tensor b's padded dim" in capsys.readouterr().err
    assert main(["exec", str(tmp / "p.vs"), "--kernel", "matmul", "--size", "M=4", "--in",
                 f"a={tmp / 'a.npy'}", "--in", f"b={tmp / 'b.npy'}", "--out", f"c={out}"]) == 0
    assert np.array_equal(np.load(out), a @ b)  # N and K inferred; c written without padding


def test_exec_storage_shape_input_and_exact_dtype_conversion(files):
    tmp, a, b = files
    c = np.zeros((5, 4 + 5), np.float32)
    c[:, :4] = a @ b
    np.save(tmp / "c_storage.npy", c)
    np.save(tmp / "bias.npy", np.arange(4, dtype=np.float32))  # f32 values convert exactly to f64
    out = tmp / "y.npy"
    assert main(["exec", str(tmp / "p.vs"), "--kernel", "biased", "--size", "N=5,M=4,K=3",
                 "--in", f"c={tmp / 'c_storage.npy'}", "--in", f"bias={tmp / 'bias.npy'}",
                 "--out", f"y={out}"]) == 0
    assert np.array_equal(np.load(out), (a @ b).astype(np.float64) + np.arange(4))


def test_exec_size_mismatch_is_a_clear_error(files, capsys):
    tmp, a, b = files
    assert main(["exec", str(tmp / "p.vs"), "--kernel", "matmul", "--size", "N=5,M=4,K=2",
                 "--in", f"a={tmp / 'a.npy'}", "--out", f"c={tmp / 'c.npy'}"]) == 2
    err = capsys.readouterr().err
    assert "array shape (5, 3) does not match tensor a: (5, 2) at N=5, M=4, K=2" in err


def test_exec_inexact_dtype_is_refused(files, capsys):
    tmp, a, b = files
    np.save(tmp / "a64.npy", np.full((5, 3), 0.1))
    assert main(["exec", str(tmp / "p.vs"), "--kernel", "matmul", "--size", "M=4", "--in", f"a={tmp / 'a64.npy'}",
                 "--in", f"b={tmp / 'b.npy'}", "--out", f"c={tmp / 'c.npy'}"]) == 2
    assert "does not convert exactly to f32" in capsys.readouterr().err


def test_exec_cannot_infer_a_size_no_array_fixes(files, capsys):
    tmp, a, b = files
    assert main(["exec", str(tmp / "p.vs"), "--kernel", "matmul", "--in", f"a={tmp / 'a.npy'}",
                 "--out", f"c={tmp / 'c.npy'}"]) == 2
    assert "cannot infer M" in capsys.readouterr().err


def test_exec_out_of_bounds_kernel_fails_with_exit_1(tmp_path, capsys):
    (tmp_path / "oob.vs").write_text("params N where N >= 1\ntensor x[N] f32\ntensor y[N] f32\n"
                                     "kernel k {\n  for i in 0 .. N {\n    y[i] = x[i + 1]\n  }\n}\n")
    np.save(tmp_path / "x.npy", np.ones(3, np.float32))
    assert main(["exec", str(tmp_path / "oob.vs"), "--kernel", "k", "--target", "interp",
                 "--in", f"x={tmp_path / 'x.npy'}", "--out", f"y={tmp_path / 'y.npy'}"]) == 1
    assert "oob.vs:6:" in capsys.readouterr().err
