"""The proof cache's source index (gate/cache.ProofCache.parsed, issue 23 item 8): a re-run on
a file whose text and path are unchanged finds its proof key and positions without parsing it
(so without the parser or any op module); anything else (an edited text, another path or
option, a missing or damaged entry) parses as before, and the report is the same either way."""
from __future__ import annotations

import json
import shutil

import pytest

from verified_sched.cli import main
from verified_sched.gate import runner
from verified_sched.verify import driver as verify


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(root))
    return root


@pytest.fixture
def counts(monkeypatch):
    """How many times `vsched verify` parsed a file to key it, and proved one."""
    seen = {"parsed": 0, "proved": 0}
    parse, prove = runner.parse_source, verify.verify_program

    def parsing(*a, **kw):
        seen["parsed"] += 1
        return parse(*a, **kw)

    def proving(*a, **kw):
        seen["proved"] += 1
        return prove(*a, **kw)

    monkeypatch.setattr(runner, "parse_source", parsing)
    monkeypatch.setattr(verify, "verify_program", proving)
    return seen


@pytest.fixture
def vs(tmp_path, repo_root):
    path = tmp_path / "reverse.vs"
    shutil.copy(repo_root / "examples" / "reverse.vs", path)
    return path


def run(capsys, *argv) -> tuple:
    rc = main(["verify", "-j", "1", "--format", "json", *argv])
    cap = capsys.readouterr()
    return rc, json.loads(cap.out), cap.err


def _positions(report) -> list:
    """The report without its timings (a cached report shows the proving run's seconds)."""
    text = json.dumps(report, sort_keys=True)
    return json.loads(text, object_hook=lambda d: {k: v for k, v in d.items() if k != "seconds"})


def test_an_unchanged_file_is_a_hit_without_parsing(cache_root, counts, vs, capsys):
    rc1, out1, _ = run(capsys, str(vs))
    assert rc1 == 0 and counts == {"parsed": 1, "proved": 1}
    assert len(list((cache_root / "sources").glob("*.json"))) == 1
    rc2, out2, _ = run(capsys, str(vs))
    assert rc2 == 0 and counts == {"parsed": 1, "proved": 1}, "re-parsed or re-proved an unchanged file"
    assert _positions(out2) == _positions(out1)


def test_a_comment_edit_is_parsed_and_hits_with_its_own_lines(cache_root, counts, vs, capsys):
    run(capsys, str(vs))
    vs.write_text("# one more line\n" + vs.read_text())
    rc, cached, _ = run(capsys, str(vs))
    assert rc == 0 and counts == {"parsed": 2, "proved": 1}
    rc, fresh, _ = run(capsys, "--no-cache", str(vs))
    assert _positions(cached) == _positions(fresh)
    run(capsys, str(vs))  # now the edited text is known too
    assert counts == {"parsed": 2, "proved": 2}


@pytest.mark.parametrize("change", ["option", "path"])
def test_another_option_or_path_is_parsed_again(cache_root, counts, vs, capsys, change):
    run(capsys, str(vs))
    if change == "option":
        argv = ["--timeout", "7", str(vs)]
    else:
        other = vs.with_name("copy.vs")
        shutil.copy(vs, other)
        argv = [str(other)]
    rc, out, _ = run(capsys, *argv)
    assert rc == 0 and counts["parsed"] == 2
    if change == "path":  # the same program: proved once, shown at its own path
        assert counts["proved"] == 1 and out["file"].endswith("copy.vs")


@pytest.mark.parametrize("damage", ["proof", "index"])
def test_a_missing_proof_or_a_damaged_index_entry_falls_back_to_parsing(cache_root, counts, vs, capsys, damage):
    _, first, _ = run(capsys, str(vs))
    if damage == "proof":
        for entry in (cache_root / "proofs").glob("*.json"):
            entry.unlink()
    else:
        (entry,) = (cache_root / "sources").glob("*.json")
        entry.write_text('{"format": 2, "key": 3}')
    rc, again, _ = run(capsys, str(vs))
    assert rc == 0 and counts == {"parsed": 2, "proved": 2 if damage == "proof" else 1}
    assert _positions(again) == _positions(first)
    run(capsys, str(vs))
    assert counts["parsed"] == 2  # the index is whole again


def test_cache_clear_removes_the_index(cache_root, vs, capsys):
    run(capsys, str(vs))
    assert main(["cache", "info"]) == 0
    assert f"source cache: {cache_root / 'sources'}: 1 entries" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert not (cache_root / "sources").exists()
