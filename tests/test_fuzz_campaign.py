"""`vsched fuzz`: a planted backend bug (wrong only when N % 7 == 3) and a planted verifier bug
(the dependence obligation always proved) are found, shrunk to small `.vs` reproducers and
reported with exit 1; usage errors exit 2."""
from __future__ import annotations

import json

import pytest

from polyhedral import checks
from verified_sched.core.obligations import Decided
from verified_sched.cli import main
from verified_sched.dsl import parse_file
from verified_sched.fuzz.reproducer import read_sizes

PLANTED = '''
import numpy as np
from codegen.build import load_c


def factory(program):
    mod = load_c(program)

    def run(kernel, sizes, arrays):
        before = {n: a.copy() for n, a in arrays.items()}
        mod.run(kernel, sizes, arrays)
        if sizes.get("N", 0) % 7 == 3:  # the planted bug: the last row is never written
            for n, a in arrays.items():
                if a.ndim >= 1 and a.shape[0]:
                    a[-1] = before[n][-1]
    return run
'''


def _fuzz(capsys, *args) -> tuple:
    rc = main(["fuzz", "--workers", "1", "--json", "--shrink-seconds", "8", "--batch", "30", *args])
    return rc, json.loads(capsys.readouterr().out)


def test_planted_backend_bug_found_and_shrunk(tmp_path, monkeypatch, capsys):
    (tmp_path / "planted_backend_n7.py").write_text(PLANTED)
    monkeypatch.chdir(tmp_path)
    rc, rep = _fuzz(capsys, "--examples", "16", "--sizes", "3..10", "--backend", "planted_backend_n7:factory", "--shapes",
                    "matmul,reduction", "--ops", "interchange,pad,unroll", "-o", str(tmp_path / "out"), "--seed", "3")
    assert rc == 1
    found = [f for f in rep["findings"] if f["kind"] == "backend"]
    assert found, rep["findings"]
    path = found[0]["reproducer"]
    text = open(path).read()
    assert "# expect: legal" in text and "--backend planted_backend_n7:factory" in text
    program = parse_file(path)  # a valid DSL file
    assert program.schedules and "N" in program.params
    sizes = read_sizes(text)
    assert sizes and all(s["N"] % 7 == 3 for s in sizes)  # the sizes kept show the planted bug
    assert len([ln for ln in text.splitlines() if not ln.startswith("#") and ln.strip()]) <= 20
    assert main(["fuzz", "--reproduce", path, "--backend", "planted_backend_n7:factory"]) == 1


def test_planted_verifier_bug_reported(tmp_path, monkeypatch, capsys):
    real = checks.dependence

    def always_proved(before, after, profile):
        _, red = real(before, after, profile)
        return Decided("proved", "planted: every dependence kept"), red

    monkeypatch.setattr(checks, "dependence", always_proved)
    # seed 1's fifth example is an illegal interchange (called legal, its runs differ: the
    # finding); 8 examples, not 20: the 12 more only cost about 2.5 s of CPU and found nothing
    rc, rep = _fuzz(capsys, "--examples", "8", "--shapes", "stencil", "--ops", "interchange",
                    "-o", str(tmp_path / "out"), "--seed", "1")
    assert rc == 1
    found = [f for f in rep["findings"] if f["kind"] == "verifier"]
    assert found, rep
    text = open(found[0]["reproducer"]).read()
    assert "# expect: illegal" in text and "interchange" in text and "vsched run" in text
    parse_file(found[0]["reproducer"])
    assert rep["examples"] >= 1 and rep["legal"] >= 1


def test_clean_campaign_json_fields(tmp_path, capsys):
    rc, rep = _fuzz(capsys, "--examples", "5", "--shapes", "matmul", "--ops", "split,pad,unroll",
                    "-o", str(tmp_path / "out"))
    for key in ("examples", "legal", "illegal", "unknown", "findings", "seconds", "workers", "per_op", "options",
                "sizes"):
        assert key in rep
    assert rep["examples"] == 5 and rep["legal"] + rep["illegal"] + rep["unknown"] + rep["errors"] == 5
    assert rc == (1 if rep["findings"] else 0)


@pytest.mark.parametrize("args", [["--ops", "bogus"], ["--shapes", "nope"], ["--examples", "0"],
                                  ["--backend", "no_such_module_xyz:f"], ["--backend", "nocolon"],
                                  ["--sizes", "5..2"]])
def test_usage_errors_exit_2(args, capsys):
    assert main(["fuzz", *args]) == 2
