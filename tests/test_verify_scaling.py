"""Verification that scales (issue 25 item 4): work is counted, never timed."""
from __future__ import annotations

from polyhedral import memo
from verified_sched.dsl import parse_file
from verified_sched.verify import file_report_json, verify_program


def test_winograd_isl_maps_are_parsed_once_per_text(repo_root, monkeypatch):
    """Winograd's access, box and provenance maps go through the process-wide parse cache:
    verifying the file again parses nothing new, and repeats within one file are hits."""
    monkeypatch.setattr(memo, "_PARSED", {})
    monkeypatch.setattr(memo, "PARSE_STATS", {"hits": 0, "misses": 0})
    program = parse_file(repo_root / "examples" / "winograd_odd.vs")
    assert file_report_json(verify_program(program), "w")["verdict"] == "legal"
    first = dict(memo.PARSE_STATS)
    assert first["misses"] == len(memo._PARSED) and first["hits"] > 0  # noqa: SLF001
    assert file_report_json(verify_program(program), "w")["verdict"] == "legal"
    assert memo.PARSE_STATS["misses"] == first["misses"]
