"""Hand-written GPU kernels and corpus helpers shared by the test_gpu_* files (no tests here
beyond a parse check): a shared-tile matmul with barriers inside a serial k loop, leader-only
effects, a data-dependent `if` around a barrier, triangular thread extents, races."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from verified_sched.core import ir
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.errors import ScheduleError, UsageError

CASES = Path(__file__).resolve().parent / "cases"
GPU_CASES = ["shared_missing_barrier", "shared_with_barrier", "barrier_divergent", "stage_shared_matmul",
             "rowsum_parallel_race", "split_reduction", "tensorize_matmul"]

TILED = (Path(__file__).resolve().parents[1] / "examples" / "tiled_shared_matmul.vs").read_text() + """
tensor acc[1] f32 local

# a per-thread local accumulator kept across phases; the k loop's bound names the thread
# index (uniform only at run time), so it takes the per-thread trip-count path
kernel tiled_local {
  for bi in 0 .. TN : block.y {
    for bj in 0 .. TM : block.x {
      for ti in 0 .. 16 : thread.y {
        for tj in 0 .. 16 : thread.x {
          acc[0] = 0.0
          for ko in 0 .. min(TK, TK + tj) {
            a_tile[ti, tj] = a[16 * bi + ti, 16 * ko + tj]
            b_tile[ti, tj] = b[16 * ko + ti, 16 * bj + tj]
            barrier
            for ki in 0 .. 16 {
              acc[0] += a_tile[ti, ki] * b_tile[ki, tj]
            }
            barrier
          }
          c[16 * bi + ti, 16 * bj + tj] = acc[0]
        }
      }
    }
  }
}

# the trailing barrier is missing: the next k tile overwrites a tile still being read
kernel tiled_no_trailing_barrier {
  zero c
  for bi in 0 .. TN : block.y {
    for bj in 0 .. TM : block.x {
      for ti in 0 .. 16 : thread.y {
        for tj in 0 .. 16 : thread.x {
          for ko in 0 .. TK {
            a_tile[ti, tj] = a[16 * bi + ti, 16 * ko + tj]
            b_tile[ti, tj] = b[16 * ko + ti, 16 * bj + tj]
            barrier
            for ki in 0 .. 16 {
              c[16 * bi + ti, 16 * bj + tj] += a_tile[ti, ki] * b_tile[ki, tj]
            }
          }
        }
      }
    }
  }
}
"""

MISC = """
params B where B >= 1

tensor x[B, 8] f32
tensor y[B, 8] f32
tensor s[B] f32
tensor t[8] f32 shared

# effects outside thread loops run on thread 0 only
kernel leader {
  for b in 0 .. B : block.x {
    s[b] = 0.0
    for i in 0 .. 8 : thread.x {
      t[i] = x[b, i]
    }
    barrier
    for i in 0 .. 8 : thread.x {
      if i == 0 {
        for k in 0 .. 8 {
          s[b] += t[k]
        }
      }
      y[b, i] = t[7 - i] * 2.0
    }
  }
}

# a barrier under a data-dependent condition that every thread evaluates alike
kernel data_if {
  for b in 0 .. B : block.x {
    for i in 0 .. 8 : thread.x {
      if x[b, 0] > 2.0 {
        y[b, i] = 1.0
      } else {
        t[i] = x[b, i]
        barrier
        y[b, i] = t[7 - i]
      }
    }
  }
}

# thread extents that depend on the block index (a triangle)
kernel triangle {
  for b in 0 .. B : block.x {
    for i in 0 .. min(b + 1, 8) : thread.x {
      y[b, i] = x[b, i] + 1.0
    }
  }
}

# a thread extent of B - 1: no thread runs the loop when B = 1 (the block still has 1 thread)
kernel edge {
  for b in 0 .. B : block.x {
    s[b] = 1.0
    for i in 0 .. B - 1 : thread.x {
      t[i % 8] = x[b, i % 8]
      barrier
      y[b, i % 8] = t[7 - i % 8]
    }
  }
}

# thread i reaches the barrier i times: divergent
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

# every block writes row 0 of y: blocks are unordered
kernel cross_block {
  for b in 0 .. B : block.x {
    for i in 0 .. 8 : thread.x {
      y[0, i] = x[b, i]
    }
  }
}
"""


def tiled_program() -> ir.Program:
    return parse_text(TILED, "tiled.vs")


def misc_program() -> ir.Program:
    return parse_text(MISC, "misc.vs")


def tensor_core_program() -> ir.Program:
    """The tiled program plus kernel `tc`: a 32-lane thread loop around a tensor-core block whose
    scalar fallback is the whole matmul nest (built as IR: the DSL prints, not parses, it)."""
    p = tiled_program()
    k = p.kernel("matmul")
    lane = ir.For("lane", ir.Int(0), ir.Int(32), "thread.x", (ir.TensorCore("lane", (16, 16, 16), k.body[1:]),))
    block = ir.For("blk", ir.Int(0), ir.Int(1), "block.x", (lane,))
    return p.with_kernel(ir.Kernel("tc", (k.body[0], block)))


def load_case(name: str) -> ir.Program:
    if not CASES.is_dir():
        pytest.skip(f"verdict corpus not found at {CASES}")
    return parse_file(str(CASES / f"{name}.vs"))


def scheduled(program: ir.Program, kernel: str):
    """The program after the kernel's whole schedule, or None when an op is not available yet."""
    from verified_sched.ops import apply_op

    sched = program.schedule_for(kernel)
    for op in sched.ops if sched else ():
        try:
            program = apply_op(program, kernel, op)
        except ScheduleError as e:
            if "not implemented" in str(e):
                return None
            raise
    return program


def has_hw(program: ir.Program, kernel: str) -> bool:
    return any(isinstance(n, ir.For) and ir.is_hardware(n.axis) for n in ir.walk(program.kernel(kernel).body))


def hardware_kernels(program: ir.Program):
    """(kernel, the program after its whole schedule) for each kernel that runs on hardware
    loops once scheduled (kernels whose schedule names an op not available yet are left out)."""
    for kernel in program.kernels:
        after = scheduled(program, kernel.name) if program.schedule_for(kernel.name) else program
        if after is not None and has_hw(after, kernel.name):
            yield kernel, after


def small_sizes(program: ir.Program, count: int = 3) -> list:
    """A few small size sets that satisfy the program's constraints (spread out)."""
    from verified_sched.core.dtypes import check_sizes

    names = list(program.params)
    ok = []
    for values in itertools.product((1, 2, 3, 5), repeat=len(names)):
        sizes = dict(zip(names, values))
        try:
            check_sizes(program, sizes)
        except UsageError:
            continue
        ok.append(sizes)
    if len(ok) <= count:
        return ok
    return [ok[round(i * (len(ok) - 1) / (count - 1))] for i in range(count)]


def test_kernels_parse():
    assert {k.name for k in tiled_program().kernels} >= {"matmul", "tiled", "tiled_local"}
    assert has_hw(misc_program(), "leader")
