"""The winograd op as goals (issue 11): one obligations.Goal per obligation, each decided, budgeted
and timed on its own by verified_sched.verify.discharge; and the op hooks other modules ask through the
registry instead of naming the op (`exact_at` for `vsched run`, `claim_goals` for claims)."""
from __future__ import annotations

import dataclasses
import time

from verified_sched.core import budget
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.obligations import AllOf, Decided, Goal, IslEmpty, Procedure, Z3Implies
from verified_sched.ops import apply_op, op_goals, reverse
from verified_sched.ops import registry, winograd
from verified_sched.verify.driver import OpContext, own_obligations, verify_program

from conftest import REPO_ROOT


def _context(path, deadline=float("inf")) -> OpContext:
    program = parse_file(str(path))
    (op,) = program.schedules[0].ops
    after = apply_op(program, "conv", op)
    return OpContext(program, after, "conv", op, 1, program.profile or "default", budget.DEFAULT_TIMEOUT, deadline)


def test_one_goal_per_obligation_each_timed_on_its_own():
    """Regression (the op's goals were one Procedure returning (kind, Decided) pairs, whose time
    `discharge` split evenly among them): every goal is one obligation with its own time."""
    ctx = _context(REPO_ROOT / "examples" / "winograd_exact.vs")
    goals = op_goals(ctx)
    assert all(isinstance(g, Goal) for g in goals)
    kinds = [g.kind for g in goals]
    assert kinds == ["profile", "coverage", "in_bounds", "in_bounds"] + ["equivalence"] * 4 + ["exactness"]
    # the identity per tile position is a z3 facts-imply-goal query, the profile a known answer
    assert [type(g.query) for g in goals if g.kind == "equivalence"] == [Z3Implies] * 4
    assert isinstance(goals[0].query, Decided)
    assert all(isinstance(g.query, AllOf) for g in goals if g.kind in ("coverage", "in_bounds"))
    assert isinstance(goals[-1].query, Procedure)  # exactness: several z3 queries per bound
    obs = own_obligations(ctx)
    assert [o.kind for o in obs] == kinds and all(o.status == "proved" for o in obs)
    assert len({o.seconds for o in obs}) == len(obs)  # one time each, not an even split
    assert all(o.statement for o in obs)


def test_identity_goals_state_each_tile_position():
    ctx = _context(REPO_ROOT / "tests" / "cases" / "winograd_odd.vs")
    obs = [o for o in own_obligations(ctx) if o.kind == "equivalence"]
    assert [o.message for o in obs] == [f"transform identity at tile position ({p}, {q}) holds over the reals"
                                        for p in range(2) for q in range(2)]
    assert all(o.engine == "z3" for o in obs)


def test_goals_past_the_deadline_are_unknown_not_proved():
    ctx = _context(REPO_ROOT / "tests" / "cases" / "winograd_odd.vs")
    goals = op_goals(ctx)
    from verified_sched.verify.discharge import discharge
    obs = discharge(goals, time.perf_counter() - 1.0, 1, "winograd")
    assert len(obs) == len(goals)
    assert all(o.status == "unknown" and budget.DEADLINE in o.message for o in obs)


# ---------------------------------------------------------------- hooks

REVERSED = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k { for i in 0 .. N { y[i] = 2.0 * x[i] } }
kernel r { for i in 0 .. N { y[N - 1 - i] = 2.0 * x[N - 1 - i] } }
schedule k { reverse i }
"""


def test_run_asks_the_exact_at_hook_of_the_schedules_ops(monkeypatch):
    """cli's bitwise choice asks the op modules of the kernel's schedule (no op named in cli/__init__.py)."""
    from verified_sched import cli

    calls = []

    def hook(program, kernel, sizes, inputs):
        calls.append((kernel, sizes, inputs))
        return True
    program = parse_text(REVERSED)
    assert not cli._exact_at(program, "k", {"N": 3}, "small-int")  # no op module declares the hook
    monkeypatch.setattr(reverse, "SPEC", dataclasses.replace(reverse.SPEC, exact_at=hook))
    assert cli._exact_at(program, "k", {"N": 3}, "small-int")
    assert calls == [("k", {"N": 3}, "small-int")]
    assert not cli._exact_at(program, "r", {"N": 3}, "small-int")  # r has no schedule
    assert winograd.SPEC.exact_at is winograd.exact_at


def test_winograd_exact_at_hook(cases_dir):
    p = parse_file(str(cases_dir / "winograd_odd.vs"))
    assert winograd.exact_at(p, "conv", dict(N=1, OH=5, OW=7, C=809, F=2), "small-int") is True
    assert winograd.exact_at(p, "conv", dict(N=1, OH=5, OW=7, C=810, F=2), "small-int") is False
    assert winograd.exact_at(p, "conv", dict(N=1, OH=5, OW=7, C=3, F=2), "random") is False  # no ranges declared


def test_claims_ask_the_claim_goals_hook(monkeypatch):
    """verify_claim discharges the goals of the op module whose hook recognises the pair; with
    none, the value comparison decides."""
    text = REVERSED + "claim k == r\n"
    (claim, *_), = [verify_program(parse_text(text))]
    assert claim.kernel == "k == r" and claim.verdict == "legal"
    assert claim.obligations[0].kind == "equivalence" and claim.obligations[0].engine == "isl"
    assert not [o for o in claim.obligations if o.message == "hooked"]
    seen = []

    def hook(program, a, b, profile, timeout):
        seen.append((a, b, profile))
        return [Goal("equivalence", "r is k reversed", Decided("proved", "hooked", engine="structural"))]
    monkeypatch.setattr(reverse, "SPEC", dataclasses.replace(reverse.SPEC, claim_goals=hook))
    monkeypatch.setattr(registry, "SPECS", tuple(m.SPEC for m in registry.MODULES))
    claim = verify_program(parse_text(text))[0]
    assert seen == [("k", "r", "default")]
    assert [(o.kind, o.status, o.message, o.op) for o in claim.obligations] == \
        [("equivalence", "proved", "hooked", "claim k == r")]


def test_coverage_and_bounds_are_isl_emptiness_queries():
    """coverage and in_bounds are conjunctions of isl emptiness queries (plus a procedure per
    strip for coverage's provenance part): the sample of a violated one is the counterexample."""
    from verified_sched.verify.discharge import answer

    ctx = _context(REPO_ROOT / "tests" / "cases" / "winograd_odd.vs")
    goals = [g for g in op_goals(ctx) if g.kind in ("coverage", "in_bounds")]
    parts = [g.query.parts() for g in goals]
    assert [len(p) > 0 and all(isinstance(q, IslEmpty) for q in p) for p in parts[1:]] == [True, True]
    kinds = [type(q) for q in parts[0]]
    assert kinds.count(Procedure) == 2 and set(kinds) == {IslEmpty, Procedure}  # the two strips
    assert [answer(g.query).status for g in goals] == ["proved"] * 3
    assert answer(goals[1].query).message.endswith("distinct accesses of the replacement are in bounds")
