"""Issue 9 items 12 and 14: which backends `vsched run` compares, and vacuous comparisons.

Item 12 (regression): with `--target emulate` or `--target interp`, a kernel whose barrier
sits inside a thread loop was compared against its *serial C* run (barriers as no-ops, so a
correct GPU kernel was reported DIFFERENT); the printed labels now name the backends that ran.
Item 14 (regression): equal outputs that are all zero were reported DIFFERENT; now VACUOUS
(exit 1, since the comparison showed nothing).
"""
from __future__ import annotations

import pytest

from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.oracle.run_plan import choose_targets, needs_phases

# a correct GPU kernel: each thread writes its cell, waits, then reads another thread's cell
REVERSE = """
params B where B >= 1
tensor x[B, 32] f32
tensor y[B, 32] f32
tensor t[32] f32 shared

kernel reverse {
  for b in 0 .. B : block.x {
    for i in 0 .. 32 : thread.x {
      t[i] = x[b, i]
      barrier
      y[b, i] = t[31 - i]
    }
  }
}
"""

SCHEDULED = REVERSE + """
schedule reverse {
  retype b as block.y
}
"""


@pytest.mark.parametrize("target", ["emulate", "interp", "c"])
def test_plain_gpu_kernel_with_barrier_in_thread_loop_is_never_checked_against_serial_c(
        tmp_path, capsys, target):
    path = tmp_path / "reverse.vs"
    path.write_text(REVERSE)
    code = main(["run", str(path), "--size", "B=2", "--target", target])
    cap = capsys.readouterr()
    assert code == 0, cap.out
    assert "DIFFERENT" not in cap.out and ": ok" in cap.out
    label = [line for line in cap.out.splitlines() if line.startswith("kernel reverse")][0]
    assert "(C vs" not in label and "vs C)" not in label, label
    assert "note: the reference reverse has barriers" in cap.err


def test_scheduled_gpu_kernel_reference_side_runs_phase_by_phase(tmp_path, capsys):
    path = tmp_path / "reverse_sched.vs"
    path.write_text(SCHEDULED)
    code = main(["run", str(path), "--size", "B=3", "--target", "emulate"])
    cap = capsys.readouterr()
    assert code == 0, cap.out
    assert "schedule of reverse: ok" in cap.out
    assert "reverse (GPU emulator) vs reverse (GPU emulator)" in cap.out


def test_choose_targets_rule():
    program = parse_text(REVERSE, "r.vs")
    assert needs_phases(program, "reverse")
    assert choose_targets(program, "reverse", program, "reverse", "c", "emulate")[:2] == ("interp", "emulate")
    assert choose_targets(program, "reverse", program, "reverse", "c", "interp")[:2] == ("emulate", "interp")
    assert choose_targets(program, "reverse", program, "reverse", "c", "c")[:2] == ("interp", "emulate")
    plain = parse_text("params N where N >= 1\ntensor x[N] f32\nkernel k {\n  for i in 0 .. N {\n"
                       "    x[i] = 1.0\n  }\n}\n", "p.vs")
    assert choose_targets(plain, "k", plain, "k", "c", "interp") == ("c", "interp", [])


def test_labels_name_the_backends_of_a_schedule(cases_dir, capsys):
    assert main(["run", str(cases_dir / "matmul_tiled.vs"), "--size", "N=3,M=5,K=2"]) == 0
    out = capsys.readouterr().out
    assert "matmul (C) vs matmul (C) at" in out


ZEROS = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32

kernel zeros {
  for i in 0 .. N {
    y[i] = x[i] - x[i]
  }
}

schedule zeros {
  split i by 2 -> io, ii
}
"""


def test_equal_all_zero_outputs_are_vacuous_not_different(tmp_path, capsys):
    path = tmp_path / "zeros.vs"
    path.write_text(ZEROS)
    code = main(["run", str(path), "--size", "N=6"])
    out = capsys.readouterr().out
    assert code == 1
    assert "schedule of zeros: VACUOUS" in out and "DIFFERENT" not in out
