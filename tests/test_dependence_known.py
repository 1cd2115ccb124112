"""Issue 25 ("Speed"): the dependence obligation is decided once per pair of programs in a
process. A fuzz campaign verifies one program many times (about a third of its verifications
repeat an earlier program); `checks.dependence` keeps its decided answers by the IR of the two
models (programs, kernels, parameter constraints, tags) and hands out copies. Unknown answers
are decided again. Work is counted, not timed; known answers are compared with fresh ones."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polyhedral import checks
from polyhedral.model import KernelModel
from verified_sched.core import budget
from verified_sched.core.errors import ScheduleError, VschedError
from verified_sched.core.obligations import Decided
from verified_sched.dsl import parse_text
from verified_sched.fuzz.families import family_programs
from verified_sched.fuzz.schedules import applicable_schedule
from verified_sched.ops import apply_op
from verified_sched.ops.common import pin_provenance
from verified_sched.ops.fuzz_names import SHAPES

SUM = """
params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor y[N] f32
kernel rows {
  for i in 0 .. N {
    y[i] = 0.0
    for k in 0 .. K {
      y[i] += x[i, k]
    }
  }
}
schedule rows {
  OP
}
"""


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(checks._DEPENDENCE, "store", {})  # noqa: SLF001 - the kept answers
    monkeypatch.setattr(checks._DEPENDENCE, "stats", {"decided": 0, "known": 0})  # noqa: SLF001
    return checks._DEPENDENCE.stats  # noqa: SLF001


def _models(program, kernel: str, ops) -> list:
    cur = pin_provenance(program, kernel)
    out = []
    for op in ops:
        nxt = apply_op(cur, kernel, op)
        out.append((KernelModel(cur, kernel, tag="B"), KernelModel(nxt, kernel, tag="A")))
        cur = pin_provenance(nxt, kernel)
    return out


def _one(op_text: str):
    prog = parse_text(SUM.replace("OP", op_text), "k.vs")
    ((mb, ma),) = _models(prog, "rows", prog.schedule_for("rows").ops)
    return mb, ma


def _answers(pair) -> list:
    return [(d.status, d.message, d.reassociates) for d in pair]


def test_a_repeated_program_is_decided_once(fresh):
    first = checks.dependence(*_one("reverse k"), "reproducible")  # refuted: a reassociation
    again = checks.dependence(*_one("reverse k"), "reproducible")  # new models, equal programs
    assert fresh == {"decided": 1, "known": 1}
    assert _answers(first) == _answers(again) and first[1].status == "refuted"
    assert again[1].counterexample == first[1].counterexample


def test_other_programs_and_profiles_are_decided(fresh):
    checks.dependence(*_one("reverse k"), "reproducible")
    checks.dependence(*_one("reverse k"), "default")
    checks.dependence(*_one("split k by 4 -> ko, ki"), "reproducible")
    assert fresh == {"decided": 3, "known": 0}


def test_copies_are_handed_out(fresh):
    dep, _ = checks.dependence(*_one("split i by 4 -> io, ii"), "default")
    dep.statement = "changed by a caller"
    again, _ = checks.dependence(*_one("split i by 4 -> io, ii"), "default")
    assert again.statement != "changed by a caller" and fresh["known"] == 1


def test_unknown_answers_are_decided_again(fresh, monkeypatch):
    calls = []

    def unknown(before, after, profile):
        calls.append(1)
        return Decided("unknown", "not decided"), Decided("proved", "no reduction is reordered")
    monkeypatch.setattr(checks, "_dependence", unknown)
    for _ in range(2):
        checks.dependence(*_one("split i by 4 -> io, ii"), "default")
    assert len(calls) == 2 and fresh["known"] == 0


@settings(max_examples=12, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def _agrees_with_fresh_decisions(data):
    program = data.draw(family_programs(SHAPES))
    kernel = program.kernels[0].name
    try:
        ops = data.draw(applicable_schedule(program, kernel, max_ops=2, precondition_rate=0.0))
        pairs = _models(program, kernel, ops)
    except (ScheduleError, VschedError):
        return
    for mb, ma in pairs:
        with budget.scope(budget.now() + 60.0, 10**9):
            checks.dependence(mb, ma, "default")  # decided (or known from an earlier draw)
            known = checks.dependence(KernelModel(mb.program, kernel, tag="B"),
                                      KernelModel(ma.program, kernel, tag="A"), "default")
            afresh = checks._dependence(KernelModel(mb.program, kernel, tag="B"),  # noqa: SLF001
                                        KernelModel(ma.program, kernel, tag="A"), "default")
            assert _answers(known) == _answers(afresh)
            COMPARED.append(known[0].status)


COMPARED: list = []


def test_known_answers_agree_with_fresh_decisions(fresh):
    COMPARED.clear()
    _agrees_with_fresh_decisions()
    assert COMPARED and fresh["known"] >= len(COMPARED)
