"""A large flow analysis is kept by its inputs' text with isl's answer (polyhedral/known.py):
near copies of one program, as hypothesis's mutator draws them (a cast or a constant changed:
the same accesses and schedule), ask isl once. Regression: fuzz seed 777777 ran the same flow
analysis, out of isl's operations after 1.9 s each time, for near copies of one program (5 of
its 240 examples, 47% of the campaign's CPU). Counted in forks, never in time."""
from __future__ import annotations

import islpy as isl
import pytest

from polyhedral import bounded as bd
from polyhedral import known
from test_flow_deadline import MIDDLE, SLOW01, _flow, _pairs
from verified_sched.core import budget
from polyhedral import valueflow


@pytest.fixture(autouse=True)
def fresh_store(monkeypatch):
    monkeypatch.setattr(known, "_FLOWS", {})
    monkeypatch.setattr(bd, "QUICK_CPU", 0.0)  # every forked answer is kept (none counts as quick)


def _in_scope(f, max_operations=None):
    with budget.scope(budget.now() + 600, max_operations=max_operations):
        return f._flow


def test_a_near_copy_asks_isl_once_and_gets_the_same_sets():
    first = _flow(MIDDLE)
    assert _pairs(first) >= valueflow.FORK_PAIRS
    n = len(bd.FORKS)
    a = _in_scope(first)
    assert len(bd.FORKS) == n + 1
    copy = _flow(MIDDLE.replace("+ 1.0", "+ 3.0").replace("f32", "bf16"))  # other values, same accesses
    b = _in_scope(copy)
    assert len(bd.FORKS) == n + 1 and known.FLOW_STATS["known"] >= 1
    assert a[0].is_equal(b[0]) and a[1].is_equal(b[1])
    here = _flow(MIDDLE)._flow  # no deadline: in process, unkept
    assert a[0].is_equal(here[0]) and a[1].is_equal(here[1])


def test_other_accesses_or_another_context_are_asked_again():
    _in_scope(_flow(MIDDLE))
    n = len(bd.FORKS)
    _in_scope(_flow(MIDDLE.replace("N >= 2", "N >= 3")))
    _in_scope(_flow(MIDDLE.replace("y[i % 2] = y[N - i]", "y[i % 2] = y[N - i - 1]")))
    assert len(bd.FORKS) == n + 2


def test_out_of_operations_is_kept_and_raised_again_as_unknown():
    n = len(bd.FORKS)
    for _ in range(2):
        with pytest.raises(isl.Error) as exc:
            _in_scope(_flow(SLOW01), max_operations=200_000)
        with budget.scope(budget.now() + 600):
            assert budget.unknown_reason(exc.value).startswith(budget.ISL_BUDGET)
    assert len(bd.FORKS) == n + 1  # the second time, no isl work


def test_the_answer_depends_on_the_operation_cap():
    """Out of 200k operations is not out of 5M: another cap, another key."""
    with pytest.raises(isl.Error):
        _in_scope(_flow(MIDDLE), max_operations=2_000)
    n = len(bd.FORKS)
    got = _in_scope(_flow(MIDDLE))
    assert len(bd.FORKS) == n + 1 and not got[0].is_empty()


def test_a_deadline_hit_is_not_kept(monkeypatch):
    def late(fn, *a, **k):
        raise isl.Error(budget.deadline_message("(bounded isl call stopped)"))

    monkeypatch.setattr(bd, "bounded", late)
    with pytest.raises(isl.Error):
        _in_scope(_flow(MIDDLE))
    assert known._FLOWS == {}
