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
from verified_sched.verify.driver import verify_program

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
    cex = dep[0].counterexample.to_json()
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


# ------------------------------------------------------------------ property: verdict vs runs

PROP = """
params B where B >= 1
tensor x[B, 4] f32
tensor y[B, 4] f32
tensor t[4] f32 shared
kernel k {
  for b in 0 .. B : block.x {
BODY
  }
}
schedule k {
  OP
}
"""

ONE_LOOP = """    for i in 0 .. 4 : thread.x {
      t[W] = x[b, i]
      barrier
      y[b, i] = t[R]
    }"""

TWO_LOOPS = """    for i in 0 .. 4 : thread.x {
      t[W] = x[b, i]
    }
    barrier
    for j in 0 .. 4 : thread.x {
      y[b, j] = t[R]
    }"""

OPS_ONE = ["retype i as serial", "unroll i", "reverse i", "split i by 2 -> io, ii", "split i by 4 -> io, ii"]
OPS_TWO = ["retype i as serial", "retype j as serial", "reverse i", "reverse j", "split j by 2 -> jo, ji",
           "unroll j"]


def _runs_equal(text: str, sizes: dict, seeds=(0, 1, 2)) -> bool:
    from verified_sched.oracle.compare import compare_kernels
    from verified_sched.interp.interpreter import run_kernel
    from verified_sched.ops import apply_op
    program = parse_text(text, "k.vs")
    after = program
    for op in program.schedule_for("k").ops:
        after = apply_op(after, "k", op)
    for seed in seeds:
        rep = compare_kernels(program, "k", "k", sizes, 0, "random",
                              lambda kn, s, a: run_kernel(program, kn, s, a, seed=seed),
                              lambda kn, s, a: run_kernel(after, kn, s, a, seed=seed), program_cand=after)
        if not rep.equal:
            return False
    return True


def test_barrier_ops_verdict_agrees_with_runs():
    """Hypothesis: a thread loop (or two, around a barrier) writing a shared tile through a
    permutation and reading it through another, under one op on a thread loop: `legal`
    exactly when the interpreter (threads in random orders, phase by phase) runs equal."""
    from hypothesis import given, settings, HealthCheck, strategies as st

    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(["one", "two"]), st.sampled_from(["i", "3 - i"]),
           st.sampled_from(["I", "3 - I", "(I + 1) % 4"]), st.data())
    def prop(shape, w, r, data):
        body = ONE_LOOP if shape == "one" else TWO_LOOPS
        op = data.draw(st.sampled_from(OPS_ONE if shape == "one" else OPS_TWO))
        reader = "i" if shape == "one" else "j"
        text = PROP.replace("BODY", body.replace("W", w).replace("R", r.replace("I", reader))).replace("OP", op)
        rep = _report(text)
        kernel_ok = all(o.status == "proved" for o in rep.obligations if o.op_index == 0)
        if not kernel_ok:
            return
        equal = _runs_equal(text, {"B": 2})
        assert rep.verdict in ("legal", "illegal"), _failed(rep)
        assert (rep.verdict == "legal") == equal, (text, _failed(rep))

    prop()
