"""`vsched verify DIR...` and `-j N` (verified_sched/gate/runner.py, parallel.py): directory
recursion, input order, parallel workers giving the same reports as one, the summary, and
the exit code of a run (internal 4 > input 2 > illegal 1 > unknown 3 > legal 0)."""
from __future__ import annotations

import re
import shutil

import pytest

from verified_sched.cli import main
from verified_sched.gate import parallel
from verified_sched.report.results import FileResult, worst_exit

from gate_support import UNKNOWN

TIMES = re.compile(r"\d+\.\d+s")


@pytest.fixture
def tree(tmp_path, cases_dir):
    """A folder with .vs files at two depths (and a file that is not .vs)."""
    root = tmp_path / "tree"
    (root / "sub" / "deeper").mkdir(parents=True)
    shutil.copy(cases_dir / "stencil_interchange_illegal.vs", root / "b_illegal.vs")
    shutil.copy(cases_dir / "matmul_tiled.vs", root / "sub" / "a_legal.vs")
    shutil.copy(cases_dir / "sum_interchange.vs", root / "sub" / "deeper" / "c.vs")
    (root / "notes.txt").write_text("not a schedule")
    return root


def verdict_lines(out: str) -> list:
    return [line for line in out.splitlines() if re.match(r"\S+\.vs: (legal|illegal|unknown)$", line)]


def test_directory_recurses_into_vs_files_sorted(tree, capsys):
    assert main(["verify", "--no-cache", "-j", "1", str(tree)]) == 1
    cap = capsys.readouterr()
    assert verdict_lines(cap.out) == [f"{tree}/b_illegal.vs: illegal", f"{tree}/sub/a_legal.vs: legal",
                                      f"{tree}/sub/deeper/c.vs: legal"]
    assert "vsched: 3 files in" in cap.err
    assert "2 legal, 1 illegal, 0 unknown, 0 errors" in cap.err and "slowest:" in cap.err


def test_files_and_directories_mixed_keep_input_order(tree, cases_dir, capsys):
    first = str(cases_dir / "unroll_materialize.vs")
    assert main(["verify", "--no-cache", "-j", "2", first, str(tree / "sub"), str(tree / "sub" / "a_legal.vs")]) == 0
    assert [line.split(": ")[0] for line in verdict_lines(capsys.readouterr().out)] == [
        first, f"{tree}/sub/a_legal.vs", f"{tree}/sub/deeper/c.vs"]  # the duplicate verified once


def test_parallel_reports_equal_the_serial_ones(tree, capsys):
    assert main(["verify", "--no-cache", "-j", "1", str(tree)]) == 1
    serial = TIMES.sub("T", capsys.readouterr().out)
    assert main(["verify", "--no-cache", "-j", "3", str(tree)]) == 1
    assert TIMES.sub("T", capsys.readouterr().out) == serial
    assert serial.count("RAW dependence") == 1


def test_parallel_workers_are_used_and_keep_input_order(tree, monkeypatch):
    """-j 2 forks one child that shares the jobs with this process (the costliest first; in a
    process with threads, a fork server's pool instead) and still yields in input order, with
    the payloads the in-process path gives."""
    from verified_sched.gate import workshare

    calls = []
    real = workshare.run_forked

    def recording(order, fn, children, participate, *a, **kw):
        calls.append((list(order), children, participate))
        return real(order, fn, children, participate, *a, **kw)

    monkeypatch.setattr(workshare, "run_forked", recording)
    jobs = [(str(p), p.read_text()) for p in sorted(tree.rglob("*.vs"))]
    forks = parallel.start_method() == "fork"  # not under pytest-xdist, whose workers have threads
    two = list(parallel.verify_many(jobs, None, 10.0, 48 * 1024, 2, costs=[1.0, 3.0, 2.0]))
    assert calls == ([([1, 2, 0], 1, True)] if forks else [])
    one = list(parallel.verify_many(jobs, None, 10.0, 48 * 1024, 1))
    assert len(calls) == forks  # no child for one worker
    assert [i for i, _ in two] == [i for i, _ in one] == [0, 1, 2]
    assert [p["status"] for _, p in two] == [p["status"] for _, p in one] == ["illegal", "legal", "legal"]
    assert strip_seconds(two) == strip_seconds(one)


def strip_seconds(payloads):
    return [[[{**o, "seconds": 0} for o in r["obligations"]] for r in p["reports"]] for _, p in payloads]


def test_default_jobs_is_the_core_count():
    import os

    assert parallel.default_workers() == len(os.sched_getaffinity(0))


def test_start_method_is_fork_only_without_threads():
    import threading

    ev = threading.Event()
    t = threading.Thread(target=ev.wait)
    t.start()
    try:
        assert parallel.start_method() in ("forkserver", "spawn")
    finally:
        ev.set()
        t.join()


