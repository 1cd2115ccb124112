"""Hypothesis: random block/thread retypes (after an optional split) of small matmul-like and
stencil-like nests. A legal verdict implies the emulated kernel (race detector on, several
thread orders) equals the unscheduled serial C; a refuted race replays under the detector at
the counterexample's sizes."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from codegen.build import load_c
from verified_sched.core.dtypes import storage_shape
from codegen.emulate import RaceError, load_emulated
from verified_sched.verify.generic.race import race as race_check
from polyhedral.model import KernelModel
from support.phases_brute import simulate
from verified_sched.dsl import parse_text
from verified_sched.core.errors import ScheduleError
from verified_sched.ops import apply_op
from verified_sched.verify.driver import verify_program

NESTS = {
    "matmul": ("""params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
kernel k { for i in 0 .. N { for j in 0 .. M { for l in 0 .. K { c[i, j] += a[i, l] * b[l, j] } } } }
""", ("i", "j", "l")),
    "stencil": ("""params N, M where N >= 1, M >= 1
tensor x[N + 1, M + 2] f32
tensor y[N, M] f32
kernel k { for i in 0 .. N { for j in 0 .. M { y[i, j] = x[i, j + 1] + 0.5 * x[i + 1, j] - x[i, j + 2] } } }
""", ("i", "j")),
    "recurrence": ("""params N, M where N >= 2, M >= 1
tensor x[N, M] f32
tensor y[N, M] f32
kernel k { for i in 0 .. N - 1 { for j in 0 .. M { y[i + 1, j] = y[i, j] + x[i, j] } } }
""", ("i", "j")),
}
AXES = ("block.x", "block.y", "thread.x", "thread.y")


@st.composite
def scheduled(draw):
    name = draw(st.sampled_from(sorted(NESTS)))
    text, loops = NESTS[name]
    ops, names = [], list(loops)
    if draw(st.booleans()):
        v = draw(st.sampled_from(loops))
        f = draw(st.sampled_from([2, 3, 4]))
        ops.append(f"split {v} by {f} -> {v}o, {v}i")
        names = [n for n in names if n != v] + [f"{v}o", f"{v}i"]
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
    axes = draw(st.permutations(AXES))
    ops += [f"retype {v} as {ax}" for v, ax in zip(chosen, axes)]
    return text + "schedule k {\n  " + "\n  ".join(ops) + "\n}\n"


def _arrays(program, sizes, seed):
    rng = np.random.default_rng(seed)
    return {t.name: rng.integers(-4, 5, storage_shape(t, sizes)).astype(np.float32)
            for t in program.tensors if t.memory == "global"}


def _after(program):
    p = program
    for op in program.schedule_for("k").ops:
        try:
            p = apply_op(p, "k", op)
        except ScheduleError:
            assume(False)
    return p


@settings(max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(scheduled(), st.integers(1, 5), st.integers(1, 5), st.integers(1, 4))
def test_retyped_nests(text, n, m, kk):
    program = parse_text(text)
    after = _after(program)
    reports = verify_program(program, timeout=20.0)
    r = race_check(KernelModel(after, "k"))
    assert r.status in ("proved", "refuted"), r.message
    legal = all(rep.verdict == "legal" for rep in reports) and r.status == "proved"
    event(f"legal={legal} race={r.status}")
    sizes = {p: v for p, v in zip(program.params, (max(n, 2), m, kk))}
    sim = simulate(after, "k", sizes)  # brute-force GPU semantics at these sizes
    assert not (sim.race and r.status == "proved"), sim.races[:2]
    if r.status == "refuted":
        assert simulate(after, "k", r.counterexample.sizes).race
    if legal:
        sizes = {p: v for p, v in zip(program.params, (max(n, 2), m, kk))}
        ref = _arrays(program, sizes, 1)
        load_c(program, kernels=["k"]).run("k", sizes, ref)
        for seed in (0, 1, 2):
            arrays = _arrays(program, sizes, 1)
            load_emulated(after, seed, detect_races=True, kernels=["k"]).run("k", sizes, arrays)
            for t in ref:
                np.testing.assert_array_equal(arrays[t], ref[t])
    if r.status == "refuted":
        cex = r.counterexample.to_json()
        with pytest.raises(RaceError) as info:
            load_emulated(after, 0, detect_races=True, kernels=["k"]).run("k", cex["params"],
                                                                        _arrays(program, cex["params"], 0))
        assert info.value.tensor in {c["tensor"] for c in cex["cells"]}
