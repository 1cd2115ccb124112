"""Property test of the emulator and its race detector on random hardware retypes of a
matmul-like nest: a parallel reduction loop always shows a race under the detector; any other
retype runs race-free and equals the C backend (which runs hardware loops as serial loops, one
valid interleaving of a barrier-free kernel)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.build import load_c
from codegen.emulate import RaceError, load_emulated
from verified_sched.oracle.compare import compare_kernels, poison, random_inputs, written
from verified_sched.dsl import parse_text

AXES = ("serial", "block.x", "block.y", "thread.x", "thread.y")

TEMPLATE = """
params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
kernel k {{
  zero c
{nest}
}}
"""


@st.composite
def retyped(draw):
    order = draw(st.permutations(["i", "j", "k"]))
    axes = {}
    used = set()
    for v in order:
        axis = draw(st.sampled_from([a for a in AXES if a == "serial" or a not in used]))
        used.add(axis)
        axes[v] = axis
    body = draw(st.sampled_from(["c[i, j] += a[i, k] * b[k, j]", "c[i, j] = a[i, k] + b[k, j]"]))
    sizes = {"N": draw(st.integers(1, 4)), "M": draw(st.integers(1, 4)), "K": draw(st.integers(1, 4))}
    ext = {"i": "N", "j": "M", "k": "K"}
    lines, depth = [], 1
    for v in order:
        lines.append("  " * depth + f"for {v} in 0 .. {ext[v]} : {axes[v]} {{")
        depth += 1
    lines.append("  " * depth + body)
    for _ in order:
        depth -= 1
        lines.append("  " * depth + "}")
    return TEMPLATE.format(nest="\n".join(lines)), axes, sizes


@settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(retyped(), st.integers(0, 4))
def test_retyped_nests_race_or_agree(case, seed):
    text, axes, sizes = case
    program = parse_text(text, "fuzz.vs")
    racy = axes["k"] != "serial" and sizes["K"] >= 2
    mod = load_emulated(program, detect_races=True)
    if racy:
        arrays = random_inputs(program, None, sizes, seed)
        poison(arrays, written(program), program)
        with pytest.raises(RaceError) as info:
            mod.run("k", sizes, arrays, seed=seed)
        assert info.value.tensor == "c"
        return
    report = compare_kernels(program, "k", "k", sizes, seed=seed, runner_ref=load_c(program).run,
                             runner_cand=lambda k, s, a: mod.run(k, s, a, seed=seed))
    assert report.ok, f"{text}\n{report.text()}"
