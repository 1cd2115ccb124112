"""Issue 20 item 4 (the shared-memory part): the oracle's false alarm.

A claim whose kernel has a serial loop around a block loop with `shared` memory ran in serial C
with one shared array for all blocks: block b's values, kept across the serial loop's
iterations (one launch), were overwritten by the other blocks, and `vsched run` reported
DIFFERENT for a legal program (the interpreter and CUDA agree with the verifier). Serial C now
declines such a kernel, as it declines barriers inside hardware loops
(run_plan.serial_c_declines), and the emulator runs it with memory per block.
"""
from __future__ import annotations

from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.oracle.run_plan import choose_targets, per_copy_memory
from verified_sched.verify.driver import verify_program

PERSIST = """
params B, R where B >= 1, R >= 1
tensor x[B, 8] f32
tensor y[R, B, 8] f32
tensor t[8] f32 MEM

kernel gpu {
  for r in 0 .. R {
    for b in 0 .. B : block.x {
      for i in 0 .. 8 : thread.x {
        if r > 0 {
          y[r, b, i] = t[IDX]
        } else {
          y[r, b, i] = 0.0
        }
        t[IDX] = x[b, i]
      }
    }
  }
}

kernel plain {
  for r in 0 .. R {
    for b in 0 .. B {
      for i in 0 .. 8 {
        if r > 0 {
          y[r, b, i] = x[b, i]
        } else {
          y[r, b, i] = 0.0
        }
      }
    }
  }
}

claim gpu == plain
"""


def _text(mem="shared", idx="i"):
    return PERSIST.replace("MEM", mem).replace("IDX", idx)


def test_shared_memory_kept_across_a_serial_loop_around_blocks_runs_per_block(tmp_path, capsys):
    text = _text()
    (claim, *_) = verify_program(parse_text(text, "k.vs"), timeout=60.0)
    assert claim.verdict == "legal"
    path = tmp_path / "persist.vs"
    path.write_text(text)
    assert main(["run", str(path), "--size", "B=3,R=4"]) == 0
    captured = capsys.readouterr()
    assert "claim gpu == plain: ok" in captured.out
    assert "gpu (GPU emulator)" in captured.out
    assert "outlive an iteration of a serial loop" in captured.err
    for target in ("interp", "emulate"):
        assert main(["run", str(path), "--target", target, "--size", "B=3,R=4"]) == 0


def test_local_memory_kept_across_a_serial_loop_around_threads_runs_per_thread(tmp_path):
    text = _text("local", "0")
    path = tmp_path / "persist_local.vs"
    path.write_text(text)
    assert main(["run", str(path), "--size", "B=2,R=3"]) == 0


def test_per_copy_memory_rule():
    program = parse_text(_text(), "k.vs")
    assert per_copy_memory(program, "gpu") and not per_copy_memory(program, "plain")
    assert choose_targets(program, "gpu", program, "plain", "c", "c")[:2] == ("emulate", "c")
    # a block loop at the top of its launch: each block runs to its end in serial C
    top = parse_text(TOP, "k.vs")
    assert not per_copy_memory(top, "gpu")


TOP = """
params B where B >= 1
tensor x[B, 8] f32
tensor y[B, 8] f32
tensor t[8] f32 shared
kernel gpu {
  for b in 0 .. B : block.x {
    for r in 0 .. 2 {
      for i in 0 .. 8 : thread.x {
        t[i] = x[b, i]
        y[b, i] = t[i]
      }
    }
  }
}
"""
