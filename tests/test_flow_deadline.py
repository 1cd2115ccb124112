"""The value flow keeps the deadline: islpy holds the GIL through an isl call, so the budget's
watchdog thread cannot abort a long `compute_flow` at the deadline (fuzz example s31337/slow01:
its dependence obligation ran 15.6 s of wall-clock time at a 5 s timeout, until isl's operation
budget ran out). A flow analysis of many sink x store pieces (`valueflow.FORK_PAIRS`) runs under
polyhedral.bounded; a small one runs in process as before. Counted in forks, never in time."""
from __future__ import annotations

import islpy as isl
import pytest

from polyhedral import bounded as bd
from polyhedral import valueflow
from polyhedral.model import KernelModel
from verified_sched.core import budget
from verified_sched.dsl import parse_text

# fuzz example s31337/slow01 (seed 31337): every statement stores into y through min, mod
# and sums of iterators; the flow analysis of its reads runs out of 5M isl operations
SLOW01 = """params N, M, K where N >= 1, M >= 1, K >= 2
tensor x[2 * K + 3, M + K + 3, 2 * K + 2] f32 pad(0, 0, 3)
tensor y[3 * K + 3] f32 pad(3)
kernel kern0 {
  zero y
  for i in 0 .. K {
    if i > M {
      for j in 0 .. K + 2 : unrolled {
        if i % 2 == N {
          y[min(j, i)] *= 3.0 * 3 * 0
          y[i % 3] = max(y[i % 3], x[2, 2, max(i - 2, 0)])
        } else {
          for k in 1 .. K + 2 + 1 {
            y[i + k] = bf16(4)
          }
          y[2] = fma(min(2.0, x[i + i, j + M, K + 1 - j]) + x[max(i - 2, 0), i % 2, i + i] * 3, where(j > N - 1 and j + i >= 3, j, i), y[2])
        }
        y[j + i] = min(y[j + i], y[K - 1 - i])
      }
      y[i + i] = max(y[i + i], 0.25)
    } else {
      y[3 * i] *= 0.25
    }
  }
}
"""

# a middle size: 6 stores of y with mod indices, forked, and cheap enough to compare
MIDDLE = """params N where N >= 2
tensor x[N] f32
tensor y[3 * N + 3] f32
kernel k {
  for i in 0 .. N {
    y[i % 3] = x[i]
    y[i + 1] = y[i % 3] + 1.0
    y[2 * i] = y[i + 1] * 2.0
    y[i] = y[2 * i] + y[i % 2]
    y[N - i] = y[i] + 1.0
    y[i % 2] = y[N - i] - 1.0
  }
}
"""

SMALL = """params N where N >= 2
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
"""


def _flow(text: str, may: bool = False) -> valueflow.ValueFlow:
    prog = parse_text(text)
    return valueflow.ValueFlow(KernelModel(prog, prog.kernels[0].name, tag="B"), may=may)


def _pairs(f: valueflow.ValueFlow) -> int:
    sinks = [f.read_map(st, k) for st, k, _ in f.reads()] + [c for c, _ in f._final_sinks()]
    return valueflow.source_pairs(sinks, f.m.writes)


@pytest.mark.parametrize("may, quick", [(False, None), (True, None), (False, 0.0), (True, 0.0)])
def test_large_flow_runs_forked_with_the_sets_of_the_flow_in_process(may, quick, monkeypatch):
    """quick None: the child was quick, the parent computes the flow again; 0.0: the parent
    reads the child's answer back from text."""
    if quick is not None:
        monkeypatch.setattr(bd, "QUICK_CPU", quick)
    f = _flow(MIDDLE, may)
    assert _pairs(f) >= valueflow.FORK_PAIRS
    here = _flow(MIDDLE, may)._flow  # no deadline: in process
    n = len(bd.FORKS)
    with budget.scope(budget.now() + 600):
        got = f._flow
    assert len(bd.FORKS) == n + 1
    assert got[0].is_equal(here[0]) and got[1].is_equal(here[1])


def test_small_flow_runs_in_process():
    f = _flow(SMALL)
    assert _pairs(f) < valueflow.FORK_PAIRS
    n = len(bd.FORKS)
    with budget.scope(budget.now() + 600):
        f.source
    assert len(bd.FORKS) == n


def test_fuzz_s31337_slow01_flow_is_bounded():
    """Its flow analysis is forked; out of operations (or time) it is an isl error, the
    obligation's `unknown`, and the parent's own operation count is untouched."""
    f = _flow(SLOW01)
    assert _pairs(f) >= valueflow.FORK_PAIRS
    n = len(bd.FORKS)
    with budget.scope(budget.now() + 600, max_operations=200_000):
        with pytest.raises(isl.Error) as exc:
            f.source
        assert budget.unknown_reason(exc.value).startswith(budget.ISL_BUDGET)
    assert len(bd.FORKS) == n + 1
