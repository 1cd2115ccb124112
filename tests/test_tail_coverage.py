"""Issue 25 item 3 (the campaign's tail): coverage's extra-instance check asks isl cheaper
questions with the same answers. `_rewrites_equal` (are the never-overwritten stores of
instances without an original rewrites of what an original stores?) joins the writes of
the instances in question only, over the equal-value pairs of their own statement, instead
of every write of the kernel with every other (an isl join of the whole kernel, seconds on
fuzz kernels of many statements). The answer (a subset test) is the same: the tests compare
it with the old whole-kernel formula, and count the work (value maps built)."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyhedral import coverage as cov
from polyhedral.model import KernelModel
from polyhedral.order import before_on
from verified_sched.dsl import parse_text
from verified_sched.ops import apply_op
from verified_sched.ops.common import pin_provenance

ROOT = Path(__file__).resolve().parent

# a predicated tail (extra instances add +0 / rewrite stores) and a shift_inward tail
# (recomputed lanes store what an original stores): both reach _rewrites_equal
TAIL = """
params N where N >= 1
tensor x[N + 8] f32
tensor y[N + 8] f32
kernel k {
  for i in 0 .. N {
    y[i] = x[i] * 2.0
  }
  for j in 0 .. N {
    y[j + 1] = max(y[j + 1], x[j])
  }
  for k in 0 .. N {
    y[N] = x[0]
  }
}
schedule k {
  OP
}
"""

OPS = ["split i by 4 -> io, ii tail=predicate_loads", "split i by 4 -> io, ii tail=shift_inward",
       "split i by 3 -> io, ii tail=predicate_loads partition=serialize_edges",
       "split j by 4 -> jo, ji tail=shift_inward", "split k by 4 -> ko, ki tail=round_up",
       "split k by 4 -> ko, ki tail=shift_inward"]


def _models(text: str, k: int = 0):
    prog = parse_text(text, "t.vs")
    kern = next(kk.name for kk in prog.kernels if prog.schedule_for(kk.name))
    ops = prog.schedule_for(kern).ops
    cur = prog
    for op in ops[:k]:
        cur = apply_op(pin_provenance(cur, kern), kern, op)
    before = pin_provenance(cur, kern)
    after = apply_op(before, kern, ops[k])
    return KernelModel(before, kern, tag="B"), KernelModel(after, kern, tag="A")


def _old_rewrites_equal(after, ext, bad_dom) -> bool:
    """The formula before: every write of the kernel joined with every other."""
    eq = cov.equal_stores(after, any_statement=True)
    w = after.writes
    same_cell = w.apply_range(w.reverse()).intersect(eq)
    others = after.domain.subtract(ext)
    covered = same_cell.intersect_range(others).domain()
    return bad_dom.is_subset(covered)


def _extra_cases(mb, ma):
    """(sid, ext, others, final) of every statement with extra instances (as _extra_instances
    builds them; `final` without the observable-cell restriction too, for more cases)."""
    for sid in dict.fromkeys(s.sid for s in ma.stmts):
        sb, sa = [s for s in mb.stmts if s.sid == sid], [s for s in ma.stmts if s.sid == sid]
        if not sb or not sa:
            continue
        pb = mb.union_map(mb.prov_map(s) for s in sb)
        pa = ma.union_map(ma.prov_map(s) for s in sa)
        extra = pa.range().subtract(pb.range())
        if extra.is_empty():
            continue
        ext = pa.intersect_range(extra).domain()
        others = ma.domain.subtract(ext)
        we = ma.writes.intersect_domain(ext)
        wo = ma.writes.intersect_domain(others)
        same_cell = we.apply_range(wo.reverse())
        killed = same_cell.intersect(before_on(ma, same_cell)).domain()
        for bad in (we.domain().subtract(killed), we.domain(), ext):
            yield sid, ext, others, bad


def _fixture_texts():
    for p in sorted((ROOT / "fixtures" / "fuzz").glob("*predicate_loads*coverage.vs")):
        yield p.read_text()


@pytest.mark.parametrize("op", OPS)
def test_rewrites_equal_answers_as_the_whole_kernel_join(op):
    mb, ma = _models(TAIL.replace("OP", op))
    seen = []
    for sid, ext, others, bad in _extra_cases(mb, ma):
        seen.append(cov._rewrites_equal(ma, sid, others, bad))
        assert seen[-1] == _old_rewrites_equal(ma, ext, bad), (op, sid)
    assert seen  # the op has extra instances
    ANSWERS.update(seen)


ANSWERS = set()


def test_both_answers_were_compared():
    assert ANSWERS == {True, False}


def test_rewrites_equal_answers_as_before_on_fuzz_fixtures():
    n = 0
    for text in _fixture_texts():
        mb, ma = _models(text)
        for sid, ext, others, bad in _extra_cases(mb, ma):
            assert cov._rewrites_equal(ma, sid, others, bad) == _old_rewrites_equal(ma, ext, bad), sid
            n += 1
    assert n > 0


def test_equal_stores_builds_each_value_map_once(monkeypatch):
    """equal_stores asked value_map for every pair of statements of one sid (n^2 skeletons)."""
    calls = []
    real = cov.value_map
    monkeypatch.setattr(cov, "value_map", lambda m, st: calls.append(st.name) or real(m, st))
    _, ma = _models(TAIL.replace("OP", OPS[0]))
    cov.equal_stores(ma, any_statement=True)
    assert len(calls) == len(set(calls)) == len(ma.stmts)
    calls.clear()
    sid = ma.stmts[0].sid
    cov.equal_stores(ma, any_statement=True, sid=sid)
    assert set(calls) == {s.name for s in ma.stmts if s.sid == sid}


def test_equal_stores_of_one_sid_is_the_part_of_every_sid():
    _, ma = _models(TAIL.replace("OP", OPS[1]))
    every = cov.equal_stores(ma, any_statement=True)
    for sid in {s.sid for s in ma.stmts}:
        names = [s.name for s in ma.stmts if s.sid == sid]
        dom = isl.UnionSet.from_set(ma.domains[names[0]])
        for n in names[1:]:
            dom = dom.union(isl.UnionSet.from_set(ma.domains[n]))
        assert cov.equal_stores(ma, any_statement=True, sid=sid).is_equal(every.intersect_domain(dom))


# ---------------------------------------------------------------- bounded isl calls


def test_bounded_answers_as_the_call_in_process():
    from polyhedral import bounded as bd
    from verified_sched.core import budget

    s = isl.Set("[n] -> { [i, j] : 0 <= i < n and 0 <= j < i and n <= 9 }")

    def pt():
        return cov.coords(s.subtract(isl.Set("[n] -> { [i, j] : j < 3 }")).sample_point())
    here = pt()
    n = len(bd.FORKS)
    with budget.scope(budget.now() + 600):
        assert bd.bounded(pt) == here
        assert bd.bounded(pt, worth_it=False) == here
    assert len(bd.FORKS) == n + 1  # only the call worth it forked
    assert bd.bounded(pt) == here and len(bd.FORKS) == n + 1  # no deadline: runs here


def test_bounded_call_stops_at_the_deadline_and_is_unknown():
    import time

    from polyhedral import bounded as bd
    from verified_sched.core import budget

    def forever():
        time.sleep(600)
    with budget.scope(budget.now() + 0.3):
        with pytest.raises(isl.Error) as exc:
            bd.bounded(forever)
        assert budget.unknown_reason(exc.value).startswith("deadline")
    with budget.scope(budget.now() + 600, max_operations=1000):
        with pytest.raises(isl.Error) as exc:  # the child's quota: the parent's unknown reason
            bd.bounded(lambda: isl.Set("[n] -> { [i, j, k] : 0 <= i, j, k < n and i + j + k = 2n }").coalesce()
                       .compute_divs().lexmin().sample_point() if _spin() else None)
        assert "isl operation budget exhausted" in budget.unknown_reason(exc.value)


def _spin():
    s = isl.Set("[n] -> { [i, j, k, l] : 0 <= i, j, k, l < n }")
    for _ in range(10_000):
        s = s.subtract(isl.Set("[n] -> { [i, j, k, l] : i + 2j = 3k + l + n }"))
    return True


PADDED = """
params N where N >= 1
tensor x[N + 4] f32
tensor t[N] f32 pad(4)
tensor y[1] f32
kernel k {
  for j in 0 .. N {
    t[j] = x[j]
  }
  for i in 0 .. N + 4 {
    y[0] = max(y[0], t[i])
  }
}
schedule k {
  split j by 4 -> jo, ji tail=round_up
}
"""


def test_extra_instances_refutation_is_the_same_when_bounded(monkeypatch):
    """The harmful-read check forks past FORK_PIECES; forked or not, the same refutation."""
    from polyhedral import bounded as bd
    from verified_sched.core import budget

    mb, ma = _models(PADDED)
    outs = []
    for pieces in (10**9, -1):
        monkeypatch.setattr(cov, "FORK_PIECES", pieces)
        n = len(bd.FORKS)
        with budget.scope(budget.now() + 600):
            outs.append(cov.coverage(mb, ma, cov.idempotent_fn(ma)))
        outs.append(len(bd.FORKS) - n)
    assert outs[0] == outs[2] and outs[0].status == "refuted" and "may read" in outs[0].message, outs[0]
    assert (outs[1], outs[3]) == (0, 1)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(loop=st.sampled_from(["i", "j", "k"]), factor=st.integers(2, 5),
       tail=st.sampled_from(["predicate_loads", "round_up", "shift_inward", "predicate_loads partition=always"]))
def test_rewrites_equal_hypothesis_split_tails(loop, factor, tail):
    """Random split tails of the three statements: the restricted join answers as the old one."""
    op = f"split {loop} by {factor} -> {loop}o, {loop}i tail={tail}"
    mb, ma = _models(TAIL.replace("OP", op))
    for sid, ext, others, bad in _extra_cases(mb, ma):
        assert cov._rewrites_equal(ma, sid, others, bad) == _old_rewrites_equal(ma, ext, bad), (op, sid)
