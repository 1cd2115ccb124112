"""The oracle: inputs, poison, bitwise and tolerant comparison, vacuity, runners of any kind."""
from __future__ import annotations

import numpy as np
import pytest

from codegen.build import load_c
from verified_sched.oracle.compare import POISON_BITS, compare_kernels, poison, random_inputs
from verified_sched.dsl import parse_text
from verified_sched.core.errors import UsageError

TEXT = """
params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32 pad(0, 2)
tensor idx[N] i32
tensor g[N] f32
tensor h[K] bf16
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
kernel matmul_rev {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, K - 1 - k] * b[K - 1 - k, j]
      }
    }
  }
}
kernel matmul_skip {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      if i + j > 0 {
        for k in 0 .. K {
          c[i, j] += a[i, k] * b[k, j]
        }
      }
    }
  }
}
kernel matmul_nozero {
  for i in 0 .. N {
    for j in 0 .. M {
      c[i, j] = 0
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}
kernel zeros {
  zero c
}
kernel gather {
  for i in 0 .. N {
    g[i] = a[idx[i], 0]
  }
}
"""
SIZES = {"N": 5, "M": 3, "K": 64}


@pytest.fixture(scope="module")
def program():
    return parse_text(TEXT)


@pytest.fixture(scope="module")
def module(program):
    return load_c(program)


def test_random_inputs_shapes_dtypes_and_ranges(program):
    arrays = random_inputs(program, ["gather"], SIZES, seed=3)
    assert set(arrays) == {"a", "b", "c", "idx", "g", "h"}
    assert arrays["c"].shape == (5, 5) and arrays["c"].dtype == np.float32
    assert arrays["h"].dtype == np.uint16 and arrays["idx"].dtype == np.int32
    assert arrays["idx"].min() >= 0 and arrays["idx"].max() < SIZES["N"]  # indexes a's dim 0
    small = random_inputs(program, None, SIZES, seed=3, mode="small-int")
    for name in ("a", "b", "c", "g"):
        v = small[name]
        assert np.array_equal(v, np.round(v)) and v.min() >= -8 and v.max() <= 8 and v.any()
    again = random_inputs(program, ["gather"], SIZES, seed=3)
    assert all(np.array_equal(arrays[k], again[k]) for k in arrays)
    with pytest.raises(UsageError, match="input mode"):
        random_inputs(program, None, SIZES, mode="gaussian")


def test_inputs_are_never_all_zero():
    program = parse_text("tensor x[1] f32\nkernel k {\n  x[0] = 1\n}\n")
    for seed in range(20):
        assert random_inputs(program, None, {}, seed=seed, mode="small-int")["x"][0] != 0


def test_poison_fills_outputs_and_padding(program):
    arrays = random_inputs(program, None, SIZES)
    before = arrays["a"].copy()
    poison(arrays, ["g"], program)
    assert np.all(arrays["g"].view(np.uint32) == POISON_BITS[np.dtype(np.float32)])
    assert np.all(arrays["c"][:, 3:].view(np.uint32) == POISON_BITS[np.dtype(np.float32)])
    assert not np.isnan(arrays["c"][:, :3]).any() and np.array_equal(arrays["a"], before)


def test_same_kernel_is_bitwise_equal(program, module):
    report = compare_kernels(program, "matmul", "matmul_nozero", SIZES, runner_ref=module.run,
                             runner_cand=module.run)
    assert report.equal and not report.vacuous and report.ok, report.text()
    assert report.max_abs == 0 and "equal on" in report.text()
    # padding is don't-care: matmul's zero wrote 0 there, matmul_nozero left the poison


def test_reassociation_differs_bitwise_but_passes_with_tolerance(program, module):
    exact = compare_kernels(program, "matmul", "matmul_rev", SIZES, runner_ref=module.run,
                            runner_cand=module.run)
    assert not exact.equal and exact.first_diff.tensor == "c"
    assert 0 < exact.max_rel < 1e-4
    loose = compare_kernels(program, "matmul", "matmul_rev", SIZES, runner_ref=module.run,
                            runner_cand=module.run, rtol=1e-4, atol=1e-6)
    assert loose.ok, loose.text()


def test_first_diff_names_the_cell(program, module):
    report = compare_kernels(program, "matmul", "matmul_skip", SIZES, runner_ref=module.run,
                             runner_cand=module.run)
    assert not report.equal and report.n_diff == 1
    d = report.first_diff
    assert (d.tensor, d.index, d.cand) == ("c", (0, 0), 0.0) and d.ref != 0
    assert "c[0, 0]" in report.text()


