"""Issue 23, item 2: `vsched verify`'s text report introduces its words. Column headers on each
file's first report, a one-line legend of the statuses, kinds and engines before the run's
first report, `vsched explain KIND`, and a line saying what to do next on illegal or unknown."""
from __future__ import annotations

import pytest

from verified_sched.core import obligations
from verified_sched.cli import main
from verified_sched.report import legend


def test_every_kind_and_engine_has_its_words():
    assert tuple(legend.KINDS) == obligations.KINDS
    assert tuple(legend.ENGINES) == obligations.ENGINES
    assert tuple(legend.STATUSES) == obligations.STATUSES


def test_legend_once_headers_per_file_and_next_step_on_illegal(cases_dir, capsys):
    a, b = cases_dir / "stencil_interchange_illegal.vs", cases_dir / "sum_interchange.vs"
    assert main(["verify", "--no-cache", "-j", "1", str(a), str(b)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == legend.legend() and sum(line.startswith("legend:") for line in out) == 1
    assert "isl = integer sets" in out[0] and "`vsched explain KIND`" in out[0]
    assert out[1] == f"{a}: skewed: ILLEGAL" and out[2] == legend.header()
    assert out[2].split() == ["status", "kind", "engine", "seconds", "message"]
    assert out.count(legend.header()) == 2  # the first report of each file
    row = next(line for line in out if line.lstrip().startswith("refuted"))
    assert row.index("dependence") == out[2].index("kind") and row.index("isl") == out[2].index("engine")
    i = out.index(f"{a}: illegal")  # still the file's last line, the advice just before it
    assert out[i - 1].startswith(f"{a}: next: each refuted obligation above carries a counterexample")
    assert f"vsched run {a}" in out[i - 1]
    assert not any(line.startswith(f"{b}: next:") for line in out)  # legal: nothing to do


def test_next_step_on_unknown_names_the_timeout():
    advice = legend.next_step("f.vs", "unknown", 10.0)
    assert advice.startswith("f.vs: next: unknown is not legal; retry with a larger --timeout (now 10 s)")
    assert legend.next_step("f.vs", "legal", 10.0) is None


@pytest.mark.parametrize("kind", ["dependence", "race", "exactness"])
def test_explain_kind(kind, capsys):
    assert main(["explain", kind]) == 0
    assert capsys.readouterr().out.startswith(f"{kind}: {legend.KINDS[kind]}")
