"""The barrier-phase race analysis (isl, sizes pinned) against brute-force GPU semantics
(tests/support/phases_brute.py) on random tiled kernels: barriers present or missing, inside or
outside serial loops, under uniform conditions, loops bounded by block indices, shifted tile
indices (so some pairs conflict and some do not)."""
from __future__ import annotations

import dataclasses

from hypothesis import event, given, settings
from hypothesis import strategies as st

from verified_sched.verify.generic.race import race as race_check
from polyhedral import race
from polyhedral.model import KernelModel
from support.phases_brute import simulate
from verified_sched.core import ir
from verified_sched.dsl import parse_text

HEAD = """params T where T >= 1
tensor a[8, 8] f32
tensor c[2, 8] f32
tensor s[8] f32 shared
"""


@st.composite
def kernels(draw):
    off1, off2 = draw(st.integers(0, 7)), draw(st.integers(0, 7))
    mid, tail = draw(st.sampled_from(["", "barrier", "if T > 1 { barrier }"])), draw(
        st.sampled_from(["", "barrier", "if b < 1 { barrier }"]))
    bound = draw(st.sampled_from(["T", "T + b", "2"]))
    store = f"s[(t + {off1}) % 8] = a[t, b]"
    use = f"c[b, t] = c[b, t] + s[(t + {off2}) % 8]"
    if draw(st.booleans()):  # thread loops inside the serial loop
        body = (f"for ko in 0 .. {bound} {{ for t in 0 .. 8 : thread.x {{ {store} }}\n {mid}\n"
                f" for t in 0 .. 8 : thread.x {{ {use} }}\n {tail} }}")
    else:  # one thread loop around the serial loop
        body = f"for t in 0 .. 8 : thread.x {{ for ko in 0 .. {bound} {{ {store}\n {mid}\n {use}\n {tail} }} }}"
    return HEAD + f"kernel k {{ for b in 0 .. 2 : block.x {{ {body} }} }}\n"


def pinned(program, sizes):
    eqs = tuple(ir.Cmp("==", ir.Var(p), ir.Int(v)) for p, v in sizes.items())
    return dataclasses.replace(program, constraints=program.constraints + eqs)


@settings(max_examples=40)
@given(kernels())
def test_phase_races_agree_with_brute_force(text):
    program = parse_text(text)
    for t in (1, 2, 3):
        m = KernelModel(pinned(program, {"T": t}), "k")
        r, u = race_check(m), race.barrier_uniformity(m)
        assert u.status == "proved", u.message
        sim = simulate(program, "k", {"T": t}, limit=100_000)
        event(f"T={t} race={sim.race}")
        assert not sim.divergent
        assert r.status == ("refuted" if sim.race else "proved"), (t, r.message, sim.races[:2])
        if sim.race:
            cells = {(c["tensor"], tuple(c["index"])) for c in r.counterexample.to_json()["cells"]}
            assert cells & {(x[0], x[1]) for x in sim.races}
