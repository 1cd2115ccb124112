"""A refuted claim replays: a value-tree difference that no run shows is `unknown`, and a
refutation's sizes are ones at which `vsched run` shows the difference."""
from __future__ import annotations

from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program

HEAD = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32
tensor z[N] f32
"""


def _claim(text):
    program = parse_text(HEAD + text)
    (rep,) = [r for r in verify_program(program) if "==" in r.kernel]
    return next(o for o in rep.obligations if o.kind == "equivalence")


def test_times_one_against_the_value_is_not_refuted_without_a_run_that_shows_it():
    """`x * 1.0` and `x` are different trees with equal values: never refuted."""
    o = _claim("""kernel a { for i in 0 .. N { y[i] = x[i] * 1.0 } }
kernel b { for i in 0 .. N { y[i] = x[i] } }
claim a == b
""")
    assert o.status == "proved", o  # z3 decides x * 1.0 = x bitwise (issue 20)


def test_real_difference_is_refuted_at_sizes_that_replay(tmp_path):
    src = HEAD + """kernel a { for i in 0 .. N { y[i] = x[i] + 1.0 } }
kernel b { for i in 0 .. N { y[i] = x[i] + 2.0 } }
claim a == b
"""
    o = _claim(src.removeprefix(HEAD))
    assert o.status == "refuted"
    path = tmp_path / "c.vs"
    path.write_text(src)
    sizes = ",".join(f"{k}={v}" for k, v in o.counterexample.sizes.items())
    assert main(["run", str(path), "--size", sizes]) == 1
