"""Issue 9 item 11, the oracle's side: padding holds random values, not NaN, and reads outside
storage are caught.

Regressions: a kernel whose observable result depends on a padding cell it reads passed
`vsched run` (NaN in the padding made its select fall back to the reference's value); a lane
that reads outside storage and stores the value back (round_up_and_blend) was invisible.
"""
from __future__ import annotations

import numpy as np
import pytest

from codegen.checked import load_checked
from verified_sched.oracle.compare import OutOfStorage, compare_kernels
from verified_sched.cli import main
from verified_sched.dsl import parse_text

PADDED = """
params N where N >= 1
tensor x[N] f32 pad(1)
tensor y[N] f32
kernel ref {
  for i in 0 .. N {
    y[i] = x[i]
  }
}
kernel cand {
  for i in 0 .. N {
    y[i] = where(i < N - 1 or x[i + 1] != x[i + 1], x[i], 0.0)
  }
}
claim ref == cand
"""

BLEND = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel scale {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale {
  split i by 4 -> io, ii tail=round_up_and_blend
}
"""


def test_a_result_that_depends_on_padding_differs(tmp_path, capsys):
    path = tmp_path / "pad.vs"
    path.write_text(PADDED)
    assert main(["run", str(path), "--size", "N=4"]) == 1
    assert "claim ref == cand: DIFFERENT" in capsys.readouterr().out


def test_padding_is_random_and_outputs_poisoned():
    program = parse_text(PADDED, "pad.vs")
    seen = {}

    def spy(kernel, sizes, arrays):
        seen.update({k: v.copy() for k, v in arrays.items()})
        arrays["y"][...] = arrays["x"][:-1]

    compare_kernels(program, "ref", "ref", {"N": 5}, runner_cand=spy)
    assert np.isfinite(seen["x"]).all() and -1 <= seen["x"][-1] < 1  # padding: a random value
    assert np.isnan(seen["y"]).all()  # a write-only output: poisoned


def test_blend_lane_reading_past_the_end_fails_the_run(tmp_path, capsys):
    path = tmp_path / "blend.vs"
    path.write_text(BLEND)
    assert main(["run", str(path), "--size", "N=1"]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "read outside the storage of tensor y: index 1 of dimension 0" in out


def test_checked_build_catches_a_read_inside_flat_storage_but_outside_a_dimension():
    program = parse_text("""
params N where N >= 1
tensor a[N, 4] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    y[i] = a[0, i + 4]
  }
}
""", "k.vs")
    arrays = {"a": np.ones((3, 4), np.float32), "y": np.zeros(3, np.float32)}
    with pytest.raises(OutOfStorage, match="read outside the storage of tensor a: index 4 of dimension 1"):
        load_checked(program).run("k", {"N": 3}, arrays)
