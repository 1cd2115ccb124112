"""Op-specific obligations of the loop ops, decided through verify.own_obligations."""
from __future__ import annotations

import pytest

from verified_sched.dsl import parse_text
from verified_sched.ops import apply_op
from verified_sched.verify.driver import own_obligations as op_obligations
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
        self.deadline = 0.0  # none


def obligations(text: str) -> list:
    before = parse_text(text)
    sched = before.schedules[0]
    op = sched.ops[0]
    after = apply_op(before, sched.kernel, op)
    return op_obligations(Ctx(before, after, sched.kernel, op))


@pytest.mark.parametrize("tail", ["shift_inward", "shift_inward_and_blend", "predicate_stores"])
def test_split_has_no_obligations_of_its_own(tail):
    """Regression (issue 9 item 11): `extent >= F` of shift_inward was a precondition refuted
    even where the shifted lanes i < 0 are harmless no-op blends (no run shows anything); the
    generic obligations decide the shifted tile (below)."""
    assert obligations(RELU.format(lo=1, pad="", op=f"split i by 8 -> io, ii tail={tail}")) == []


def test_predicate_stores_refutes_no_load_that_no_backend_performs():
    """Regression (issue 9 item 11): tail=predicate_stores was refuted `in_bounds` for the loads
    of masked lanes, which its guarded leaf never evaluates, so `vsched run` at the printed
    sizes said ok. It has no obligation of its own now, like predicate."""
    for pad in ("", "pad(3)"):
        assert obligations(RELU.format(lo=1, pad=pad, op="split i by 4 -> io, ii tail=predicate_stores")) == []


@pytest.mark.parametrize("op", ["split i by 4 -> io, ii", "pad i to 4", "unroll i",
                                "retype i as vectorized", "partition i at 3 -> i0, i1"])
def test_other_ops_have_no_specific_obligations(op):
    assert obligations(RELU.format(lo=1, pad="", op=op)) == []


def test_counterexample_replays():
    """The sizes of a shift_inward refutation make the scheduled kernel leave storage."""
    from verified_sched.core.errors import VschedError
    from verified_sched.verify.driver import verify_program
    text = RELU.format(lo=1, pad="", op="split i by 8 -> io, ii tail=shift_inward")
    (rep,) = verify_program(parse_text(text))
    (ob,) = [o for o in rep.obligations if o.status == "refuted"]
    assert ob.kind == "in_bounds" and 1 <= ob.counterexample.sizes["N"] < 8
    before, after, k = scheduled(text)
    with pytest.raises(VschedError, match="out of bounds"):
        assert_same_results(before, after, k, ob.counterexample.sizes)
