"""Issue 23, items 5 and 7: fuzz results a user can act on. Findings are deduplicated by (kind,
op, signature) and counted (one planted backend bug was reported as 4 findings); every
reproduce command runs as printed from where the campaign was started (its path was relative
to the -o folder); a budget that ran no example is an error (exit 2), not "no findings"; off a
terminal a progress line goes to stderr now and then (a fake clock here)."""
from __future__ import annotations

import io
import json
import re
import shlex
from pathlib import Path

from verified_sched.cli import main
from verified_sched.cli import fuzz as command
from verified_sched.fuzz import driver
from verified_sched.fuzz.campaign import BatchResult, Config
from verified_sched.fuzz.display import final_table, progress_lines
from verified_sched.fuzz.driver import Campaign
from verified_sched.fuzz.reproducer import signature
from verified_sched.fuzz.stats import Stats

PROGRAM = """params N where N >= 1
tensor a[N] f32
tensor b[N] f32
kernel k {
  for i in 0 .. N {
    b[i] += a[i]
  }
}
schedule k {
  reverse i
}
"""


def _backend_record(name: str, ops: list, message: str) -> dict:
    return {"kind": "backend", "message": message, "op": "", "name": name, "lines": 10, "ops": ops,
            "signature": signature("backend", ops, message=message),
            "text": f"# vsched fuzz finding: backend\n# reproduce: vsched fuzz --reproduce {name} --backend m:f\n"
                    + PROGRAM}


def test_one_backend_bug_under_four_schedules_is_one_finding_counted_four_times(tmp_path):
    camp = Campaign(Config(), tmp_path / "out")
    for n, ops in enumerate([["interchange"], ["pad"], ["unroll", "pad"], ["interchange", "unroll"]]):
        camp.absorb(BatchResult(Stats(), [_backend_record(f"backend-{n}.vs", ops,
                                                          f"the backend differs from the oracle: b[{n}] 1 != 2")]))
    camp.absorb(BatchResult(Stats(), [_backend_record("backend-raised.vs", ["pad"],
                                                      "the backend differs from the oracle: the backend raised "
                                                      "KeyError: 'N'")]))
    assert [(f["kind"], f["count"]) for f in camp.findings] == [("backend", 4), ("backend", 1)]
    assert camp.duplicates == 3
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["backend-0.vs", "backend-raised.vs"]
    table = final_table(camp)
    assert "count" in table and " 4 " in table
    summary = command.summary(camp)
    assert [(f["kind"], f["count"]) for f in summary["findings"]] == [("backend", 4), ("backend", 1)]


def test_counterexample_findings_stay_apart_by_op(tmp_path):
    camp = Campaign(Config(), tmp_path)
    for op in ("interchange", "reverse", "interchange"):
        rec = {"kind": "counterexample", "message": "m", "op": op, "name": f"c-{op}.vs", "text": PROGRAM,
               "lines": 1, "signature": signature("counterexample", [op], "dependence", op)}
        camp.add_finding(rec)
    assert [(f["op"], f["count"]) for f in camp.findings] == [("interchange", 2), ("reverse", 1)]


def test_reproduce_command_runs_as_printed_from_where_the_campaign_started(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    camp = Campaign(Config(cwd=str(tmp_path)), Path("findings") / "deep")
    rec = {"kind": "counterexample", "message": "m", "op": "reverse", "name": "counterexample-1.vs",
           "lines": 1, "signature": "s",
           "text": "# vsched fuzz finding: counterexample\n"
                   "# reproduce: vsched verify counterexample-1.vs   # refutes dependence at N=2\n"
                   "# then: vsched run counterexample-1.vs --size N=2   # but the kernels agree there\n" + PROGRAM}
    camp.add_finding(rec)
    text = (tmp_path / "findings" / "deep" / "counterexample-1.vs").read_text()
    commands = re.findall(r"^# (?:reproduce|then): (.*?)\s+#", text, re.M)
    assert commands == ["vsched verify findings/deep/counterexample-1.vs",
                        "vsched run findings/deep/counterexample-1.vs --size N=2"]
    for cmd in commands:  # as printed, from the campaign's directory
        argv = shlex.split(cmd)
        assert argv[0] == "vsched" and main(argv[1:]) in (0, 1, 3), capsys.readouterr().err
    assert "findings/deep/counterexample-1.vs" in final_table(camp)


def test_a_folder_outside_the_campaign_directory_is_named_absolutely(tmp_path):
    out = tmp_path / "elsewhere"
    camp = Campaign(Config(cwd=str(tmp_path / "here")), out)
    (tmp_path / "here").mkdir()
    camp.add_finding(_backend_record("b.vs", ["pad"], "differs"))
    assert f"# reproduce: vsched fuzz --reproduce {out.resolve() / 'b.vs'} --backend m:f" in (out / "b.vs").read_text()


def test_a_budget_that_ran_no_example_exits_2(tmp_path, monkeypatch, capsys):
    """`--budget 1` could run 0 examples and exit 0 "no findings"."""
    monkeypatch.setattr(driver.Campaign, "run", lambda self, update=None: self)  # starting took the whole budget
    assert main(["fuzz", "--budget", "1", "--workers", "1", "-o", str(tmp_path / "out"), "--shapes", "matmul",
                 "--ops", "split"]) == 2
    err = capsys.readouterr().err
    assert "vsched: error: the budget of 1 s ran no example" in err and "larger --budget" in err


class FakeClock:
    def __init__(self, times):
        self.times = list(times)

    def __call__(self):
        return self.times.pop(0)


def test_progress_lines_off_a_terminal_every_few_seconds(tmp_path):
    camp = Campaign(Config(), tmp_path)
    camp.started, camp.ended = 0.0, 30.0
    camp.stats.examples = 12
    out = io.StringIO()
    update = progress_lines(out, clock=FakeClock([0.0, 4.0, 10.0, 12.0, 19.9, 20.0]), every=10.0)
    for _ in range(5):
        update(camp)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2  # at 10 s and at 20 s, not at 4, 12 or 19.9
    assert lines[0].startswith("vsched fuzz: 12 examples in 30 s (0.4/s); legal 0,") and "0 finding(s)" in lines[0]


def test_fuzz_json_still_one_object_with_progress_on(tmp_path, monkeypatch, capsys):
    def run(self, update=lambda c: None):
        self.stats.examples = 1
        self.stats.verdicts["legal"] = 1
        update(self)
        return self
    monkeypatch.setattr(driver.Campaign, "run", run)
    assert main(["fuzz", "--examples", "1", "--workers", "1", "--json", "-o", str(tmp_path / "o")]) == 0
    assert json.loads(capsys.readouterr().out)["examples"] == 1
