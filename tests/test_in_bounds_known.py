"""Issue 25 ("Speed"): in_bounds builds the violations of an access once per text, not once per
op. The models of a schedule's ops restate every statement an op leaves alone under another
tuple name, so `checks.access_violations` keeps the accesses isl found within storage by the
texts they are stated by (statement name replaced) and answers them with the empty map. Only
empty answers are kept: an access outside storage is built and sampled every time. Work is
counted, not timed; the answers are compared with the violations built from scratch."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polyhedral import checks
from polyhedral.model import KernelModel
from verified_sched.dsl import parse_text
from verified_sched.ops import apply_op
from verified_sched.ops.common import pin_provenance
from verified_sched.verify.generic.in_bounds import in_bounds

ROWS = """
params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor y[N + PAD] f32
kernel rows {
  for i in 0 .. N {
    y[i + SHIFT] = 0.0
    for k in 0 .. K {
      y[i + SHIFT] += x[i, k]
    }
  }
}
schedule rows {
  split k by 4 -> ko, ki
  split i by 2 -> io, ii
}
"""


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(checks, "_IN_BOUNDS", {})
    monkeypatch.setattr(checks, "IN_BOUNDS_STATS", {"built": 0, "known": 0})
    return checks.IN_BOUNDS_STATS


def _program(pad=0, shift=0):
    return parse_text(ROWS.replace("PAD", str(pad)).replace("SHIFT", str(shift)), "k.vs")


def _after_models(prog, kernel="rows") -> list:
    """The kernel's own model, then the after model of every op of its schedule."""
    cur = pin_provenance(prog, kernel)
    out = [KernelModel(prog, kernel, tag="K")]
    for op in prog.schedule_for(kernel).ops:
        cur = apply_op(cur, kernel, op)
        out.append(KernelModel(cur, kernel, tag="A"))
        cur = pin_provenance(cur, kernel)
    return out


def _built(model, st_, acc):
    """The violations built from scratch (what access_violations did before it knew answers)."""
    m = model.access_map(st_, acc, storage_view=True, evaluated=True)
    return m.subtract_range(checks.tensor_box(model, acc.tensor, True))


def test_accesses_an_op_leaves_alone_are_not_built_again(fresh):
    models = _after_models(_program())
    for m in models:
        assert in_bounds(m, "after").status == "proved"
    # the kernel's 3 accesses of y and x (and the accumulator's read) are built once; the
    # split of k leaves y's zero store alone, the split of i restates none of them as they were
    assert fresh["known"] > 0
    assert fresh["built"] < sum(len(st_.accesses) for m in models for st_ in m.stmts)


def test_known_answers_agree_with_the_built_violations(fresh):
    for m in _after_models(_program()):
        for st_ in m.stmts:
            for acc in st_.accesses:
                assert checks.access_violations(m, st_, acc).is_empty() == _built(m, st_, acc).is_empty()


def test_out_of_storage_access_is_refuted_every_time(fresh):
    prog = _program(shift=1)  # y[i + 1] reaches y[N]: outside storage
    first = in_bounds(KernelModel(prog, "rows", tag="K"), "kernel")
    again = in_bounds(KernelModel(prog, "rows", tag="A"), "kernel")
    assert first.status == again.status == "refuted"
    assert first.message == again.message
    m = KernelModel(prog, "rows", tag="B")
    st_ = next(s for s in m.stmts if s.accesses[0].tensor == "y")
    assert checks._bounds_key(m, st_, st_.accesses[0]) not in checks._IN_BOUNDS  # noqa: SLF001 - the cache


def test_same_access_into_a_smaller_tensor_is_not_known(fresh):
    """The storage box is part of the key: y[i + 1] within y[N + 1] says nothing of y[N]."""
    assert in_bounds(KernelModel(_program(pad=1, shift=1), "rows", tag="K"), "kernel").status == "proved"
    assert in_bounds(KernelModel(_program(pad=0, shift=1), "rows", tag="K"), "kernel").status == "refuted"


def test_the_cache_starts_afresh_past_its_limit(fresh, monkeypatch):
    monkeypatch.setattr(checks, "IN_BOUNDS_LIMIT", 2)
    for m in _after_models(_program()):
        assert in_bounds(m, "after").status == "proved"
        assert len(checks._IN_BOUNDS) <= 2  # noqa: SLF001


ONE = """
params N where N >= 1
tensor y[N + PAD] f32
kernel k {
  for i in LO .. N + HI {
    if i >= G {
      y[A * i + B] = 1.0
    }
  }
}
"""


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pad=st.integers(0, 3), lo=st.integers(0, 2), hi=st.integers(-1, 2), g=st.integers(0, 3),
       a=st.integers(1, 2), b=st.integers(-2, 2), tags=st.lists(st.sampled_from("KAB"), min_size=2, max_size=3))
def test_known_answers_match_fresh_violations_on_drawn_accesses(fresh, pad, lo, hi, g, a, b, tags):
    """Every model of one access, under any tag, answers as its violations built afresh."""
    text = ONE.replace("PAD", str(pad)).replace("LO", str(lo)).replace("HI", str(hi)).replace("G", str(g))
    prog = parse_text(text.replace("A *", str(a) + " *").replace("+ B]", f"+ {b}]"), "k.vs")
    for tag in tags:
        m = KernelModel(prog, "k", tag=tag)
        for st_ in m.stmts:
            for acc in st_.accesses:
                assert checks.access_violations(m, st_, acc).is_empty() == _built(m, st_, acc).is_empty()


def test_only_the_statement_tuple_is_left_out_of_a_key():
    """memo.anonymous replaces the statement's tuple name, not a tensor tuple ending in it."""
    from polyhedral.memo import anonymous
    text = "[p0] -> { A_S1_0[i0] -> T_xA_S1_0[i0] : 0 <= i0 < p0 }"
    assert anonymous(text, "A_S1_0") == "[p0] -> { @[i0] -> T_xA_S1_0[i0] : 0 <= i0 < p0 }"
    assert anonymous(text, "S1_0") == text  # part of a longer name: kept
    assert anonymous(text, "A_S1_0") != anonymous(text.replace("T_xA_S1_0", "T_y"), "A_S1_0")
