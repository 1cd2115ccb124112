"""Issue 23, item 5: `vsched verify` counts files as they finish, streams each report as soon as
it and every earlier file are done (`--unordered`: as soon as it is done), prints the finished
reports on Ctrl-C, and `-o FILE` is replaced whole or not at all. The worker pool is replaced
by a scripted one (the order in which files finish is the test's), so nothing here depends
on timing."""
from __future__ import annotations

import os

import pytest

from verified_sched.cli import main
from verified_sched.gate import parallel, runner
from verified_sched.report import results

SRC = """params N where N >= 1
tensor a[N] f32
tensor b[N] f32
kernel k{n} {{
  for i in 0 .. N {{
    b[i] += a[i]
  }}
}}
"""


@pytest.fixture
def files(tmp_path):
    paths = []
    for n in range(3):
        p = tmp_path / f"f{n}.vs"
        p.write_text(SRC.format(n=n))
        paths.append(str(p))
    return paths


def scripted(finish_order, interrupt_after=None, log=None):
    """A verify_many whose jobs finish in `finish_order` (indices), raising KeyboardInterrupt
    after `interrupt_after` of them; `log` records what was emitted when each finished."""
    def verify_many(jobs, profile, timeout, shared_limit, workers, started=None, costs=None, ordered=True,
                    **_):
        assert not ordered  # the runner orders the output itself
        if started:
            started()
        for count, i in enumerate(finish_order):
            if interrupt_after is not None and count == interrupt_after:
                raise KeyboardInterrupt
            yield i, results.verify_source(jobs[i][0], jobs[i][1], profile, timeout, shared_limit)
            if log is not None:
                log.append(("finished", i))
    return verify_many


class CountingSpinner:
    steps: list = []

    def __init__(self, total):
        self.total, self.done = total, 0

    def start(self):
        pass

    def show(self):
        pass

    def hide(self):
        pass

    def step(self):
        self.done += 1
        CountingSpinner.steps.append(self.done)


def test_reports_stream_in_input_order_as_soon_as_earlier_files_are_done(files, monkeypatch):
    log = []
    monkeypatch.setattr(parallel, "verify_many", scripted([2, 0, 1], log=log))
    monkeypatch.setattr(runner, "_Spinner", CountingSpinner)
    CountingSpinner.steps = []
    out = runner.verify_files(files, jobs=2, use_cache=False, on_result=lambda r: log.append(("emitted", r.path)))
    assert [r.status for r in out] == ["legal"] * 3
    # f2 finishes first and waits for f0; f0 is printed as soon as it finishes; f1 frees f2
    assert log == [("finished", 2), ("emitted", files[0]), ("finished", 0),
                   ("emitted", files[1]), ("emitted", files[2]), ("finished", 1)]
    assert CountingSpinner.steps == [1, 2, 3]  # counted as each finishes, not as each is printed


def test_unordered_prints_each_report_as_it_finishes(files, monkeypatch):
    log = []
    monkeypatch.setattr(parallel, "verify_many", scripted([2, 0, 1], log=log))
    runner.verify_files(files, jobs=2, use_cache=False, on_result=lambda r: log.append(("emitted", r.path)),
                        unordered=True)
    assert log == [("emitted", files[2]), ("finished", 2), ("emitted", files[0]), ("finished", 0),
                   ("emitted", files[1]), ("finished", 1)]


def test_unordered_option_of_the_cli(files, monkeypatch, capsys):
    monkeypatch.setattr(parallel, "verify_many", scripted([1, 2, 0]))
    assert main(["verify", "--no-cache", "-j", "2", "--unordered", *files]) == 0
    out = capsys.readouterr().out
    assert [line.split(":")[0] for line in out.splitlines() if line.endswith(": legal")] == \
        [files[1], files[2], files[0]]


def test_ctrl_c_prints_the_finished_reports(files, monkeypatch, capsys):
    """Ctrl-C under `-j 2` printed nothing: f2 was done but held for f0."""
    monkeypatch.setattr(parallel, "verify_many", scripted([2, 0, 1], interrupt_after=1))
    assert main(["verify", "--no-cache", "-j", "2", *files]) == 130
    cap = capsys.readouterr()
    assert f"{files[2]}: legal" in cap.out and files[0] not in cap.out and files[1] not in cap.out
    assert "vsched: interrupted" in cap.err


def test_interrupted_output_file_keeps_the_previous_report(files, tmp_path, monkeypatch):
    """An interrupted `verify -o FILE` left a 0-byte file, wiping the previous report."""
    report = tmp_path / "report.sarif"
    report.write_text("the previous report\n")
    monkeypatch.setattr(parallel, "verify_many", scripted([0, 1, 2], interrupt_after=2))
    assert main(["verify", "--no-cache", "-j", "2", "--format", "sarif", "-o", str(report), *files]) == 130
    assert report.read_text() == "the previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f0.vs", "f1.vs", "f2.vs", "report.sarif"]
    monkeypatch.setattr(parallel, "verify_many", scripted([0, 1, 2]))
    assert main(["verify", "--no-cache", "-j", "2", "--format", "sarif", "-o", str(report), *files]) == 0
    assert '"version": "2.1.0"' in report.read_text()
    assert oct(report.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f0.vs", "f1.vs", "f2.vs", "report.sarif"]


def test_output_into_a_missing_folder_is_a_usage_error(files, tmp_path, capsys):
    assert main(["verify", "--no-cache", "-o", str(tmp_path / "no" / "r.txt"), files[0]]) == 2
    assert f"vsched: error: -o {tmp_path / 'no' / 'r.txt'}: cannot write there" in capsys.readouterr().err


def test_verify_many_unordered_yields_every_job_once(files):
    jobs = [(p, open(p).read()) for p in files]
    got = list(parallel.verify_many(jobs, None, 10.0, 48 * 1024, 2, ordered=False))
    assert sorted(i for i, _ in got) == [0, 1, 2] and {p["status"] for _, p in got} == {"legal"}


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
