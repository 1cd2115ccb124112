"""One fuzz example, checked: a legal corpus case runs equal (no finding), an illegal one's
counterexamples replay, a GPU case runs in the emulator with the race detector; findings with
the same signature are reported once."""
from __future__ import annotations

from pathlib import Path

from verified_sched.dsl import parse_file
from verified_sched.fuzz.campaign import BatchResult, Config
from verified_sched.fuzz.check import check_example
from verified_sched.fuzz.driver import Campaign
from verified_sched.fuzz.reproducer import signature
from verified_sched.fuzz.stats import Stats
from verified_sched.analysis.sizes import example_sizes


def _check(path: Path):
    program = parse_file(path)
    kernel = program.schedules[0].kernel
    return check_example(program, kernel, example_sizes(program, 2))


def test_legal_case_runs_equal(cases_dir):
    out = _check(cases_dir / "matmul_tiled.vs")
    assert out.verdict == "legal" and out.finding is None
    assert len(out.sizes_run) == 2 and out.times["verify"] > 0 and out.times["run"] > 0


def test_illegal_case_counterexample_replays(cases_dir):
    out = _check(cases_dir / "stencil_interchange_illegal.vs")
    assert out.verdict == "illegal" and out.finding is None
    assert ("dependence", "replayed") in out.replays


def test_gpu_case_runs_in_emulator(cases_dir):
    out = _check(cases_dir / "stage_shared_matmul.vs")
    assert out.verdict == "legal" and out.finding is None
    assert "stage shared" in out.options


def test_same_signature_reported_once(tmp_path):
    rec = {"kind": "counterexample", "message": "m", "name": "a.vs", "text": "params N\n", "lines": 1,
           "signature": signature("counterexample", ["split", "privatize", "interchange"], "dependence",
                                  "interchange")}
    other = dict(rec, name="b.vs", signature=signature("counterexample", ["privatize", "interchange"],
                                                        "dependence", "interchange"))
    assert rec["signature"] == other["signature"]  # a loop-only op more is the same finding
    camp = Campaign(Config(), tmp_path)
    camp.absorb(BatchResult(Stats(), [rec]))
    camp.absorb(BatchResult(Stats(), [other]))
    assert len(camp.findings) == 1 and camp.duplicates == 1
    assert (tmp_path / "a.vs").exists() and not (tmp_path / "b.vs").exists()
