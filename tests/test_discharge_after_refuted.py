"""Once one obligation of an op is refuted, its later obligations get a tenth of isl's
operations (verify/discharge.py AFTER_REFUTED): the op is illegal whatever they say.
Regression: fuzz seed 424242 (loop ops) drew four near copies of one program whose ops were
refuted by in_bounds and coverage first, then spent isl's whole budget on the value flow of
their dependence obligations (1 to 2 s an op): every copy ran into the 5 s deadline, a fifth
of the campaign's CPU in one batch. Counted in isl operations, never in time."""
from __future__ import annotations

import islpy as isl

from verified_sched.core import budget
from verified_sched.core.obligations import Decided, Goal, Procedure
from verified_sched.dsl import parse_text
from verified_sched.verify.discharge import AFTER_REFUTED, discharge
from verified_sched.verify.driver import verify_program

# fuzz example l424242/slow01: the split's in_bounds and coverage are refuted, its dependence
# ran out of isl's 5M operations after 1.1 s (the op after it: 2.1 s)
S424242 = """params N, M, K where N >= 1, M >= 1, K >= 1
tensor x[K, 2 * K + 1] f32
tensor y[M + 2 * K + 2, N + K + 2, 2 * K + 3] f32 pad(0, 0, 3)
kernel kern0 {
  zero y
  for i in 0 .. K {
    if i > N - 1 {
      y[i + i, 0, i % 3] += N
      if i < N and i + i != 2 {
        y[min(i, i), floor(i / 2), i] = min(y[min(i, i), floor(i / 2), i], K)
        y[i + M, max(i - 2, 0), i + i] = x[floor(i / 3), 2 * i + 2]
      } else {
        y[i + 2, i + N, i % 2] = max(y[i + 2, i + N, i % 2], N)
      }
    }
    y[i, max(i - 1, 0), i % 3] = fma(2.0 - x[K - 1 - i, floor(i / 2)], where(i < K, y[i + i, 1, K - 1 - i], N), y[i, max(i - 1, 0), i % 3])
  }
}
schedule kern0 {
  split i by 8 -> io0, ii0 tail=shift_inward partition=unroll_edges
  unroll ii0 materialize
  split io0_tail by 2 -> io0_tailo0, io0_taili0 tail=round_up_and_blend partition=unroll_edges
  interchange io0_taili0_tail, ii0_tail_tail
}
"""


def _goal(kind, status, caps):
    def run():
        caps.append(isl.DEFAULT_CONTEXT.get_max_operations())
        return Decided(status, f"{kind} {status}")
    return Goal(kind, f"{kind} holds", Procedure(run))


def test_goals_after_a_refuted_one_get_a_tenth_of_the_operations():
    caps = []
    goals = [_goal("in_bounds", "proved", caps), _goal("coverage", "refuted", caps),
             _goal("dependence", "proved", caps), _goal("race", "unknown", caps)]
    out = discharge(goals, budget.now() + 60, 1, "split i by 8")
    assert [o.status for o in out] == ["proved", "refuted", "proved", "unknown"]
    full = budget.operations()
    assert caps == [full, full, full // AFTER_REFUTED, full // AFTER_REFUTED]


def test_no_refutation_keeps_the_whole_budget():
    caps = []
    discharge([_goal("in_bounds", "proved", caps), _goal("dependence", "unknown", caps),
               _goal("race", "proved", caps)], budget.now() + 60, 1, "split i by 8")
    assert caps == [budget.operations()] * 3


def test_fuzz_s424242_refuted_ops_stop_their_dependence_at_the_smaller_budget():
    report = verify_program(parse_text(S424242), timeout=60.0)[0]
    assert report.verdict == "illegal"
    by_op = {}
    for o in report.obligations:
        by_op.setdefault(o.op_index, []).append(o)
    capped = [o for o in report.obligations if "already refuted" in o.message]
    assert capped and all(o.kind == "dependence" and o.status == "unknown" for o in capped)
    assert all(f"({budget.operations() // AFTER_REFUTED} operations)" in o.message for o in capped)
    for o in capped:  # every capped one comes after a refutation of its own op
        earlier = by_op[o.op_index][:by_op[o.op_index].index(o)]
        assert any(e.status == "refuted" for e in earlier)
