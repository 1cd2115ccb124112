"""GPU semantics of the interpreter: blocks and threads, barrier phases, divergence errors,
per-block shared and per-thread local memory, leader-only effects, tensor-core fallbacks."""
from __future__ import annotations

import numpy as np
import pytest

from verified_sched.oracle.compare import random_inputs
from verified_sched.dsl import parse_text
from verified_sched.interp.interpreter import KernelError, run_kernel

GPU = """
params B where B >= 1
tensor x[B, 8] f32
tensor y[B, 8] f32
tensor s[B] f32
tensor t[8] f32 shared
tensor acc[1] f32 local

kernel reverse {
  for b in 0 .. B : block.x {
    for i in 0 .. 8 : thread.x {
      t[i] = x[b, i]
      barrier
      y[b, i] = t[7 - i]
    }
  }
}

kernel racy {
  for b in 0 .. B : block.x {
    for i in 0 .. 8 : thread.x {
      t[i] = x[b, i]
      y[b, i] = t[7 - i]
    }
  }
}

kernel counted {
  for b in 0 .. B : block.x {
    for i in 0 .. 8 : thread.x {
      for k in 0 .. i {
        barrier
      }
      y[b, i] = x[b, i]
    }
  }
}

kernel two_barriers {
  for b in 0 .. B : block.x {
    for i in 0 .. 8 : thread.x {
      if i < 4 {
        barrier
      } else {
        barrier
      }
    }
  }
}

kernel fresh_shared {
  for b in 0 .. B : block.x {
    for i in 0 .. 8 : thread.x {
      if b == 0 {
        t[i] = 1.0
      }
      barrier
      y[b, i] = t[i]
    }
  }
}

kernel private {
  for b in 0 .. B : block.x {
    for i in 0 .. 8 : thread.x {
      acc[0] = x[b, i]
      barrier
      y[b, i] = acc[0]
    }
  }
}

kernel leader {
  zero s
  for b in 0 .. B : block.x {
    s[b] += 1.0
    for i in 0 .. 8 : thread.x {
      y[b, i] = x[b, i]
    }
  }
}

kernel serial_outer {
  for i in 0 .. 8 : thread.x {
    for b in 0 .. B {
      y[b, i] = x[b, i] * 2
    }
  }
}
"""


@pytest.fixture(scope="module")
def gpu():
    return parse_text(GPU, "gpu.vs")


def fresh(program, b=3, seed=0):
    return random_inputs(program, None, {"B": b}, seed=seed)


@pytest.mark.parametrize("seed", range(4))
def test_barrier_orders_phases(gpu, seed):
    arrays = fresh(gpu)
    run_kernel(gpu, "reverse", {"B": 3}, arrays, seed=seed)
    assert np.array_equal(arrays["y"], arrays["x"][:, ::-1])


def test_missing_barrier_shows_as_a_seed_dependent_race(gpu):
    outcomes = []
    for seed in range(6):
        arrays = fresh(gpu)
        run_kernel(gpu, "racy", {"B": 3}, arrays, seed=seed)
        outcomes.append(np.isnan(arrays["y"]).sum())
    assert any(outcomes), "threads reading unwritten shared cells must see poison"


def test_barrier_reached_a_different_number_of_times(gpu):
    with pytest.raises(KernelError, match=r"barrier divergence.*reached by thread\.x 1-7.*not by thread\.x 0"):
        run_kernel(gpu, "counted", {"B": 1}, fresh(gpu, 1))


def test_threads_at_different_barriers(gpu):
    with pytest.raises(KernelError, match=r"different|wait at the barrier at gpu\.vs:\d+"):
        run_kernel(gpu, "two_barriers", {"B": 1}, fresh(gpu, 1))


def test_shared_memory_is_per_block(gpu):
    arrays = fresh(gpu, 2)
    run_kernel(gpu, "fresh_shared", {"B": 2}, arrays)
    assert np.all(arrays["y"][0] == 1.0)
    assert np.all(np.isnan(arrays["y"][1])), "block 1 must not see block 0's shared tile"


def test_local_memory_is_per_thread(gpu):
    arrays = fresh(gpu, 2)
    run_kernel(gpu, "private", {"B": 2}, arrays, seed=3)
    assert np.array_equal(arrays["y"], arrays["x"])


def test_effects_outside_thread_loops_run_once_per_block(gpu, interp_vs_c):
    arrays = fresh(gpu, 3)
    c_out, i_out = interp_vs_c(gpu, "leader", {"B": 3}, arrays)
    assert np.all(i_out["s"] == 1.0)


def test_thread_loop_outside_a_serial_loop_matches_c(gpu, interp_vs_c):
    c_out, _ = interp_vs_c(gpu, "serial_outer", {"B": 3}, fresh(gpu, 3), seed=5)
    assert np.array_equal(c_out["y"], fresh(gpu, 3)["x"] * 2)


TC = """
params T where T >= 1
tensor a[4 * T, 4] f32
tensor b[4, 4] f32
tensor c[4 * T, 4] f32

kernel mm {
  zero c
  for bi in 0 .. T : block.x {
    for lane in 0 .. 32 : thread.x {
      tensor_core lane (4, 4, 4) {
        for i in 0 .. 4 {
          for j in 0 .. 4 {
            for k in 0 .. 4 {
              c[4 * bi + i, j] += a[4 * bi + i, k] * b[k, j]
            }
          }
        }
      }
    }
  }
}
"""


def test_tensor_core_runs_its_fallback_once(interp_vs_c):
    program = parse_text(TC, "tc.vs")
    arrays = random_inputs(program, None, {"T": 2}, mode="small-int", seed=1)
    c_out, i_out = interp_vs_c(program, "mm", {"T": 2}, arrays)
    assert np.array_equal(i_out["c"], arrays["a"] @ arrays["b"])
