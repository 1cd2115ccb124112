"""The proof cache (verified_sched/gate/cache.py) and `vsched cache info|clear`: a re-run on
an unchanged tree proves nothing again; the key follows the normalized program and the
options; undecided results are not stored; the folder is private; writes are atomic."""
from __future__ import annotations

import json
import os
import re
import shutil
import stat

import pytest

from verified_sched.verify import driver as verify
from verified_sched.cli import main
from verified_sched.gate import cache

from gate_support import UNKNOWN


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(root))
    return root


@pytest.fixture
def calls(monkeypatch):
    """How many times the verifier ran (each call proves one file)."""
    seen = []
    real = verify.verify_program

    def counting(program, *a, **kw):
        seen.append(kw.get("filename"))
        return real(program, *a, **kw)

    monkeypatch.setattr(verify, "verify_program", counting)
    return seen


@pytest.fixture
def tree(tmp_path, cases_dir):
    root = tmp_path / "tree"
    root.mkdir()
    for name in ("stencil_interchange_illegal", "matmul_tiled", "barrier_divergent"):
        shutil.copy(cases_dir / f"{name}.vs", root / f"{name}.vs")
    return root


def run(capsys, *argv) -> tuple:
    rc = main(["verify", "-j", "1", *argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_second_run_on_an_unchanged_tree_proves_nothing(cache_root, calls, tree, capsys):
    rc1, out1, err1 = run(capsys, str(tree))
    assert rc1 == 1 and len(calls) == 3 and "(0 from the proof cache)" in err1
    rc2, out2, err2 = run(capsys, str(tree))
    assert len(calls) == 3, "the warm run called the verifier"
    assert rc2 == rc1 and out2 == out1 and "(3 from the proof cache)" in err2
    rc3, out3, _ = run(capsys, "--format", "json", str(tree))
    assert len(calls) == 3 and rc3 == 1
    assert [json.loads(x)["verdict"] for x in out3.splitlines()] == ["illegal", "legal", "illegal"]


def test_parallel_runs_share_the_cache(cache_root, tree, capsys):
    rc1, out1, _ = run(capsys, "-j", "2", str(tree))
    assert len(list((cache_root / "proofs").glob("*.json"))) == 3
    rc2, out2, err2 = run(capsys, "-j", "2", str(tree))
    assert (rc2, out2) == (rc1, out1) and "(3 from the proof cache)" in err2


def test_no_cache_proves_again_and_stores_nothing(cache_root, calls, tree, capsys):
    run(capsys, "--no-cache", str(tree))
    run(capsys, "--no-cache", str(tree))
    assert len(calls) == 6 and not (cache_root / "proofs").exists()


def test_key_follows_the_normalized_program_and_the_options(cache_root, calls, tree, capsys):
    f = tree / "matmul_tiled.vs"
    run(capsys, str(f))
    assert len(calls) == 1
    f.write_text("# a new comment\n\n" + f.read_text().replace("\n", "   \n"))  # layout only
    run(capsys, str(f))
    assert len(calls) == 1
    for opts in (["--timeout", "5"], ["--shared-limit", "1024"], ["--profile", "reproducible"]):
        run(capsys, *opts, str(f))
    assert len(calls) == 4
    f.write_text(f.read_text().replace("split i by 32", "split i by 16"))  # another program
    run(capsys, str(f))
    assert len(calls) == 5


def test_an_edited_verifier_does_not_reuse_old_proofs(cache_root, calls, tree, capsys, monkeypatch):
    f = str(tree / "matmul_tiled.vs")
    run(capsys, f)
    monkeypatch.setattr(cache, "code_fingerprint", lambda: "another verifier")
    run(capsys, f)
    assert len(calls) == 2


def test_unknown_results_are_not_cached(cache_root, calls, tmp_path, capsys):
    f = tmp_path / "u.vs"
    f.write_text(UNKNOWN)
    assert run(capsys, str(f))[0] == 3
    assert run(capsys, str(f))[0] == 3
    assert len(calls) == 2 and not list((cache_root / "proofs").glob("*.json"))


def test_cached_messages_and_locations_follow_the_file_as_it_is_now(cache_root, calls, tree, capsys):
    """Regression: a cache hit for a file whose lines moved (comments added above) must show
    the file's own positions, in messages (the barrier's position) and in annotations."""
    f = tree / "barrier_divergent.vs"
    _, out1, _ = run(capsys, "--format", "github", str(f))
    assert f"barrier at {f}:14:9" in out1 and f"file={f},line=9,col=1" in out1
    f.write_text("# moved\n# down\n" + f.read_text())
    _, out2, _ = run(capsys, "--format", "github", str(f))
    assert len(calls) == 1
    assert f"barrier at {f}:16:9" in out2 and f"file={f},line=11,col=1" in out2 and ":14:9" not in out2
    copy = tree / "copy.vs"
    shutil.copy(f, copy)
    _, out3, _ = run(capsys, "--format", "github", str(copy))
    assert len(calls) == 1 and f"barrier at {copy}:16:9" in out3 and str(f) not in out3


def test_cache_folder_is_private_and_writes_leave_no_temporaries(cache_root, tree, capsys):
    run(capsys, str(tree))
    proofs = cache_root / "proofs"
    assert stat.S_IMODE(proofs.stat().st_mode) == 0o700
    assert stat.S_IMODE(cache_root.stat().st_mode) == 0o700
    entries = list(proofs.iterdir())
    assert len(entries) == 3 and all(e.suffix == ".json" and not e.name.startswith(".") for e in entries)
    assert all(stat.S_IMODE(e.stat().st_mode) & 0o077 == 0 for e in entries)


def test_an_existing_open_folder_is_made_private(cache_root, tree, capsys):
    (cache_root / "proofs").mkdir(parents=True, mode=0o755)
    os.chmod(cache_root / "proofs", 0o755)
    run(capsys, str(tree / "matmul_tiled.vs"))
    assert stat.S_IMODE((cache_root / "proofs").stat().st_mode) == 0o700


def test_damaged_entries_read_as_misses(cache_root, calls, tree, capsys):
    f = str(tree / "matmul_tiled.vs")
    _, out1, _ = run(capsys, f)
    (entry,) = (cache_root / "proofs").glob("*.json")
    entry.write_text('{"format": 1, "key": "')
    _, out2, _ = run(capsys, f)
    assert len(calls) == 2 and out2.endswith(f"{f}: legal\n")
    data = json.loads(entry.read_text())
    data["key"] = "someone else's"
    entry.write_text(json.dumps(data))
    run(capsys, f)
    assert len(calls) == 3


def test_unwritable_cache_only_means_nothing_is_stored(tmp_path, monkeypatch, tree, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(blocker / "cache"))  # below a plain file
    rc, out, _ = run(capsys, str(tree / "matmul_tiled.vs"))
    assert rc == 0 and out.endswith("legal\n")


def test_cache_info_and_clear(cache_root, tree, capsys):
    run(capsys, str(tree))
    (cache_root / "c").mkdir()
    (cache_root / "c" / "abc.so").write_bytes(b"x" * 10)
    (cache_root / "c" / "abc.c").write_bytes(b"y" * 5)
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"compile cache: {cache_root / 'c'}: 1 entries, 15 bytes" in out
    m = re.search(rf"proof cache: {re.escape(str(cache_root / 'proofs'))}: 3 entries, (\d+) bytes", out)
    assert m and int(m.group(1)) == sum(p.stat().st_size for p in (cache_root / "proofs").iterdir())
    assert main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert "compile cache: removed 1 entries (15 bytes)" in out and "proof cache: removed 3 entries" in out
    assert not (cache_root / "c").exists() and not (cache_root / "proofs").exists()
    assert main(["cache", "info"]) == 0
    assert "0 entries, 0 bytes" in capsys.readouterr().out
    assert main(["cache", "wipe"]) == 2


def test_concurrent_writers_never_expose_a_partial_entry(cache_root):
    """Many writers rewriting one key while a reader reads it: once stored, every read finds
    the whole entry (a non-atomic write would expose empty or half-written files). A fixed
    count of writes, not a wall-clock second: the same work on a loaded machine, and the
    reader reads until the last writer is done (and once more after)."""
    import threading

    store = cache.ProofCache()
    reports = [{"kernel": "k", "obligations": [{"status": "proved", "message": "x" * 20000}]}]
    stop = threading.Event()
    seen, stored = [], []

    def writer():
        for _ in range(100):
            stored.append(store.put("k" * 64, "legal", reports, 0.5))

    def reader():
        while True:
            done = stop.is_set()
            entry = store.get("k" * 64)
            seen.append(entry is not None and entry["reports"] == reports)
            if done:
                return

    assert store.put("k" * 64, "legal", reports, 0.5)
    writers = [threading.Thread(target=writer) for _ in range(4)]
    readers = [threading.Thread(target=reader)]
    for t in writers + readers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert len(stored) == 400 and all(stored)
    assert len(seen) >= 1 and all(seen)
    assert [p.name for p in (cache_root / "proofs").iterdir()] == ["k" * 64 + ".json"]
