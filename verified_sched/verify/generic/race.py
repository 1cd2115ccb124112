"""The `race` and `barrier_uniformity` goals of a kernel with hardware loops, as data.

race — formal statement (polyhedral/race.py): no two instances run by different hardware
threads conflict (one writes a cell the other accesses) unless a barrier phase of their block
orders them; threads of different blocks are never ordered. An `AllOf` of IslEmpty parts
(polyhedral/race.py `race_parts`): the exactly modelled conflicting pairs within a block and
across blocks (a sample is the refutation, with the threads and the barrier phase), then
those through data-dependent guards or indices (unknown).

barrier_uniformity: every barrier is reached by all threads of its block or by none
(polyhedral/phases.py decides it per barrier site: a procedure).
"""
from __future__ import annotations

from polyhedral import race as engine
from polyhedral.model import KernelModel
from ...core.obligations import AllOf, Goal, Procedure

STATEMENT = engine.STATEMENT
UNIFORMITY = engine.UNI_STATEMENT


def race_goal(model: KernelModel, label: str = "kernel") -> Goal:
    return Goal("race", STATEMENT, AllOf(lambda: engine.race_parts(model, label),
                                         lambda answers: engine.race_proved(model)))


def barrier_goal(model: KernelModel) -> Goal:
    # polyhedral/phases.py decides every barrier site in one pass over the phases (a procedure)
    return Goal("barrier_uniformity", UNIFORMITY, Procedure(lambda: engine.barrier_uniformity(model)))


def race(model: KernelModel, label: str = "kernel"):
    """The race goal discharged on its own (no deadline): its Obligation."""
    from ..discharge import discharge
    return discharge([race_goal(model, label)], 0.0)[0]
