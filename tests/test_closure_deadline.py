"""The value flow's transitive closure keeps the deadline: isl's closure may count no
operation for many seconds (isl_ctx_abort cannot stop it; fuzz example s31337/slow00 ran
47 s at a 5 s deadline), so a closure of more than CLOSURE_FORK_PIECES pieces runs under
polyhedral.bounded; a small one runs in process as before."""
from __future__ import annotations

import islpy as isl
import pytest

from polyhedral import bounded as bd
from polyhedral import valuedeps
from verified_sched.core import budget


def _chain(n: int) -> isl.UnionMap:
    """n pieces: S_k[i] -> S_{k+1}[i] (k < n) and a step inside the last statement."""
    text = "; ".join(f"S{k}[i] -> S{k + 1}[i] : 0 <= i < 10" for k in range(n - 1))
    return isl.UnionMap("{ " + text + f"; S{n - 1}[i] -> S{n - 1}[i + 1] : 0 <= i < 9 }}")


def test_large_closure_is_bounded_and_equal_to_the_closure_in_process():
    u = _chain(valuedeps.CLOSURE_FORK_PIECES + 2)
    here, exact_here = u.transitive_closure()
    n = len(bd.FORKS)
    with budget.scope(budget.now() + 600):
        got, exact = valuedeps.closure_of(u)
    assert len(bd.FORKS) == n + 1
    assert got.is_equal(here) and exact == exact_here


def test_small_closure_runs_in_process():
    u = _chain(3)
    n = len(bd.FORKS)
    with budget.scope(budget.now() + 600):
        got, _ = valuedeps.closure_of(u)
    assert len(bd.FORKS) == n and got.is_equal(u.transitive_closure()[0])


def test_a_child_past_its_cpu_limit_is_stopped():
    """`bounded(fn, cpu_limit=...)`: a computation only worth waiting for when quick (the value
    flow's closure before the bounds of valuedeps._Mattering) stops after its CPU seconds."""
    def spin():
        while True:
            pass
    with budget.scope(budget.now() + 600):
        with pytest.raises(bd.CpuLimit):
            bd.bounded(spin, cpu_limit=0.05)
        assert bd.bounded(lambda: 7, cpu_limit=5.0) == 7


def test_a_quick_closure_under_a_cpu_limit_is_the_closure():
    u = _chain(valuedeps.CLOSURE_FORK_PIECES + 2)
    with budget.scope(budget.now() + 600):
        got, exact = valuedeps.closure_of(u, cpu_limit=30.0)
    assert got.is_equal(u.transitive_closure()[0]) and exact
