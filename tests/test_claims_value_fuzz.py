"""Soundness of claims decided by value, by hypothesis: random affine nests with random
schedules, claimed equal to their unscheduled form (on generated programs).

A proved claim runs equal in the interpreter at sizes that satisfy the constraints (bitwise
unless it reassociates); a refuted claim's counterexample shows a difference at its sizes
(or, when the values that differ happen to coincide there, at nearby sizes).
"""
from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from verified_sched.core import ir
from verified_sched.core.errors import ScheduleError
from verified_sched.interp.scalar import KernelError
from verified_sched.ops import apply_op
from verified_sched.analysis.sizes import example_sizes
from verified_sched.fuzz.strategies import programs
from verified_sched.verify.driver import kernel_obligations, verify_claim
from test_ops_support import logical, run_interp

SEEN = Counter()


def claim_program(program):
    kernel = program.schedules[0].kernel
    out = program
    for op in program.schedules[0].ops:
        out = apply_op(out, kernel, op)
    orig = dataclasses.replace(program.kernel(kernel), name=kernel + "_original")
    claim = ir.Claim(kernel, kernel + "_original")
    return dataclasses.replace(out, kernels=out.kernels + (orig,), schedules=(), claims=(claim,)), claim


class OutOfBounds(Exception):
    pass


def outputs(program, kernel, sizes, seed):
    try:
        arrays = run_interp(program, kernel, sizes, seed)
    except KernelError as exc:  # the kernel's own in_bounds obligation refutes it
        raise OutOfBounds(str(exc)) from None
    return {n: logical(program, n, a, sizes) for n, a in arrays.items()
            if program.tensor(n).memory == "global"}


def differ(program, claim, sizes, seeds=range(4)) -> bool:
    for seed in seeds:
        a, b = outputs(program, claim.a, sizes, seed), outputs(program, claim.b, sizes, seed)
        if any(a[n].tobytes() != b[n].tobytes() for n in a):
            return True
    return False


def race_free(program, claim) -> bool:
    """A claim is about kernels whose own obligations hold (independence of their parallel
    loops, in_bounds): the verifier reports those next to the claim."""
    return all(o.status == "proved" for k in (claim.a, claim.b)
               for o in kernel_obligations(program, k, float("inf")))


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), parallel=st.booleans())
def test_proved_claims_run_equal_and_refuted_claims_replay(data, parallel):
    program = data.draw(programs(max_tensors=2, max_loops=3, parallel=parallel, data_guards=parallel,
                                 schedule="loops", precisions=("f32", "i32") if parallel else ("f32",), pad=True))
    assume(program.schedules and program.schedules[0].ops)
    try:
        cp, claim = claim_program(program)
    except ScheduleError:
        assume(False)
    assume(race_free(cp, claim))
    report = verify_claim(cp, claim, program.profile or "default", 20.0)
    SEEN[report.verdict] += 1
    try:
        check(cp, claim, report)
    except OutOfBounds:
        assume(False)


def check(cp, claim, report):
    if report.verdict == "legal":
        for sizes in example_sizes(cp, count=2):
            if report.reassociates:
                for seed in range(2):
                    a, b = outputs(cp, claim.a, sizes, seed), outputs(cp, claim.b, sizes, seed)
                    for n in a:
                        assert np.allclose(a[n], b[n], rtol=1e-4, atol=1e-4, equal_nan=True)
            else:
                assert not differ(cp, claim, sizes, seeds=range(2)), (report.obligations, cp)
    elif report.verdict == "illegal":
        o = next(o for o in report.obligations if o.status == "refuted")
        if o.kind == "reassociation":
            return  # a refused reordering: equal up to rounding, by design
        sizes = o.counterexample.sizes
        if not differ(cp, claim, sizes, seeds=range(6)):
            nearby = [{k: v + d for k, v in sizes.items()} for d in (1, 2, 3)]
            assert any(differ(cp, claim, s, seeds=range(6)) for s in nearby), (o.message, cp)
