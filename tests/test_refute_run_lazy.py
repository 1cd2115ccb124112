"""Confirming a refutation by running (verify/refute_run.py `confirm_refutations`, issue 25
"Speed"): once the run at the refutation's own sizes shows the difference, the refutation
stands whatever the other size sets show, so they are not run (`_verdicts`). The reports are
those of running every size set; work is counted (comparisons run), never timed."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from verified_sched.dsl import parse_file
from verified_sched.fuzz.strategies import fuzz_examples
from verified_sched.verify import refute_run
from verified_sched.verify.driver import verify_program

# the corpus files whose refutations are confirmed by a run
CASES = ("stencil_interchange_illegal.vs", "rowsum_shift_inward.vs")


def _every_size_set(compare, before, after, kernel, sizes_list, own, rtol):
    """What confirm_refutations did before `_verdicts`: run every size set, then look at own."""
    out = [compare(before, after, kernel, s, rtol=rtol) for s in sizes_list]
    if any(d for (d, _, _), s in zip(out, sizes_list) if s == own):
        return None
    return out


def _report(path, monkeypatch, verdicts) -> tuple:
    return _verified(parse_file(path), monkeypatch, verdicts)


def _verified(program, monkeypatch, verdicts) -> tuple:
    runs = []
    real = {name: getattr(refute_run, name) for name in ("_compare", "_compare_orders")}
    for name, fn in real.items():
        monkeypatch.setattr(refute_run, name, lambda *a, _fn=fn, **k: runs.append(1) or _fn(*a, **k))
    monkeypatch.setattr(refute_run, "_verdicts", verdicts)
    reports = verify_program(program, timeout=10)
    monkeypatch.undo()
    return [(r.verdict, r.obligations) for r in reports], len(runs)


@pytest.mark.parametrize("name", CASES)
def test_refutations_confirmed_at_their_own_sizes_run_no_other_sizes(cases_dir, monkeypatch, name):
    lazy, lazy_runs = _report(cases_dir / name, monkeypatch, refute_run._verdicts)
    eager, eager_runs = _report(cases_dir / name, monkeypatch, _every_size_set)
    assert _same(lazy, eager)
    assert lazy_runs <= eager_runs


def test_a_refutation_shown_at_its_own_sizes_runs_once(cases_dir, monkeypatch):
    """stencil_interchange_illegal: the dependence refutation's own sizes show it; the
    example size sets are not run (they were: one comparison per size set)."""
    (report,), runs = _report(cases_dir / "stencil_interchange_illegal.vs", monkeypatch, refute_run._verdicts)
    _, eager_runs = _report(cases_dir / "stencil_interchange_illegal.vs", monkeypatch, _every_size_set)
    assert report[0] == "illegal" and runs == 1 < eager_runs


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(fuzz_examples(ops=("interchange", "reverse", "shift", "retype", "split"), shapes=("stencil", "reduction")))
def test_fuzz_examples_get_the_reports_of_running_every_size_set(ex):
    with pytest.MonkeyPatch.context() as mp:
        lazy, lazy_runs = _verified(ex.program, mp, refute_run._verdicts)
    with pytest.MonkeyPatch.context() as mp:
        eager, eager_runs = _verified(ex.program, mp, _every_size_set)
    assert _same(lazy, eager) and lazy_runs <= eager_runs


def _same(a, b) -> bool:
    """Equal reports, obligation by obligation, up to their timings."""
    def key(reports):
        return [(v, [(o.kind, o.op_index, o.status, o.engine, o.message, o.counterexample) for o in obs])
                for v, obs in reports]
    return key(a) == key(b)
