"""Issue 20 item 6: launch scope decided (generic/launch_scope.py, polyhedral/launch_reads.py).

A read of a shared/local value is proved to see a value of its own launch (an isl question
over the launch index), or refuted by a run of the interpreter, which poisons a hardware
launch's shared and local memory; the refutation replays with `vsched run --target interp`.
It was always `unknown` before.
"""
from __future__ import annotations

from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program

TWO_LAUNCHES = """
params B where B >= 1
tensor x[B] f32
tensor y[B, 8] f32
tensor z[B, 8] f32
tensor t[1] f32 shared
kernel two {
  for b in 0 .. B : block.x {
    t[0] = x[b]
    barrier
    for i in 0 .. 8 : thread.x {
      y[b, i] = t[0]
    }
  }
  for b in 0 .. B : block.x {
    SECOND
    barrier
    for i in 0 .. 8 : thread.x {
      z[b, i] = t[0]
    }
  }
}
"""

LOCAL_LOAD = """
params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor s[N] f32
kernel red {
  for i in 0 .. N {
    for k in 0 .. K {
      s[i] += x[i, k]
    }
  }
}
schedule red {
  interchange i, k
  privatize s over k -> s_acc0
  retype i_st as block.x
}
"""


def _dataflow(text: str):
    (rep,) = verify_program(parse_text(text, "k.vs"), timeout=60.0)
    return rep, [o for o in rep.obligations if o.kind == "dataflow"]


def test_launch_scope_each_launch_writing_its_own_shared_value_is_proved():
    rep, goals = _dataflow(TWO_LAUNCHES.replace("SECOND", "t[0] = 2.0 * x[b]"))
    assert [o.status for o in goals] == ["proved"]
    assert rep.verdict == "legal"


def test_launch_scope_read_of_a_shared_value_of_another_launch_is_not_proved():
    """The second launch reads t[0] that only the first launch stored: gone. The kernel's own
    goal has nothing to run against: unknown, never proved."""
    rep, goals = _dataflow(TWO_LAUNCHES.replace("SECOND", ""))
    assert [o.status for o in goals] == ["unknown"]
    assert "no store of its own launch" in goals[0].message


def test_launch_scope_store_loop_retyped_to_blocks_reads_a_dead_local_copy_and_replays(tmp_path, capsys):
    """privatize's store loop (reading the local accumulator) as its own block launch: every
    read of s_acc0 there sees fresh memory. Refuted by a run; `vsched run` replays it."""
    rep, goals = _dataflow(LOCAL_LOAD)
    assert rep.verdict == "illegal"
    (g,) = [o for o in goals if o.op_index == 3]
    assert g.status == "refuted" and g.engine == "run"
    assert "refuted" not in [o.status for o in goals if o.op_index < 3]
    sizes = ",".join(f"{k}={v}" for k, v in g.counterexample.sizes.items())
    path = tmp_path / "red.vs"
    path.write_text(LOCAL_LOAD)
    assert main(["run", str(path), "--target", "interp", "--size", sizes]) == 1
    assert "DIFFERENT" in capsys.readouterr().out


def test_a_kernel_without_scratch_tensors_is_not_walked_for_launch_reads(monkeypatch):
    """No shared or local tensor: no top-level statement is walked for the tensors it writes
    and reads (the walk found nothing to cross; once per op of every kernel)."""
    from verified_sched.verify.generic import launch_scope

    walked = []
    real = launch_scope._accesses
    monkeypatch.setattr(launch_scope, "_accesses", lambda p, s: walked.append(s) or real(p, s))
    program = parse_text("params N where N >= 1\ntensor x[N] f32\ntensor y[N] f32\n"
                         "kernel k {\n  for i in 0 .. N : block.x {\n    y[i] = x[i]\n  }\n"
                         "  for i in 0 .. N {\n    x[i] = y[i] * 2\n  }\n}\n")
    assert launch_scope.crossing(program, "k") == [] and walked == []
    # with a shared tensor the statements are walked as before
    shared = parse_text(TWO_LAUNCHES.replace("SECOND", "t[0] = x[b]"))
    assert launch_scope.crossing(shared, next(iter(shared.kernels)).name) and walked
