"""Soundness by hypothesis: random affine nests with random op sequences.

Whenever the verdict is legal, the scheduled kernel runs equal to the unscheduled one at
sizes that satisfy the constraints (interpreter on random inputs; bitwise unless the report
says it reassociates). Whenever coverage or dependence is refuted, the counterexample replays:
the kernels before and after that op differ at those sizes on some input. Whenever in_bounds
is refuted, the index leaves storage there.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from verified_sched.core import ir
from verified_sched.core.errors import ScheduleError, VschedError
from verified_sched.ops import apply_op
from verified_sched.analysis.sizes import eval_int, example_sizes
from verified_sched.fuzz.strategies import programs
from verified_sched.verify.driver import verify_program
from test_ops_support import logical, run_interp


def outputs(program, kernel, sizes, seed):
    arrays = run_interp(program, kernel, sizes, seed)
    return {n: logical(program, n, a, sizes) for n, a in arrays.items()}


def differ(p1, p2, kernel, sizes, seeds=range(4)) -> bool:
    """Some input makes the kernels leave different observable state (or only one of them
    fails with an out-of-bounds access)."""
    for seed in seeds:
        a = outputs(p1, kernel, sizes, seed)
        try:
            b = outputs(p2, kernel, sizes, seed)
        except VschedError:
            return True
        if any(a[n].tobytes() != b[n].tobytes() for n in a):
            return True
    return False


def programs_after(program, kernel, ops):
    cur, out = program, [program]
    for op in ops:
        cur = apply_op(cur, kernel, op)
        out.append(cur)
    return out


def replays(program, report, kernel) -> bool:
    """Every refuted coverage/dependence/in_bounds obligation replays at its sizes."""
    sched = program.schedule_for(kernel)
    for o in report.obligations:
        if o.status != "refuted" or o.kind not in ("coverage", "dependence", "in_bounds") or o.op_index == 0:
            continue
        sizes = o.counterexample.sizes
        steps = programs_after(program, kernel, sched.ops[:o.op_index])
        if o.kind == "in_bounds":
            cell = o.counterexample.to_json()["cells"][0]
            t = steps[-1].tensor(cell["tensor"])
            dims = [eval_int(d, sizes) for d in t.storage_dims()]
            assert any(not 0 <= c < d for c, d in zip(cell["index"], dims)), o
        else:
            before, after = steps[-2], steps[-1]
            assume(_observable(o))
            try:
                outputs(before, kernel, sizes, 0)
            except VschedError:  # an earlier op already broke the kernel there (its own
                REPLAYED["before the op already fails there"] += 1  # refutation replays that)
                continue
            if differ(before, after, kernel, sizes, seeds=range(6)):
                REPLAYED["at the counterexample's sizes"] += 1
                continue
            # a violated order between stores that happen to be equal at those sizes: the
            # violation is real but shows only at other sizes (counted, reported)
            nearby = [{k: v + d for k, v in sizes.items()} for d in (1, 2, 3)]
            assert any(differ(before, after, kernel, s, seeds=range(6)) for s in nearby), (
                f"{o.kind} refutation does not replay: {o.message}")
            REPLAYED["at nearby sizes only"] += 1
    return True


REPLAYED = Counter()


def _observable(o) -> bool:
    """A violated order between two stores of the same constant changes nothing: skip those."""
    insts = o.counterexample.to_json().get("instances", [])
    if o.kind != "dependence" or len(insts) != 2:
        return True
    if o.counterexample.to_json().get("kind") == "WAW" and "reads" not in insts[0] and "reads" not in insts[1]:
        return False
    # two instances of one accumulation made unordered: the interpreter runs each iteration
    # atomically, so the lost update of a real race shows only as a reassociation
    same = insts[0]["stmt"] == insts[1]["stmt"] and insts[0]["writes"] == insts[1]["writes"]
    return not (same and "unordered" in o.counterexample.to_json()["order"]["after"])


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_legal_runs_equal_and_refutations_replay(data):
    program = data.draw(programs(max_tensors=2, max_loops=3, parallel=False, data_guards=False,
                                 schedule="loops", precisions=("f32",), pad=True))
    assume(program.schedules and program.schedules[0].ops)
    kernel = program.schedules[0].kernel
    try:
        programs_after(program, kernel, program.schedules[0].ops)
    except ScheduleError:
        assume(False)
    report = next(r for r in verify_program(program, timeout=20) if r.kernel == kernel)
    if report.verdict == "legal":
        final = programs_after(program, kernel, program.schedules[0].ops)[-1]
        for sizes in example_sizes(program, count=2):
            if report.reassociates:
                for seed in range(2):
                    a, b = outputs(program, kernel, sizes, seed), outputs(final, kernel, sizes, seed)
                    for n in a:
                        assert np.allclose(a[n], b[n], rtol=1e-4, atol=1e-4, equal_nan=True)
            else:
                assert not differ(program, final, kernel, sizes, seeds=range(2)), report.obligations
    else:
        replays(program, report, kernel)
