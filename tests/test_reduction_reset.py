"""Issue 20: two wrong answers of the op obligations about what one reduction is and what is
observable.

- false illegal: two `+=` into one cell were counted as one reduction even when a plain store
  resets the cell between them (model.reductions): reversing the rows of a per-row sum through
  one temporary was refused under `reproducible` as reordering a reduction (and reported as
  reassociating under `default`), although every row's sum keeps its order;
- unknown -> decided: a `scratch` tensor was observable to the dependence obligation (its final
  value) although claims and `vsched run` ignore it.
"""
from __future__ import annotations

import pytest

from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program

ROWS = """
params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor y[N] f32
tensor s[1] f32 MEM
kernel rows {
  for i in 0 .. N {
    s[0] = 0.0
    for k in 0 .. K {
      s[0] += x[i, k]
    }
    y[i] = s[0]
  }
}
schedule rows {
  OP
}
"""


def _report(text: str, profile: str = "default"):
    (rep,) = verify_program(parse_text(text, "k.vs"), profile=profile, timeout=60.0)
    return rep


def _failed(rep):
    return [(o.kind, o.status, o.message) for o in rep.obligations if o.status != "proved"]


@pytest.mark.parametrize("profile", ["default", "reproducible"])
def test_two_accumulations_with_a_reset_between_are_not_one_reduction(profile):
    rep = _report(ROWS.replace("MEM", "local").replace("OP", "reverse i"), profile)
    assert rep.verdict == "legal", _failed(rep)
    (red,) = [o for o in rep.obligations if o.kind == "reassociation"]
    assert not red.reassociates and "no reduction is reordered" in red.message


def test_reordering_one_reduction_is_still_a_reassociation():
    rep = _report(ROWS.replace("MEM", "local").replace("OP", "reverse k"), "reproducible")
    assert rep.verdict == "illegal"
    assert [o.kind for o in rep.obligations if o.status == "refuted"] == ["reassociation"]


def test_scratch_final_value_is_not_observable_to_the_dependence_obligation():
    """Reversing the rows changes which row leaves its sum in the scratch s[0], which nothing
    compares: legal (it was unknown: refuted on the final value, then not shown by a run)."""
    rep = _report(ROWS.replace("MEM", "scratch").replace("OP", "reverse i"))
    assert rep.verdict == "legal", _failed(rep)


def test_global_final_value_stays_observable():
    rep = _report(ROWS.replace(" MEM", "").replace("OP", "reverse i"))
    assert rep.verdict == "illegal"
    (dep,) = [o for o in rep.obligations if o.kind == "dependence"]
    assert dep.status == "refuted"