def test_a_cell_left_unwritten_shows_up_as_poison(program, module):
    def forgetful(kernel, sizes, arrays):
        module.run("matmul", sizes, arrays)
        arrays["c"][2, 1] = np.frombuffer(np.uint32(POISON_BITS[np.dtype(np.float32)]).tobytes(), np.float32)[0]

    report = compare_kernels(program, "matmul", "matmul", SIZES, runner_ref=module.run, runner_cand=forgetful)
    assert not report.equal and report.first_diff.index == (2, 1) and np.isnan(report.first_diff.cand)
    assert report.max_abs == np.inf


def test_all_zero_outputs_are_vacuous(program, module):
    report = compare_kernels(program, "zeros", "zeros", SIZES, runner_ref=module.run, runner_cand=module.run)
    assert report.equal and report.vacuous and not report.ok
    assert "VACUOUS" in report.text()


def test_default_runners_compile_both_programs(program):
    report = compare_kernels(program, "gather", "gather", SIZES, seed=1)
    assert report.ok, report.text()


def test_c_against_the_interpreter(program, module):
    from verified_sched.interp import interpreter as interp
    for sizes in ({"N": 1, "M": 1, "K": 1}, {"N": 3, "M": 7, "K": 5}):
        for kernel in ("matmul", "gather"):
            report = compare_kernels(program, kernel, kernel, sizes, seed=2, inputs="small-int",
                                     runner_ref=lambda k, s, a: interp.run_kernel(program, k, s, a),
                                     runner_cand=module.run)
            assert report.ok, report.text()


def test_programs_with_different_globals_are_refused(program):
    other = parse_text("tensor x[1] f32\nkernel k {\n  x[0] = 1\n}\n")
    with pytest.raises(UsageError, match="different global tensors"):
        compare_kernels(program, "matmul", "k", SIZES, program_cand=other,
                        runner_ref=lambda *a: None, runner_cand=lambda *a: None)


STENCIL = """
params N, M where N >= 2, M >= 1
tensor x[N, M] f32
tensor A[N, M] f32
kernel down {
  for i in 1 .. N {
    for j in 0 .. M {
      A[i, j] = 0.5 * A[i - 1, j] + x[i, j]
    }
  }
}
kernel down_swapped {
  for j in 0 .. M {
    for i in 1 .. N {
      A[i, j] = 0.5 * A[i - 1, j] + x[i, j]
    }
  }
}
"""


def test_in_out_tensors_keep_their_inputs_and_scheduled_program_is_compared():
    from verified_sched.oracle.compare import read_before_written
    program = parse_text(STENCIL)
    assert read_before_written(program) == {"A", "x"}  # x: a plain input
    report = compare_kernels(program, "down", "down_swapped", {"N": 5, "M": 3})
    assert report.ok, report.text()
    # the candidate may live in its own (scheduled) program with the same globals
    only_swapped = parse_text(STENCIL.replace("kernel down {", "kernel unused {"))
    report = compare_kernels(program, "down", "down_swapped", {"N": 4, "M": 2}, program_cand=only_swapped)
    assert report.ok, report.text()


OOB = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
inputs x int in [-3, 3]
kernel ok {
  for i in 0 .. N {
    y[i] = 2 * x[i]
  }
}
kernel past_end {
  for i in 0 .. N + 2 {
    y[i] = 2 * x[min(i, N - 1)]
  }
}
"""


def test_write_outside_storage_is_reported_not_heap_corruption():
    """Guard zones around every array: a compiled kernel (plain C runner) writing past y raises
    OutOfStorage; the default runner, the bounds-checked C build, names the first bad index."""
    from codegen.build import load_c
    from verified_sched.oracle.compare import OutOfStorage
    program = parse_text(OOB)
    plain = load_c(program).run
    with pytest.raises(OutOfStorage, match="kernel past_end wrote outside the storage of tensor y, "
                                           "up to 2 element"):
        compare_kernels(program, "ok", "past_end", {"N": 5}, runner_ref=plain, runner_cand=plain)
    with pytest.raises(OutOfStorage, match="kernel past_end wrote outside the storage of tensor y: "
                                           "index 5 of dimension 0"):
        compare_kernels(program, "ok", "past_end", {"N": 5})


def test_declared_input_ranges_and_poisoning_reach_every_runner():
    """A Python callable in place of the candidate sees `inputs`-declared values and poisoned
    outputs (y is written before it is read)."""
    program = parse_text(OOB)
    seen = {}

    def python_kernel(kernel, sizes, arrays):
        seen.update({k: v.copy() for k, v in arrays.items()})
        arrays["y"][...] = 2 * arrays["x"]

    report = compare_kernels(program, "ok", "ok", {"N": 40}, seed=2, runner_cand=python_kernel)
    assert report.ok, report.text()
    assert set(np.unique(seen["x"])) <= set(range(-3, 4)) and len(np.unique(seen["x"])) > 3
    assert np.all(seen["y"].view(np.uint32) == POISON_BITS[np.dtype(np.float32)])