def test_empty_directory_and_missing_file_are_input_errors(tmp_path, cases_dir, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    ok = str(cases_dir / "matmul_tiled.vs")
    assert main(["verify", "--no-cache", "--format", "github", ok, str(empty), ok]) == 2
    cap = capsys.readouterr()
    assert f"{empty}: no .vs files" in cap.err
    assert cap.out.splitlines() == [f"::error file={empty},title=vsched input error::vsched: error: {empty}: "
                                    "no .vs files in this directory"]  # the legal file has no annotation
    assert main(["verify", "--no-cache", ok, str(empty)]) == 2
    assert verdict_lines(capsys.readouterr().out) == [f"{ok}: legal"]
    assert main(["verify", "--no-cache", str(tmp_path / "nope.vs")]) == 2
    assert re.match(rf"{re.escape(str(tmp_path / 'nope.vs'))}:1:1: cannot read", capsys.readouterr().err)


def test_unknown_exits_3(tmp_path, capsys):
    f = tmp_path / "u.vs"
    f.write_text(UNKNOWN)
    assert main(["verify", "--no-cache", str(f)]) == 3
    assert capsys.readouterr().out.rstrip().endswith(f"{f}: unknown")


def test_internal_error_exits_4_and_the_other_files_still_run(cases_dir, monkeypatch, capsys):
    from verified_sched.verify import driver as verify

    real = verify.verify_program

    def flaky(program, *a, **kw):
        if any(k.name == "skewed" for k in program.kernels):
            raise RuntimeError("boom")
        return real(program, *a, **kw)

    monkeypatch.setattr(verify, "verify_program", flaky)
    bad, good = str(cases_dir / "stencil_interchange_illegal.vs"), str(cases_dir / "matmul_tiled.vs")
    assert main(["verify", "--no-cache", "-j", "1", bad, good]) == 4
    cap = capsys.readouterr()
    assert f"{bad}: internal error: RuntimeError: boom" in cap.err and "Traceback" not in cap.err
    assert verdict_lines(cap.out) == [f"{good}: legal"]


@pytest.mark.parametrize("statuses,code", [
    ([], 0), (["legal"], 0), (["legal", "unknown"], 3), (["unknown", "illegal"], 1),
    (["illegal", "input", "unknown"], 2), (["input", "internal", "legal"], 4), (["illegal", "legal"], 1),
])
def test_worst_exit_code(statuses, code):
    assert worst_exit([FileResult("f.vs", s) for s in statuses]) == code


def test_bad_jobs_value_is_a_usage_error(cases_dir, capsys):
    assert main(["verify", "-j", "0", str(cases_dir / "matmul_tiled.vs")]) == 2
    assert "positive integer" in capsys.readouterr().err


def test_html_without_the_report_module_says_not_available(cases_dir, tmp_path, monkeypatch, capsys):
    from verified_sched.gate import runner

    monkeypatch.setattr(runner, "_html_renderer", lambda: None)
    assert main(["verify", "--html", str(tmp_path / "r.html"), str(cases_dir / "matmul_tiled.vs")]) == 2
    assert "not available" in capsys.readouterr().err and not (tmp_path / "r.html").exists()


def test_html_calls_the_renderer_with_path_text_and_report(cases_dir, tmp_path, monkeypatch, capsys):
    from verified_sched.gate import runner

    got = []
    monkeypatch.setattr(runner, "_html_renderer", lambda: lambda results: got.extend(results) or "<html></html>")
    path = str(cases_dir / "stencil_interchange_illegal.vs")
    assert main(["verify", "--no-cache", "--html", str(tmp_path / "r.html"), path]) == 1
    (one,) = got
    assert one[0] == path and "interchange i, j" in one[1] and one[2].verdict == "illegal"  # a FileReport
    assert (tmp_path / "r.html").read_text() == "<html></html>"


def test_pre_commit_hook_definition(repo_root):
    """.pre-commit-hooks.yaml: one hook, vsched-verify, running `vsched verify` on .vs files
    (read as the flat `key: value` mapping of its single list item)."""
    lines = [line for line in (repo_root / ".pre-commit-hooks.yaml").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert lines[0].startswith("- id: ") and sum(line.startswith("- ") for line in lines) == 1
    hook = dict(line.lstrip("- ").split(": ", 1) for line in lines)
    assert hook["id"] == "vsched-verify" and hook["entry"] == "vsched verify"
    assert hook["language"] == "python" and hook["files"] == r"\.vs$"
    assert re.search(hook["files"], "kernels/matmul.vs") and not re.search(hook["files"], "a.vs.txt")


def test_reports_go_to_redirected_stdout_while_progress_shows_on_a_terminal(cases_dir, tmp_path):
    """Regression: with stderr on a terminal, the progress display must not take over stdout
    (rich's default redirect sent the reports of `vsched verify ... > file` to the terminal)."""
    import os
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    files = [str(cases_dir / "matmul_tiled.vs"), str(cases_dir / "stencil_interchange_illegal.vs")]
    env = {**os.environ, "VSCHED_CACHE_DIR": str(tmp_path / "cache")}
    try:
        for jobs in ("1", "2"):
            proc = subprocess.run([sys.executable, "-m", "verified_sched", "verify", "-j", jobs, *files],
                                  stdout=subprocess.PIPE, stderr=slave, text=True, env=env, timeout=300)
            assert proc.returncode == 1
            assert verdict_lines(proc.stdout) == [f"{files[0]}: legal", f"{files[1]}: illegal"], proc.stdout
            assert "RAW dependence" in proc.stdout
            terminal = b""
            while True:
                import select

                if not select.select([master], [], [], 0.2)[0]:
                    break
                terminal += os.read(master, 65536)
            assert b"vsched: 2 files in" in terminal and b": illegal\r\n" not in terminal
    finally:
        os.close(master)
        os.close(slave)
