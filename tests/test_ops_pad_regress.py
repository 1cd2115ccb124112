"""Regressions of `pad`: the pad iterations (i >= N) must do nothing, not even evaluate a
data-dependent `if` condition (it reads memory, possibly outside storage there)."""
from __future__ import annotations

import pytest

from verified_sched.oracle.compare import compare_kernels, random_inputs
from verified_sched.core import ir
from verified_sched.interp.interpreter import run_kernel
from test_ops_support import assert_same_results, body_of, scheduled

DATA_IF = """params N where N >= 1
tensor x[N] f32
tensor y[N, 3] f32
kernel k {
  for i in 0 .. N {
    for j in 0 .. 3 {
      if j > 0 {
        if x[max(i - 1, 0)] < 0 {
          y[i, j] = 1.0
        } else {
          y[i, j] = x[i]
        }
      } else {
        y[i, j] = 2.0
      }
    }
  }
}
schedule k {
  pad i to 4
}
"""


def _guarded_data_ifs(kernel: ir.Kernel) -> bool:
    """Every `if` whose condition reads memory sits under the pad guard `i < N`."""
    def walk(stmts, guarded):
        for s in stmts:
            match s:
                case ir.If(cond=c) if ir.reads(c):
                    if not guarded:
                        return False
                case ir.If(cond=c, then=t, orelse=e):
                    inner = guarded or c == ir.Cmp("<", ir.Var("i"), ir.Var("N"))
                    if not (walk(t, inner) and walk(e, guarded)):
                        return False
                case ir.For(body=b):
                    if not walk(b, guarded):
                        return False
        return True
    return walk(kernel.body, False)


def test_pad_guards_data_dependent_if_condition():
    before, after, k = scheduled(DATA_IF)
    assert _guarded_data_ifs(after.kernel(k)), body_of(after, k)
    assert "if i < N {\n        if x[max(i - 1, 0)] < 0 {" in body_of(after, k)
    for n in (1, 2, 5, 7):  # pad iterations i >= N + 1 exist; the interpreter raises on a read outside storage
        assert_same_results(before, after, k, {"N": n})


@pytest.mark.parametrize("n", [1, 5, 6])  # sizes where a pad iteration i >= N + 1 exists
def test_pad_data_dependent_if_compiled_c_stays_in_storage(n):
    before, after, k = scheduled(DATA_IF)
    report = compare_kernels(before, k, k, {"N": n}, seed=n, program_cand=after)
    assert report.ok, report.text()  # guard zones: an out-of-storage write raises OutOfStorage
    run_kernel(after, k, {"N": n}, random_inputs(after, [k], {"N": n}, seed=n))  # raises on OOB reads

