"""Issue 25 ("Speed"): coverage decides a statement group once per text, not once per op. Each op
of a schedule asks again about every statement it leaves alone, under other tuple names, so
`coverage._cover_one` keeps the groups whose coverage held plainly (no note, nothing read of
the rest of the kernel) by what that answer reads of their statements (`_stmt_key`). Work is
counted, not timed; the answers are compared with those decided afresh on drawn schedules."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polyhedral import checks, coverage
from polyhedral.model import KernelModel
from verified_sched.core import budget
from verified_sched.core.errors import ScheduleError, VschedError
from verified_sched.dsl import parse_text
from verified_sched.fuzz.families import family_programs
from verified_sched.fuzz.schedules import applicable_schedule
from verified_sched.ops import apply_op
from verified_sched.ops.common import pin_provenance
from verified_sched.ops.fuzz_names import SHAPES

TWO = """
params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor y[N] f32
tensor z[K] f32
kernel k {
  for i in 0 .. N {
    y[i] = 0.0
    for k in 0 .. K {
      y[i] += x[i, k]
    }
  }
  for j in 0 .. K {
    z[j] = x[0, j] * 2.0
  }
}
schedule k {
  OPS
}
"""


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(coverage, "_COVERED", {})
    monkeypatch.setattr(coverage, "COVER_STATS", {"decided": 0, "known": 0})
    return coverage.COVER_STATS


def _models(program, kernel: str, ops) -> list:
    """(before, after) model pairs of every op of a schedule."""
    cur = pin_provenance(program, kernel)
    out = []
    for op in ops:
        nxt = apply_op(cur, kernel, op)
        out.append((KernelModel(cur, kernel, tag="B"), KernelModel(nxt, kernel, tag="A")))
        cur = pin_provenance(nxt, kernel)
    return out


def _pairs(ops_text: str) -> list:
    prog = parse_text(TWO.replace("OPS", ops_text), "k.vs")
    return _models(prog, "k", prog.schedule_for("k").ops)


def _coverage(mb, ma):
    return checks.coverage(mb, ma, checks.idempotent_fn(ma))


def test_statements_an_op_leaves_alone_are_not_decided_again(fresh):
    pairs = _pairs("split j by 4 -> jo, ji\n  split i by 2 -> io, ii\n  split k by 2 -> ko, ki")
    for mb, ma in pairs:
        assert _coverage(mb, ma).status == "proved"
    # three statements per op; ops 2 and 3 both leave the z statement as op 1 left it
    assert fresh["decided"] + fresh["known"] == 9
    assert fresh["known"] >= 1


def test_the_cache_starts_afresh_past_its_limit(fresh, monkeypatch):
    monkeypatch.setattr(coverage, "COVERED_LIMIT", 1)
    for mb, ma in _pairs("split j by 4 -> jo, ji\n  split i by 2 -> io, ii"):
        assert _coverage(mb, ma).status == "proved"
        assert len(coverage._COVERED) <= 1  # noqa: SLF001 - the cache itself


@settings(max_examples=12, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def _agrees_with_fresh_decisions(data):
    program = data.draw(family_programs(SHAPES))
    kernel = program.kernels[0].name
    try:
        ops = data.draw(applicable_schedule(program, kernel, max_ops=3, precondition_rate=0.0))
        pairs = _models(program, kernel, ops)
    except (ScheduleError, VschedError):
        return
    for mb, ma in pairs:
        with budget.scope(budget.now() + 60.0, 10**9):
            known = _coverage(mb, ma)
            saved = coverage._COVERED  # noqa: SLF001 - decided afresh: no answer known
            coverage._COVERED = {}  # noqa: SLF001
            try:
                afresh = _coverage(KernelModel(mb.program, kernel, tag="B"), KernelModel(ma.program, kernel, tag="A"))
            finally:
                coverage._COVERED = saved  # noqa: SLF001
            assert (known.status, known.message) == (afresh.status, afresh.message)
            COMPARED.append(known.status)


COMPARED: list = []


def test_known_answers_agree_with_fresh_decisions(fresh):
    COMPARED.clear()
    _agrees_with_fresh_decisions()
    assert COMPARED and coverage.COVER_STATS["known"] > 0


def test_a_repeated_program_pair_is_known_with_its_own_idempotence(monkeypatch):
    """checks.coverage keeps whole answers by the models' IR, only for the after model's own
    idempotence (`idempotent_fn`): another predicate is decided every time."""
    monkeypatch.setattr(checks._COVERAGE, "store", {})  # noqa: SLF001 - the kept answers
    monkeypatch.setattr(checks._COVERAGE, "stats", {"decided": 0, "known": 0})  # noqa: SLF001
    runs = [_pairs("split j by 4 -> jo, ji") for _ in range(2)]
    answers = [_coverage(mb, ma) for ((mb, ma),) in runs]
    assert checks._COVERAGE.stats == {"decided": 1, "known": 1}  # noqa: SLF001
    assert answers[0].message == answers[1].message and answers[0] is not answers[1]
    for ((mb, ma),) in runs:
        checks.coverage(mb, ma, lambda sid: False)
    assert checks._COVERAGE.stats == {"decided": 1, "known": 1}  # noqa: SLF001
