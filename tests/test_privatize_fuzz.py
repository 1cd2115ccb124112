"""Hypothesis: random privatizations (and epilogue fusions) of generated reductions.

A verdict of legal implies equal runs (C and emulation with race detection, poisoned outputs);
a privatize_condition / race / dataflow refutation replays at the counterexample's sizes (the
emulator detects a race or the outputs differ). Kernels whose own obligations fail (the
original races) are discarded: the op has nothing to preserve there."""
from __future__ import annotations

from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from verified_sched.dsl import parse_text

from test_privatize_ops import assert_runs_equal, replays, report

GUARDS = ["", "k < K - 1", "t == 0", "t + k < 2", "t + k < 1", "t + k < 1", "i + j < N", "x[k, j] > 0", "j < 2",
          "i == 1"]


@st.composite
def reductions(draw):
    hw = draw(st.booleans())
    inner_j = draw(st.booleans())
    cell = draw(st.sampled_from(["i, j", "i, 0", "0, j", "0, 0"] if inner_j else ["i, 0", "0, 0"]))
    if hw:
        cell = cell.replace("i", "t") if draw(st.booleans()) else cell
    op = draw(st.sampled_from(["+=", "max"]))
    guard = draw(st.sampled_from(GUARDS))
    if not hw:
        guard = guard.replace("t == 0", "i == 0").replace("t + k", "i + k")
    if not inner_j:
        guard = guard.replace("j", "0")
    update = f"s[{cell}] += x[k, {'j' if inner_j else '0'}]" if op == "+=" else \
        f"s[{cell}] = max(s[{cell}], x[k, {'j' if inner_j else '0'}])"
    body = update if not guard else f"if {guard} {{ {update} }}"
    if inner_j:
        body = f"for j in 0 .. 3 {{ {body} }}"
    red = f"for k in 0 .. K {{ {body} }}"
    outer = f"for i in 0 .. N {{ {red} }}"
    if hw:
        outer = f"for t in 0 .. 4 : thread.x {{ {outer} }}"
    return _text(outer)


def _text(nest: str) -> str:
    return (f"params N, K where N >= 1, K >= 1\ntensor x[K, 3] f32\ntensor s[N + 4, 3] f32\n"
            f"kernel g {{\n  zero s\n  {nest}\n}}\nschedule g {{\n  privatize s over k -> acc\n}}\n")


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(reductions())
@example(_text("for t in 0 .. 4 : thread.x { for i in 0 .. N { for k in 0 .. K { "
               "if t + k < 1 { s[0, 0] += x[k, 0] } } } }"))
@example(_text("for t in 0 .. 4 : thread.x { for i in 0 .. N { for k in 0 .. K { for j in 0 .. 3 { "
               "if t + k < 1 { s[i, j] = max(s[i, j], x[k, j]) } } } } }"))
def test_random_privatize(text):
    program = parse_text(text)
    rep = report(program)
    own = [o for o in rep["obligations"] if o["op_index"] == 0]
    assume(all(o["status"] == "proved" for o in own))
    event(rep["verdict"])
    if rep["verdict"] == "legal":
        vacuous = [assert_runs_equal(program, "g", sizes, allow_vacuous=True)
                   for sizes in ({"N": 3, "K": 4}, {"N": 2, "K": 5})]
        assert not all(vacuous)
        return
    hits = [o for o in rep["obligations"] if o["status"] == "refuted"]
    assert hits, [o["message"] for o in rep["obligations"] if o["status"] == "unknown"]
    o = hits[0]
    event(o["kind"])
    assert o["kind"] in ("privatize_condition", "race", "dataflow", "precondition"), o
    if o["kind"] != "precondition":
        assert replays(program, "g", o["counterexample"]["params"]), (text, o["message"])
