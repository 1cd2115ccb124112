"""Hypothesis: random epilogue fusions after random schedule prefixes, with the tail's shape
check relaxed (`fuse(strict=False)`), so the semantic obligations alone decide: proved implies
equal runs (C and emulation, poisoned outputs); a refutation replays (the outputs differ at the
counterexample's sizes). The strict op never accepts what the relaxed one refutes."""
from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from codegen.build import load_c
from codegen.emulate import load_emulated
from verified_sched.oracle.compare import compare_kernels
from verified_sched.core.errors import ScheduleError
from verified_sched.ops import apply_op
from verified_sched.ops import fuse_epilogue as fe
from verified_sched.verify.driver import OpContext, op_obligations, own_obligations

from test_fuse_epilogue import dense

BODIES = ["max(c[p, q] + bias[q], 0)", "exp(c[p, q]) * 2", "y[p, q] + c[p, q]", "c[p, 0] + c[p, q]",
          "c[0, q] - c[p, q]", "c[p, q] - c[p, M - 1]", "c[N - 1, q]"]
PREFIXES = ["", "split j by 4 -> jo, ji", "split i by 2 -> io, ii",
            "split j by 8 -> jo, ji;interchange ji, k;privatize c over k -> c_acc",
            "split i by 3 -> io, ii;split j by 2 -> jo, ji;interchange ii, jo"]


def run_pair(program, after, sizes, seed=2):
    out = []
    for ref, cand in ((load_c(program).run, load_c(after).run),
                      (load_emulated(program, seed).run, load_emulated(after, seed, detect_races=True).run)):
        rep = compare_kernels(program, "dense", "dense", sizes, seed, runner_ref=ref, runner_cand=cand,
                              program_cand=after)
        assert not rep.vacuous
        out.append(rep.equal)
    return out


@settings(max_examples=14, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BODIES), st.sampled_from(PREFIXES))
def test_random_fuse(body, prefix):
    ops = (prefix + ";" if prefix else "") + "fuse_epilogue c"
    program = dense(body, ops=ops)
    sched = program.schedule_for("dense").ops
    before = program
    for op in sched[:-1]:
        before = apply_op(before, "dense", op)
    op = sched[-1]
    try:
        after = fe.fuse(before, "dense", op, strict=False)
    except ScheduleError as e:
        event("precondition")
        assert "fuse_epilogue" in e.message
        return
    ctx = OpContext(before, after, "dense", op, len(sched), "default", 10.0, float("inf"))
    obls = own_obligations(ctx) + op_obligations(ctx)
    statuses = {o.status for o in obls}
    assert "unknown" not in statuses, [o.message for o in obls if o.status == "unknown"]
    try:
        strict_ok = fe.fuse(before, "dense", op) is not None
    except ScheduleError:
        strict_ok = False
    if statuses == {"proved"}:
        event("legal" + (" (strict too)" if strict_ok else " (relaxed only)"))
        for sizes in ({"N": 3, "M": 5, "K": 2}, {"N": 2, "M": 9, "K": 3}):
            assert run_pair(program, after, sizes) == [True, True]
        return
    event("refuted")
    assert not strict_ok
    bad = [o for o in obls if o.status == "refuted"]
    assert {o.kind for o in bad} <= {"dependence", "coverage"}, [o.message for o in bad]
    sizes = bad[0].counterexample.sizes
    assert run_pair(program, after, sizes) == [False, False], (body, prefix, bad[0].message)
