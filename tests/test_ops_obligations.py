"""Op-specific obligations of the loop ops, decided through ops.op_obligations."""
from __future__ import annotations

import pytest

from verified_sched.dsl import parse_text
from verified_sched.ops import apply_op, op_obligations
from test_ops_support import assert_same_results, scheduled

RELU = """params N where N >= {lo}
tensor x[N] f32 {pad}
tensor y[N] f32
kernel relu {{
  for i in 0 .. N {{
    y[i] = max(x[i], 0)
  }}
}}
schedule relu {{
  {op}
}}
"""


class Ctx:
    """The attributes an op's obligations read (verify.OpContext has the same names)."""

    def __init__(self, before, after, kernel, op, op_index=1):
        self.before, self.after, self.kernel, self.op, self.op_index = before, after, kernel, op, op_index


def obligations(text: str) -> list:
    before = parse_text(text)
    sched = before.schedules[0]
    op = sched.ops[0]
    after = apply_op(before, sched.kernel, op)
    return op_obligations(Ctx(before, after, sched.kernel, op))


@pytest.mark.parametrize("tail", ["shift_inward", "shift_inward_and_blend"])
def test_shift_inward_extent_refuted_with_sizes(tail):
    (ob,) = obligations(RELU.format(lo=1, pad="", op=f"split i by 8 -> io, ii tail={tail}"))
    assert (ob.kind, ob.status, ob.engine) == ("precondition", "refuted", "isl")
    assert 1 <= ob.counterexample["params"]["N"] < 8
    assert "needs extent >= 8" in ob.message
    assert ob.op == f"split i by 8 -> io, ii tail={tail}" and ob.op_index == 1


def test_shift_inward_extent_proved():
    (ob,) = obligations(RELU.format(lo=8, pad="", op="split i by 8 -> io, ii tail=shift_inward"))
    assert (ob.kind, ob.status) == ("precondition", "proved")


def test_shift_inward_extent_in_context_of_outer_loop():
    text = """params N where N >= 1
tensor y[N + 8] f32
kernel k {
  for j in 0 .. N {
    for i in 0 .. j + 8 {
      y[i] = 1.0
    }
  }
}
schedule k {
  split i by 8 -> io, ii tail=shift_inward
}
"""
    (ob,) = obligations(text)
    assert ob.status == "proved"


def test_predicate_stores_unmasked_loads():
    (ob,) = obligations(RELU.format(lo=1, pad="", op="split i by 4 -> io, ii tail=predicate_stores"))
    assert (ob.kind, ob.status) == ("in_bounds", "refuted")
    cell = ob.counterexample["cells"][0]
    n = ob.counterexample["params"]["N"]
    assert cell["tensor"] == "x" and cell["index"][0] >= n
    (ob,) = obligations(RELU.format(lo=1, pad="pad(3)", op="split i by 4 -> io, ii tail=predicate_stores"))
    assert (ob.kind, ob.status) == ("in_bounds", "proved")


@pytest.mark.parametrize("op", ["split i by 4 -> io, ii", "pad i to 4", "unroll i",
                                "retype i as vectorized", "partition i at 3 -> i0, i1"])
def test_other_ops_have_no_specific_obligations(op):
    assert obligations(RELU.format(lo=1, pad="", op=op)) == []


def test_counterexample_replays():
    """The sizes of a shift_inward refutation make the scheduled kernel leave storage."""
    from verified_sched.errors import VschedError
    text = RELU.format(lo=1, pad="", op="split i by 8 -> io, ii tail=shift_inward")
    (ob,) = obligations(text)
    before, after, k = scheduled(text)
    with pytest.raises(VschedError, match="out of bounds"):
        assert_same_results(before, after, k, ob.counterexample["params"])
