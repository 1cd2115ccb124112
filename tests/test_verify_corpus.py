"""Every corpus case reaches its stated verdict, with zero unknowns, and every refutation of
a listed kind carries a counterexample (precondition failures excepted, as in the corpus
README, tests/cases/README.md)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from verified_sched.dsl import parse_file
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json

# The whole verdict corpus (tests/cases, a copy of the public corpus), every file.
CASES = sorted(p.stem for p in (Path(__file__).resolve().parent / "cases").glob("*.vs"))


def test_the_whole_corpus_is_collected():
    assert len(CASES) >= 34


def expected(path):
    m = re.search(r"#\s*expect:\s*(legal|illegal)\s*(\S*)", path.read_text())
    return m.group(1), [k for k in m.group(2).split("|") if k]


@pytest.mark.parametrize("name", CASES)
def test_corpus_verdict(cases_dir, name):
    path = cases_dir / f"{name}.vs"
    verdict, kinds = expected(path)
    rep = file_report_json(verify_program(parse_file(path), filename=str(path)), str(path))
    obls = rep["obligations"]
    assert not [o for o in obls if o["status"] == "unknown"], [o["message"] for o in obls if o["status"] == "unknown"]
    assert rep["verdict"] == verdict, [o for o in obls if o["status"] == "refuted"]
    if verdict == "illegal":
        hit = [o for o in obls if o["status"] == "refuted" and o["kind"] in kinds]
        assert hit and any(o["kind"] == "precondition" or (o["counterexample"] and "params" in o["counterexample"])
                           for o in hit)


def test_reassociation_is_reported(cases_dir):
    rep = file_report_json(verify_program(parse_file(cases_dir / "sum_interchange.vs")), "f")
    assert rep["verdict"] == "legal" and rep["reassociates"] is True
    rep = file_report_json(verify_program(parse_file(cases_dir / "unroll_materialize.vs")), "f")
    assert rep["verdict"] == "legal" and rep["reassociates"] is False


def test_profile_override(cases_dir):
    p = parse_file(cases_dir / "sum_interchange.vs")
    rep = file_report_json(verify_program(p, profile="reproducible"), "f")
    assert rep["verdict"] == "illegal"
    assert any(o["kind"] == "reassociation" and o["status"] == "refuted" for o in rep["obligations"])
    p = parse_file(cases_dir / "sum_interchange_reproducible.vs")
    assert file_report_json(verify_program(p, profile="default"), "f")["verdict"] == "legal"
