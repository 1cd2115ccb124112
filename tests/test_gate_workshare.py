"""`vsched verify -j N`'s work sharing (verified_sched/gate/workshare.py, parallel.py) and the
timing store that orders the jobs (gate/timings.py): every job done exactly once, by the
forked children and this process alike, the costliest first; a child that dies costs only the
job it was in; the corpus verified with -j 2 (this process taking part) gives exactly the
reports of -j 1, also through the fork-server pool used when this process has threads."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from verified_sched.cli import main
from verified_sched.gate import parallel, timings, workshare


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(root))
    return root


def _died(i, why):
    return ("died", i, why)


def test_every_job_once_shared_by_this_process_and_the_children():
    me = os.getpid()

    def fn(i):
        time.sleep(0.01)
        return (i, os.getpid())

    done = list(workshare.run_forked(list(range(40)), fn, 2, True, _died))
    assert sorted(i for i, _ in done) == list(range(40))
    assert all(payload[0] == i for i, payload in done)
    pids = {payload[1] for _, payload in done}
    assert me in pids and len(pids) == 3  # this process and both children took jobs


def test_without_participation_only_children_work_and_in_the_given_order(tmp_path):
    log = tmp_path / "log"

    def fn(i):
        with open(log, "a") as f:  # one child: the jobs start in `order`
            f.write(f"{i}\n")
        return os.getpid()

    order = [3, 0, 4, 1, 2]
    done = dict(workshare.run_forked(order, fn, 1, False, _died))
    assert sorted(done) == [0, 1, 2, 3, 4] and os.getpid() not in done.values()
    assert log.read_text().split() == ["3", "0", "4", "1", "2"]


def test_a_child_that_dies_costs_only_its_job():
    def fn(i):
        if i == 0:
            os._exit(7)  # a crash of the solver's native code, say
        return i * 10

    done = dict(workshare.run_forked(list(range(12)), fn, 2, False, _died))
    assert sorted(done) == list(range(12))
    assert done[0] == ("died", 0, "exit status 7")
    assert all(done[i] == i * 10 for i in range(1, 12))


def test_a_child_killed_by_a_signal_is_named():
    import signal

    def fn(i):
        if i == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        return i

    done = dict(workshare.run_forked([1, 0, 2], fn, 1, False, _died))
    assert done == {1: ("died", 1, "killed by SIGKILL"), 0: 0, 2: 2}


def test_a_crash_only_in_children_with_this_process_taking_part():
    """Whoever takes job 0: a child dies in it (and only it is lost), or this process does it."""
    me = os.getpid()

    def fn(i):
        if i == 0 and os.getpid() != me:
            os._exit(3)
        time.sleep(0.005)
        return i

    done = dict(workshare.run_forked(list(range(20)), fn, 1, True, _died))
    assert sorted(done) == list(range(20))
    assert done[0] in (0, ("died", 0, "exit status 3"))
    assert all(done[i] == i for i in range(1, 20))


def test_chunks_keep_the_order_and_fit_the_pipe():
    order = list(range(100))[::-1]
    chunks = workshare._chunks(order, 4 * 7)  # room for 7 tokens
    assert len(chunks) <= 7 and [i for c in chunks for i in c] == order
    assert workshare._chunks(order, 1 << 16) == [[i] for i in order]


def test_more_jobs_than_tokens_are_all_done(monkeypatch):
    monkeypatch.setattr(workshare, "_widen", lambda fd: 4 * 3)  # 3 tokens for 25 jobs
    done = dict(workshare.run_forked(list(range(25)), lambda i: -i, 2, True, _died))
    assert done == {i: -i for i in range(25)}


def test_timings_round_trip_and_estimates(cache_root):
    assert timings.load() == {}
    assert timings.estimates(["ab", "abcd"]) == pytest.approx([2e-4, 4e-4])  # by length alone
    assert timings.record([("ab", 0.5), ("abcd", 0.25)])
    assert timings.load() == {timings.text_key("ab"): 0.5, timings.text_key("abcd"): 0.25}
    # an unknown text is estimated at the known ones' rate: 0.75 s for 6 characters
    assert timings.estimates(["ab", "abcd", "x" * 12]) == pytest.approx([0.5, 0.25, 1.5])
    (cache_root / "timings" / "durations.json").write_text("[damaged")
    assert timings.load() == {}


def test_timings_keep_the_newest_entries(cache_root, monkeypatch):
    monkeypatch.setattr(timings, "LIMIT", 3)
    timings.record([(f"t{n}", n) for n in range(5)])
    assert list(timings.load().values()) == [2.0, 3.0, 4.0]


def test_verify_records_durations_even_without_the_cache(cache_root, cases_dir, capsys):
    files = [cases_dir / "matmul_tiled.vs", cases_dir / "stencil_interchange_illegal.vs"]
    assert main(["verify", "--no-cache", str(files[0])]) == 0
    assert not cache_root.exists()  # one file: nothing to order, nothing recorded
    assert main(["verify", "--no-cache", "-j", "1", *map(str, files)]) == 1
    capsys.readouterr()
    known = json.loads((cache_root / "timings" / "durations.json").read_text())
    assert set(known) == {timings.text_key(f.read_text()) for f in files}
    assert all(s > 0 for s in known.values())
    assert not (cache_root / "proofs").exists()  # durations only, never a verdict


def _comparable(payloads):
    out = []
    for i, p in payloads:
        p = {k: v for k, v in p.items() if k != "seconds"}
        for r in p.get("reports", []):
            for o in r["obligations"]:
                o["seconds"] = 0
        out.append((i, p))
    return out


_CORPUS_CHECK = """
import json, sys
from pathlib import Path
from verified_sched.gate import parallel
assert parallel.start_method() == "fork"
jobs = [(str(p), p.read_text()) for p in sorted(Path(sys.argv[1]).glob("*.vs")) if p.stem in sys.argv[2:]]
def plain(payloads):
    out = []
    for i, p in payloads:
        p = {k: v for k, v in p.items() if k != "seconds"}
        for r in p.get("reports", []):
            for o in r["obligations"]:
                o["seconds"] = 0
        out.append([i, p])
    return out
