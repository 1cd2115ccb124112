"""Issue 9 item 13: the GPU emulator reports an index outside a shared or local tensor as a
finding (EmulationError, `vsched run` exit 1), with or without the race detector; it never
overflows the heap (regression: a segfault or `malloc(): invalid size`, signal 6)."""
from __future__ import annotations

import numpy as np
import pytest

from codegen.emulate import EmulationError, load_emulated
from verified_sched.cli import main
from verified_sched.dsl import parse_text

SHARED_OOB = """
params B where B >= 1
tensor x[B, 64] f32
tensor y[B, 64] f32
tensor t[32] f32 shared

kernel spill {
  for b in 0 .. B : block.x {
    for i in 0 .. 64 : thread.x {
      t[i * 3] = x[b, i]
    }
    barrier
    for i in 0 .. 32 : thread.x {
      y[b, i] = t[i]
    }
  }
}
"""

LOCAL_OOB = """
params B where B >= 1
tensor x[B, 64] f32
tensor y[B, 64] f32
tensor acc[4] f32 local

kernel loob {
  for b in 0 .. B : block.x {
    for i in 0 .. 64 : thread.x {
      for k in 0 .. 4 {
        acc[k * 50] = x[b, i]
      }
      y[b, i] = acc[0]
    }
  }
}
"""


@pytest.mark.parametrize("races", [False, True])
@pytest.mark.parametrize("src,kernel,tensor", [(SHARED_OOB, "spill", "t"), (LOCAL_OOB, "loob", "acc")])
def test_scratch_write_outside_storage_is_a_finding(src, kernel, tensor, races):
    program = parse_text(src, "oob.vs")
    mod = load_emulated(program, seed=1, detect_races=races)
    arrays = {"x": np.ones((3, 64), np.float32), "y": np.zeros((3, 64), np.float32)}
    with pytest.raises(EmulationError, match=rf"index out of bounds: index -?\d+ of dimension \d+ of {tensor} "):
        mod.run(kernel, {"B": 3}, arrays)


def test_run_reports_the_shared_overflow_and_exits_1(tmp_path, capsys):
    path = tmp_path / "oob.vs"
    path.write_text(SHARED_OOB + "\nschedule spill {\n  retype b as block.y\n}\n")
    assert main(["run", str(path), "--size", "B=2", "--target", "emulate"]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "index out of bounds" in out
