"""z3 helpers: a solver that always has a timeout, and models turned into plain dicts.

`decide(facts, goal)` proves `facts => goal` by asking for a model of `facts and not goal`:
unsat = proved, sat = refuted (the model is the counterexample), unknown = unknown (never
proved). Witnesses are stated explicitly; no quantifiers are introduced here.
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from verified_sched.core import budget


@dataclass
class Decision:
    status: str  # proved | refuted | unknown
    model: dict | None = None
    reason: str = ""


def solver(timeout: float = budget.DEFAULT_TIMEOUT) -> z3.Solver:
    """A fresh solver whose every check gives up after `timeout` seconds, or sooner when the
    deadline of the obligation being decided comes first (verified_sched.core.budget)."""
    s = z3.Solver()
    s.set("timeout", budget.z3_timeout_ms(timeout))
    return s


def model_dict(model: z3.ModelRef, names=None) -> dict:
    """{name: python int/float/bool} for the model's constants (or just `names`); a bit-vector
    is its unsigned value."""
    out = {}
    for d in model.decls():
        if d.arity() != 0 or (names is not None and d.name() not in names):
            continue
        v = model[d]
        if z3.is_int_value(v) or z3.is_bv_value(v):
            out[d.name()] = v.as_long()
        elif z3.is_rational_value(v):
            out[d.name()] = float(v.as_fraction())
        elif z3.is_true(v) or z3.is_false(v):
            out[d.name()] = z3.is_true(v)
        else:
            out[d.name()] = str(v)
    return out


def decide(facts, goal, timeout: float = budget.DEFAULT_TIMEOUT) -> Decision:
    """Prove `And(facts) => goal` (z3 with a timeout)."""
    s = solver(timeout)
    s.add(*facts)
    s.add(z3.Not(goal))
    r = s.check()
    if r == z3.unsat:
        return Decision("proved")
    if r == z3.sat:
        return Decision("refuted", model_dict(s.model()))
    return Decision("unknown", None, budget.z3_unknown(s.reason_unknown()))
