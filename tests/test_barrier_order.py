"""Issue 20 item 5: orders that only barriers establish are dependences the ops keep.

A barrier orders x before y when x runs before a barrier instance in its thread and that
barrier instance runs before y in y's thread, threads of one block (polyhedral/race.py,
`barrier_order`). The dependence obligation keeps every such pair of the kernel before the
op (as it keeps program order), and counts the barrier order of the kernel after the op as
order too. Regressions, each found by an independent schedule fuzzer:

- false legal: a thread loop whose body holds a barrier, retyped to serial, unrolled or split
  by its full extent (thread 0 then runs every iteration around the barrier), was proved
  legal, although iteration 0 reads a shared cell before iteration 3 writes it;
- false illegal: reversing or relabelling (splitting) a thread loop only changes which thread
  reads a cell a barrier orders after every write; a leader write (outside every thread loop)
  then a barrier then the threads' reads.

Every refutation replays: `vsched run --target emulate|interp` reports DIFFERENT.
"""
from __future__ import annotations

import pytest

from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.verify import verify_program

ROT = """
params B where B >= 1
tensor x[B, 4] f32
tensor y[B, 4] f32
tensor t[4] f32 shared
kernel rot {
  for b in 0 .. B : block.x {
    for i in 0 .. 4 : thread.x {
      t[i] = x[b, i]
      barrier
      y[b, i] = t[3 - i]
    }
  }
}
schedule rot {
  OP
}
"""

SHIFT = """
params B where B >= 1
tensor x[B, 64] f32
tensor y[B, 64] f32
tensor t[64] f32 shared
kernel shift {
  for b in 0 .. B : block.x {
    for i in 0 .. 64 : thread.x {
      t[i] = x[b, i]
    }
    barrier
    for j in 0 .. 64 : thread.x {
      y[b, j] = 2.0 * t[j]
    }
  }
}
schedule shift {
  OP
}
"""

LEADER = """
params B where B >= 1
tensor x[B] f32
tensor y[B, 64] f32
tensor t[1] f32 shared
kernel bcast {
  for b in 0 .. B : block.x {
    t[0] = x[b]
    barrier
    for i in 0 .. 64 : thread.x {
      y[b, i] = t[0] + 1.0
    }
  }
}
schedule bcast {
  OP
}
"""


def _report(text: str):
    (rep,) = verify_program(parse_text(text, "k.vs"), timeout=60.0)
    return rep


def _failed(rep) -> list:
    return [(o.kind, o.status, o.message) for o in rep.obligations if o.status != "proved"]


@pytest.mark.parametrize("op", ["retype i as serial", "unroll i", "split i by 4 -> io, ii"])
def test_thread_loop_with_barrier_made_serial_is_refuted_and_replays(op, tmp_path, capsys):
    text = ROT.replace("OP", op)
    rep = _report(text)
    assert rep.verdict == "illegal", _failed(rep)
    dep = [o for o in rep.obligations if o.kind == "dependence"]
    assert [o.status for o in dep] == ["refuted"]
    cex = dep[0].counterexample
    assert cex["cells"][0]["tensor"] == "t"
    path = tmp_path / "rot.vs"
    path.write_text(text)
    sizes = ",".join(f"{k}={v}" for k, v in cex["params"].items())
    for target in ("emulate", "interp"):
        assert main(["run", str(path), "--target", target, "--size", sizes]) == 1
        assert "DIFFERENT" in capsys.readouterr().out


def test_thread_loop_with_barrier_reversed_is_legal():
    rep = _report(ROT.replace("OP", "reverse i"))
    assert rep.verdict == "legal", _failed(rep)


@pytest.mark.parametrize("op", ["reverse j", "split j by 16 -> jo, ji"])
def test_reversing_or_relabelling_the_reading_thread_loop_is_legal(op):
    """The barrier orders every write of t before every read of it: which thread reads
    t[j] does not matter."""
    rep = _report(SHIFT.replace("OP", op))
    assert rep.verdict == "legal", _failed(rep)


def test_reversing_the_writing_thread_loop_is_legal():
    rep = _report(SHIFT.replace("OP", "reverse i"))
    assert rep.verdict == "legal", _failed(rep)


@pytest.mark.parametrize("op", ["reverse i", "split i by 16 -> io, ii"])
def test_leader_write_barrier_then_thread_reads_is_a_kept_dependence(op):
    """Thread 0 writes t[0] outside the thread loop; the barrier orders it before every
    thread's read (the kernel's own race obligation proves that order)."""
    rep = _report(LEADER.replace("OP", op))
    assert rep.verdict == "legal", _failed(rep)
