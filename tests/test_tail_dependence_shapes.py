"""Issue 25 item 3 (the fuzz campaign's tail): the dependence obligation and coverage on
kernels of many statements (an `unroll ... materialize` makes a copy of every statement per
iteration, a partition one per segment) ask isl and the IR walks once per shape instead of
once per pair of statements:

- kept.py pulls the after order's complement back only for after statements that stand for
  instances of the before statement (the other copies of its original relate none of its
  pairs), builds each complement once per after statement pair and each pulled-back piece
  once per pair of models (regression: fuzz example s4242/slow01 pulled 130,725
  complements back, one op's dependence ran out of isl operations);
- `order.pair_map` parses a statement pair's order constraint once per shape (arities and
  constraint text) and names the tuples: the same map as parsing the text, constraint for
  constraint (so the pieces of `dependences` and `before_on`, which findings sample, are
  the ones they were);
- coverage's skeletons are computed once per expression (a pure function) and `fold_where`
  is not walked over statements without a `where`.

Every answer is compared with the old computation (hypothesis, every family); work is
counted, never timed."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polyhedral import checks, coverage, kept, order
from polyhedral.memo import isl_map
from polyhedral.model import KernelModel
from verified_sched.core import budget
from verified_sched.core.errors import ScheduleError, VschedError
from verified_sched.dsl import parse_text
from verified_sched.fuzz.families import family_programs
from verified_sched.fuzz.schedules import applicable_schedule
from verified_sched.ops import apply_op
from verified_sched.ops.common import pin_provenance
from verified_sched.ops.fuzz_names import SHAPES

UNROLLED = """
params N where N >= 1
tensor x[N + 8] f32
kernel k {
  for i in 0 .. N {
    for j in 0 .. 4 {
      x[i + j] += 1.0
    }
  }
}
schedule k {
  unroll j materialize
  split i by 2 -> io, ii
}
"""


def _models(program, kernel: str, ops) -> list:
    cur = pin_provenance(program, kernel)
    out = []
    for op in ops:
        nxt = apply_op(cur, kernel, op)
        out.append((KernelModel(cur, kernel, tag="B"), KernelModel(nxt, kernel, tag="A")))
        cur = nxt
    return out


def _unrolled():
    prog = parse_text(UNROLLED, "u.vs")
    return _models(prog, "k", prog.schedule_for("k").ops)


def test_order_kept_pulls_back_only_the_copies_of_each_statement():
    (_, _), (mb, ma) = _unrolled()
    assert len(mb.stmts) == 4 and len(ma.stmts) == 4  # one copy per j, each of one original
    conf = checks._ordered_conflicts(mb)
    n_pieces = []
    conf.foreach_map(n_pieces.append)
    kept.STATS["pulled_back"] = 0
    assert kept.order_kept(mb, ma, conf) is True
    # one after statement stands for each before statement: at most one pull per piece (the
    # old loop pulled back every copy of the original for every piece: 4 x 4 per piece)
    assert 0 < kept.STATS["pulled_back"] <= len(n_pieces)
    # asked again (the obligation asks up to three relations of one pair of models): reused
    kept.STATS["pulled_back"] = 0
    assert kept.order_kept(mb, ma, conf) is True
    assert kept.STATS["pulled_back"] == 0


def test_pair_maps_parse_once_per_shape():
    _, (mb, _) = _unrolled()
    order.SHAPE_STATS.update(parsed=0, named=0)
    order._SHAPES.clear()
    mb.__dict__.pop("dependences", None)
    mb.dependences  # noqa: B018
    # 4 statements of one nest: 16 pairs, two order constraints between them
    assert order.SHAPE_STATS["named"] == 16 and order.SHAPE_STATS["parsed"] == 2


def test_skeletons_computed_once_per_expression():
    _, (mb, ma) = _unrolled()
    coverage._SKELETONS.clear()
    coverage.SKELETON_STATS["computed"] = 0
    assert checks.coverage(mb, ma, checks.idempotent_fn(ma)).status == "proved"
    first = coverage.SKELETON_STATS["computed"]
    mb2, ma2 = KernelModel(mb.program, "k", tag="B"), KernelModel(ma.program, "k", tag="A")
    assert checks.coverage(mb2, ma2, checks.idempotent_fn(ma2)).status == "proved"
    assert coverage.SKELETON_STATS["computed"] == first  # fresh models, the same expressions


def _old_pair_map(model, s, t, c):
    return isl_map(model.space(f"{model.tup(s, 'a')} -> {model.tup(t, 'b')} : {c}"))


def _old_skeleton(model, st_, dom=None):
    names = st_.names(model.pnames)
    leaves = []
    value = ("zero",) if st_.zero_like else coverage.skeleton_of(
        coverage.fold_where(model, st_, st_.node.value, dom), names, leaves)
    w = next(a for a in st_.accesses if a.write)
    idx = tuple(coverage.skeleton_of(e, names, leaves) for e in w.index)
    guards = tuple(coverage.skeleton_of(coverage.fold_where(model, st_, g, dom), names, leaves)
                   for g in st_.data_guards(model.pnames))
    return ("stmt", w.tensor, idx, value, guards), leaves


COMPARED: list = []


@settings(max_examples=5, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def _agree_with_the_old_computations(data):
    program = data.draw(family_programs(SHAPES))
    kernel = program.kernels[0].name
    try:
        ops = data.draw(applicable_schedule(program, kernel, max_ops=2, precondition_rate=0.0))
        pairs = _models(program, kernel, ops)
    except (ScheduleError, VschedError):
        return
    for mb, ma in pairs:
        with budget.scope(budget.now() + 60.0, 10**9):
            for m in (mb, ma):
                for s in m.stmts[:4]:
                    for t in m.stmts[:4]:
                        c = m.before_pair(s, t)
                        if c is not None:
                            new, old = order.pair_map(m, s, t, c), _old_pair_map(m, s, t, c)
                            assert new.is_equal(old) and str(new) == str(old)
                    assert coverage.skeleton(m, s) == _old_skeleton(m, s)
            conf = checks._ordered_conflicts(mb)
            fast = kept.order_kept(mb, ma, conf)
            if fast is not None:
                assert fast == checks._violated(mb, ma, conf).is_empty()
            COMPARED.append(fast)


def test_fast_paths_agree_with_the_old_computations():
    COMPARED.clear()
    _agree_with_the_old_computations()
    assert True in COMPARED
