"""Value-based dependences by hypothesis: random two-deep nests whose statements write and
read two small scratch tensors through colliding indices (i, j, i + j, i + 1, a constant),
optionally followed by a loop that reads or clears them, scheduled by an interchange (and a
split): when the dependence obligation is proved the kernels run equal bitwise on random
inputs at several sizes; when it is refuted the counterexample's sizes (or, failing that,
nearby ones) show a difference.
"""
from __future__ import annotations

import os

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from verified_sched.dsl import parse_text
from verified_sched.core.errors import ScheduleError
from verified_sched.verify.driver import verify_program
from test_verify_soundness import differ, programs_after

INDICES = ("i", "j", "i + j", "i + 1", "j + 1", "0", "i + j + 1")


@st.composite
def statement(draw):
    t = draw(st.sampled_from(("a", "b")))
    idx = draw(st.sampled_from(INDICES))
    value = draw(st.sampled_from(("2.0 * x[i, j]", "x[i, j] + 1.0", "x[i, j]")))
    if draw(st.booleans()):
        src = draw(st.sampled_from(("a", "b")))
        value = f"{value} + {src}[{draw(st.sampled_from(INDICES))}]"
    return f"{t}[{idx}] = {value}"


@st.composite
def kernels(draw):
    body = draw(st.lists(statement(), min_size=1, max_size=3))
    after = draw(st.sampled_from(("", "read", "clear", "read_clear")))
    lines = ["params N, M where N >= 1, M >= 1", "tensor x[N, M] f32", "tensor a[N + M + 2] f32",
             "tensor b[N + M + 2] f32", "tensor y[N + M + 2] f32", "kernel k {",
             "  for i in 0 .. N {", "    for j in 0 .. M {"]
    lines += [f"      {s}" for s in body]
    lines += ["    }", "  }"]
    if "read" in after:
        lines += ["  for c in 0 .. N + M + 2 {", f"    y[c] = {draw(st.sampled_from(('a', 'b')))}[c]", "  }"]
    if "clear" in after:
        lines += ["  for d in 0 .. N + M + 2 {", f"    {draw(st.sampled_from(('a', 'b')))}[d] = 0.0", "  }"]
    lines.append("}")
    ops = ["interchange i, j"]
    if draw(st.booleans()):
        ops.insert(draw(st.integers(0, 1)), f"split j by {draw(st.integers(2, 3))} -> jo, ji")
    lines.append("schedule k {")
    lines += [f"  {op}" for op in ops] + ["}"]
    return "\n".join(lines) + "\n"


SIZES = ({"N": 1, "M": 2}, {"N": 2, "M": 2}, {"N": 3, "M": 2}, {"N": 3, "M": 4})


# the explore profile (tests/conftest.py) runs ten times as many examples
EXAMPLES = 400 if os.environ.get("VSCHED_HYPOTHESIS_PROFILE") == "explore" else 40


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=kernels())
def test_value_based_dependence_verdicts_agree_with_runs(text):
    program = parse_text(text)
    try:
        steps = programs_after(program, "k", program.schedule_for("k").ops)
    except ScheduleError:
        assume(False)
    rep = verify_program(program, timeout=20)[-1]
    deps = [o for o in rep.obligations if o.kind == "dependence" and o.op_index > 0]
    for o in deps:
        before, after = steps[o.op_index - 1], steps[o.op_index]
        event(f"dependence {o.status}" + (" (value-based)" if "last writer" in o.message or "value changes"
                                          in o.message else ""))
        if o.status == "proved" and all(x.status == "proved" for x in rep.obligations
                                        if x.op_index == o.op_index):
            for sizes in SIZES:
                assert not differ(before, after, "k", sizes, seeds=range(3)), (text, o.message, sizes)
        elif o.status == "refuted":
            sizes = o.counterexample.sizes
            nearby = [sizes] + [{k: v + d for k, v in sizes.items()} for d in (1, 2)]
            assert any(differ(before, after, "k", s, seeds=range(6)) for s in nearby), (text, o.message)
