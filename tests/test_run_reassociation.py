"""`vsched run` picks bitwise or tolerance from `reassociation.schedule_reassociates`, not
from a whole verification: on every corpus and example file it agrees with the verifier's
`reassociates` flag (recorded in the goldens), under the file's profile and under
`reproducible`, and `run` no longer calls the verifier for a schedule."""
from __future__ import annotations

import json

import pytest

from support.goldens import corpus, golden_paths
from verified_sched.dsl import parse_file
from verified_sched.verify.reassociation import schedule_reassociates
from verified_sched.verify.driver import verify_kernel

FILES = [(s, p) for s, p in corpus() if "\nschedule " in "\n" + p.read_text() and "\nclaim " not in p.read_text()]


@pytest.mark.parametrize("source,path", FILES, ids=[f"{s.split('/')[-1]}/{p.stem}" for s, p in FILES])
def test_cheap_query_matches_the_verifier(source, path):
    program = parse_file(path)
    profile = program.profile or "default"
    golden = json.loads(golden_paths(source, path)[0].read_text())["report"]["reassociates"]
    cheap = [schedule_reassociates(program, s.kernel, profile) for s in program.schedules]
    assert any(cheap) == golden


def test_the_query_is_not_vacuous():
    flags = [json.loads(golden_paths(s, p)[0].read_text())["report"]["reassociates"] for s, p in FILES]
    assert True in flags and False in flags


@pytest.mark.parametrize("name", ["sum_interchange", "split_reduction", "tensorize_matmul", "privatize_matmul"])
def test_cheap_query_matches_per_kernel_and_profile(cases_dir, name):
    program = parse_file(cases_dir / f"{name}.vs")
    for profile in ("default", "reproducible"):
        for s in program.schedules:
            full = verify_kernel(program, s.kernel, profile, 60.0).reassociates
            assert schedule_reassociates(program, s.kernel, profile) == full, (s.kernel, profile)


def test_run_does_not_call_the_verifier_for_a_schedule(cases_dir, monkeypatch, capsys):
    import verified_sched.verify.driver as verify
    from verified_sched.cli import main

    def boom(*a, **k):
        raise AssertionError("vsched run ran the whole verifier")

    monkeypatch.setattr(verify, "verify_kernel", boom)
    assert main(["run", str(cases_dir / "sum_interchange.vs"), "--size", "N=5,K1=3,K2=4"]) == 0
    assert "(rtol=0.0001)" in capsys.readouterr().out  # compared within tolerance: the flag was found
