"""Every corpus and example file verifies, prints and emits exactly as its golden records
(tests/goldens/, recorded by `python tests/support/goldens.py --update`): the guard of the
behaviour-preserving refactors (issue 11). An intended change of a verdict, a message or the
emitted C re-records the goldens in the same commit."""
from __future__ import annotations

import json

import pytest

from support.goldens import GOLDENS, ROOT, corpus, differences, golden_paths

FILES = corpus()


def test_every_file_has_a_golden():
    assert len(FILES) >= 60
    missing = [str(p) for s, p in FILES if not all(g.exists() for g in golden_paths(s, p))]
    assert not missing
    recorded = {g.relative_to(GOLDENS) for g in GOLDENS.rglob("*.json")}
    assert recorded == {golden_paths(s, p)[0].relative_to(GOLDENS) for s, p in FILES}, "stale goldens"


def test_goldens_hold_real_reports():
    verdicts = {json.loads(golden_paths(s, p)[0].read_text())["verdict"] for s, p in FILES}
    assert verdicts == {"legal", "illegal"}
    j, c = golden_paths("examples", ROOT / "examples" / "matmul.vs")
    assert json.loads(j.read_text())["report"]["obligations"] and "vs_matmul" in c.read_text()


@pytest.mark.parametrize("source,path", FILES, ids=[f"{s.split('/')[-1]}/{p.stem}" for s, p in FILES])
def test_file_matches_its_golden(source, path):
    assert differences(source, path) == []