one = plain(parallel.verify_many(jobs, None, 600.0, 48 * 1024, 1))  # no timeout under load: no unknown
two = plain(parallel.verify_many(jobs, None, 600.0, 48 * 1024, 2, participate=True))
print(json.dumps({"files": len(jobs), "same": one == two, "statuses": sorted({p["status"] for _, p in one})}))
"""


# corpus files of every flavour (legal, illegal, claims, GPU with barriers, a folder op): the
# whole corpus took minutes twice over (issue 23: the suite must be fast) and proved no more
CORPUS_SAMPLE = ("stencil_interchange_illegal", "matmul_tiled", "sum_interchange", "claim_matmul_orders",
                 "claim_matmul_off_by_one", "privatize_lane_guard", "shared_with_barrier", "split_reduction")


def test_corpus_with_this_process_taking_part_equals_one_worker(cases_dir, repo_root, tmp_path):
    """In a fresh single-threaded process (so the fork path runs even under pytest-xdist)."""
    env = dict(os.environ, VSCHED_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", _CORPUS_CHECK, str(cases_dir), *CORPUS_SAMPLE], cwd=repo_root,
                         env=env, capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.splitlines()[-1])
    assert got == {"files": len(CORPUS_SAMPLE), "same": True, "statuses": ["illegal", "legal"]}


def test_fork_server_pool_when_this_process_has_threads(tree_of_three):
    jobs = [(str(p), p.read_text()) for p in tree_of_three]
    ev = threading.Event()
    t = threading.Thread(target=ev.wait)
    t.start()
    try:
        assert parallel.start_method() != "fork"
        two = list(parallel.verify_many(jobs, None, 10.0, 48 * 1024, 2))
    finally:
        ev.set()
        t.join()
    one = list(parallel.verify_many(jobs, None, 10.0, 48 * 1024, 1))
    assert _comparable(two) == _comparable(one)


@pytest.fixture
def tree_of_three(cases_dir):
    return [cases_dir / n for n in ("stencil_interchange_illegal.vs", "matmul_tiled.vs", "sum_interchange.vs")]


def test_verify_imports_no_kernel_runner_it_does_not_use(cases_dir, repo_root):
    """The exit-code guard imports the runners' error classes only when an error escapes (and,
    with lazy subcommands, verify imports no other command's module: issue 23)."""
    code = ("import sys; from verified_sched.cli import main; "
            f"rc = main(['verify', '--no-cache', {str(cases_dir / 'matmul_tiled.vs')!r}]); "
            "print(rc, sorted(m for m in sys.modules if m.startswith(('verified_sched.mlir.', 'codegen.emulate'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=repo_root, capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[-2] == "0 []"


def test_stopping_early_ends_the_children():
    import multiprocessing

    def fn(i):
        time.sleep(0.05)
        return i

    gen = workshare.run_forked(list(range(50)), fn, 2, True, _died)
    next(gen)
    gen.close()  # the consumer stopped (an interrupt, say): no child is left behind
    assert multiprocessing.active_children() == []


def test_a_lost_job_is_reported_not_dropped(monkeypatch):
    """A worker that dies between taking a job and saying so loses it: reported, never skipped."""
    jobs = [("a.vs", "x"), ("b.vs", "y"), ("c.vs", "z")]
    monkeypatch.setattr(parallel, "_forked", lambda *a: iter([(2, {"status": "legal"}), (0, {"status": "legal"})]))
    monkeypatch.setattr(parallel, "start_method", lambda: "fork")
    got = list(parallel.verify_many(jobs, None, 10.0, 48 * 1024, 2))
    assert [i for i, _ in got] == [0, 1, 2]
    assert got[1][1]["status"] == "internal" and "b.vs: internal error: a verification worker died" in got[1][1]["error"]
    assert got[0][1] == got[2][1] == {"status": "legal"}
