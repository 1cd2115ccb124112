"""Issue 9 item 6: code inside a block loop but outside every thread loop runs once, on thread 0
of the block, in the race model as in the interpreter, C, CUDA and the emulator.

Regressions (refuted before): `partition=serialize_edges` on a thread loop (the tail segment is
serial, so thread 0 runs it) and a staged kernel whose compute sits outside the thread loop of
its cooperative load. Real races stay refuted, and their counterexample replays under the
emulator's race detector.
"""
from __future__ import annotations

import numpy as np
import pytest

from codegen.emulate import RaceError, load_emulated
from verified_sched.oracle.compare import random_inputs
from verified_sched.verify.generic.race import race as race_check
from polyhedral.model import KernelModel
from support.phases_brute import simulate
from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.ops import apply_op
from verified_sched.verify.driver import verify_program

from test_stage_support import rowsum, scheduled

SERIALIZE = """
params B, N where B >= 1, N >= 1, N <= 1024
tensor x[B, N] f32
tensor y[B, N] f32
kernel scale {
  for b in 0 .. B : block.x {
    for i in 0 .. N : thread.x {
      y[b, i] = 2.0 * x[b, i]
    }
  }
}
schedule scale {
  split i by 8 -> io, ii partition=serialize_edges
}
"""

RACY = """
params B, N where B >= 1, N >= 1, N <= 1024
tensor x[B, N] f32
tensor y[B, N] f32
kernel racy {
  for b in 0 .. B : block.x {
    y[b, N - 1] = x[b, 0]
    for i in 0 .. N : thread.x {
      y[b, i] = x[b, i]
    }
  }
}
"""

LEADER_SAFE = RACY.replace("racy", "safe").replace("y[b, N - 1] = x[b, 0]", "y[b, 0] = x[b, 0]")


def _verdict(text: str):
    reports = verify_program(parse_text(text, "k.vs"), timeout=60.0)
    return reports


def test_serialize_edges_on_a_thread_loop_is_legal_and_runs_race_free(tmp_path, capsys):
    (report,) = _verdict(SERIALIZE)
    assert report.verdict == "legal", [o.to_json() for o in report.obligations if o.status != "proved"]
    path = tmp_path / "ser.vs"
    path.write_text(SERIALIZE)
    assert main(["run", str(path), "--target", "emulate", "--races", "--size", "B=2,N=13"]) == 0
    assert "schedule of scale: ok" in capsys.readouterr().out


def test_staged_compute_outside_the_thread_loop_is_legal_and_runs_race_free():
    program = rowsum("cooperative=8")
    (report,) = verify_program(program, timeout=60.0)
    assert report.verdict == "legal", [o.to_json() for o in report.obligations if o.status != "proved"]
    after = scheduled(program, "rowsum")
    sizes = {"T": 2, "K": 3}
    arrays = random_inputs(after, ["rowsum"], sizes, seed=2)
    load_emulated(after, seed=5, detect_races=True).run("rowsum", sizes, arrays)  # no RaceError


def test_leader_write_and_thread_zero_write_do_not_race():
    """Thread 0 writes y[b, 0] outside the thread loop and again inside it: one thread, in
    program order; the brute-force semantics agrees."""
    program = parse_text(LEADER_SAFE, "safe.vs")
    r = race_check(KernelModel(program, "safe"))
    assert r.status == "proved", r.message
    for n in (1, 2, 5):
        assert not simulate(program, "safe", {"B": 2, "N": n}).race


def test_leader_write_racing_another_thread_is_refuted_and_replays():
    program = parse_text(RACY, "racy.vs")
    r = race_check(KernelModel(program, "racy"))
    assert r.status == "refuted", r.message
    cex = r.counterexample.to_json()
    threads = [t["thread"] for t in cex["threads"]]
    assert {"thread.x": 0} in threads  # the leader is thread 0, the other a real thread
    assert simulate(program, "racy", cex["params"]).race
    arrays = random_inputs(program, ["racy"], cex["params"], seed=0)
    with pytest.raises(RaceError, match=r"race on global y\["):
        load_emulated(program, seed=0, detect_races=True).run("racy", dict(cex["params"]), arrays)
