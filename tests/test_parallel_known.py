"""Issue 25 ("Speed"): a fuzz campaign verifies one program many times. The race of a model and
the independence of its parallel loops, once isl found every part empty, are known for models
of equal IR (memo.model_key) and not built again; a racy or dependent loop is built and
sampled every time. Work is counted (the stores), not timed."""
from __future__ import annotations

import pytest

from polyhedral import checks, race
from polyhedral.model import KernelModel
from verified_sched.dsl import parse_text
from verified_sched.verify.generic.independence import independence
from verified_sched.verify.generic.race import race as race_check

COPY = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N : AXIS {
    y[TARGET] = x[i] * 2.0
  }
}
"""


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(race, "_RACE_FREE", {})
    monkeypatch.setattr(checks, "_INDEPENDENT", {})


def _model(axis: str, target: str = "i") -> KernelModel:
    return KernelModel(parse_text(COPY.replace("AXIS", axis).replace("TARGET", target), "k.vs"), "k", tag="K")


def test_a_race_free_model_is_known_for_equal_ir(fresh, monkeypatch):
    first = race_check(_model("block.x"))
    assert first.status == "proved" and len(race._RACE_FREE) == 1  # noqa: SLF001 - the store
    built = []
    monkeypatch.setattr(race, "phases_of", lambda m: built.append(m) or race.Phases(m))
    again = race_check(_model("block.x"))  # a new model of an equal program
    assert (again.status, again.message) == (first.status, first.message)
    assert len(built) == 1  # race_proved counts the barriers: no race pairs were built


def test_a_racy_model_is_sampled_every_time(fresh):
    answers = [race_check(_model("block.x", "0")) for _ in range(2)]  # every block writes y[0]
    assert [a.status for a in answers] == ["refuted", "refuted"]
    assert answers[0].message == answers[1].message and not race._RACE_FREE  # noqa: SLF001


def _loop(model):
    ((loop, inside, depth),) = checks.parallel_loops(model)
    return loop, inside, depth


def test_an_independent_loop_is_known_for_equal_ir(fresh):
    first = independence(_model("vectorized"), *_loop(_model("vectorized")), "kernel")
    m = _model("vectorized")
    sure, may, _ = checks.independence_sets(m, *_loop(m))
    assert first.status == "proved" and sure.is_empty() and may.is_empty()
    assert "conflicts" not in m.__dict__  # known: nothing built


def test_a_dependent_loop_is_built_every_time(fresh):
    answers = []
    for _ in range(2):
        m = _model("vectorized", "0")
        answers.append(independence(m, *_loop(m), "kernel"))
        assert "conflicts" in m.__dict__
    assert [a.status for a in answers] == ["refuted", "refuted"] and answers[0].message == answers[1].message
    assert not checks._INDEPENDENT  # noqa: SLF001 - the store
