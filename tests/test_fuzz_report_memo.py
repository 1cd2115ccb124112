"""A fuzz worker verifies each program once (verified_sched/fuzz/check.py `_REPORTS`):
hypothesis's mutator draws the same program again (seed 2026: one split_reduction program
that runs into the 5 s deadline, four times in 240 examples), and each draw used to be
verified again in full. The checks against runs still run at every draw's own sizes, and the
outcome is the one a fresh verification gives. Verifications are counted, never timed."""
from __future__ import annotations

import dataclasses

import pytest

from verified_sched.analysis.sizes import example_sizes
from verified_sched.dsl import parse_file
from verified_sched.fuzz import check

CASES = ["stencil_interchange_illegal.vs", "rowsum_parallel_race.vs", "privatize_matmul.vs",
         "matmul_round_up_oob.vs"]


def _summary(out) -> tuple:
    f = out.finding
    return (out.verdict, out.unknown_kinds, out.refuted_kinds, out.replays, out.sizes_run, out.vacuous,
            f and (f.kind, f.message))


@pytest.mark.parametrize("case", CASES)
def test_a_program_drawn_again_is_verified_once_with_the_same_outcome(case, cases_dir, monkeypatch):
    monkeypatch.setattr(check, "_REPORTS", {})
    monkeypatch.setattr(check, "REPORT_STATS", {"verified": 0, "known": 0})
    calls = []
    real = check.verify_program
    monkeypatch.setattr(check, "verify_program", lambda *a, **k: calls.append(1) or real(*a, **k))
    program = parse_file(cases_dir / case)
    kernel = program.schedules[0].kernel
    sizes = example_sizes(program, 2)
    first = _summary(check.check_example(program, kernel, sizes))
    again = _summary(check.check_example(program, kernel, sizes))
    assert len(calls) == 1 and check.REPORT_STATS == {"verified": 1, "known": 1}
    assert again == first
    # an equal program built afresh (another draw) is the same input: known
    copy = dataclasses.replace(program, kernels=tuple(dataclasses.replace(k) for k in program.kernels))
    assert copy == program and copy is not program
    assert _summary(check.check_example(copy, kernel, sizes)) == first and len(calls) == 1
    # another timeout is another question
    check.check_example(program, kernel, sizes, timeout=7.0)
    assert len(calls) == 2


def test_a_different_program_is_verified(cases_dir, monkeypatch):
    monkeypatch.setattr(check, "_REPORTS", {})
    calls = []
    real = check.verify_program
    monkeypatch.setattr(check, "verify_program", lambda *a, **k: calls.append(1) or real(*a, **k))
    a = parse_file(cases_dir / "stencil_interchange_illegal.vs")
    b = parse_file(cases_dir / "rowsum_parallel_race.vs")
    for p in (a, b, a, b):
        check.check_example(p, p.schedules[0].kernel, example_sizes(p, 2))
    assert len(calls) == 2


def test_a_crash_of_the_verifier_is_not_kept(cases_dir, monkeypatch):
    monkeypatch.setattr(check, "_REPORTS", {})
    program = parse_file(cases_dir / "stencil_interchange_illegal.vs")
    kernel = program.schedules[0].kernel

    def crash(*a, **k):
        raise RuntimeError("planted")
    monkeypatch.setattr(check, "verify_program", crash)
    out = check.check_example(program, kernel, example_sizes(program, 2))
    assert out.verdict == "error" and out.finding.kind == "crash"
    assert check._REPORTS == {}  # noqa: SLF001
    monkeypatch.undo()
    monkeypatch.setattr(check, "_REPORTS", {})
    assert check.check_example(program, kernel, example_sizes(program, 2)).verdict == "illegal"
