"""The claim comparison's z3 encoding of `abs` is the semantics table's (`a < 0 ? -a : a`, so
abs(-0.0) is -0.0): with z3's fpAbs (which clears the sign bit) `abs(x)` and `max(x, -x)` were
proved bitwise equal, although they differ at x = -0.0 (found while writing the semantic mutants of
benchmarks/mutation_score.py)."""
from __future__ import annotations

from verified_sched.oracle.compare import compare_kernels
from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program

ABS = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel a { for i in 0 .. N { y[i] = abs(x[i]) } }
kernel b { for i in 0 .. N { y[i] = SECOND } }
claim a == b
"""


def _claim(second: str):
    program = parse_text(ABS.replace("SECOND", second))
    (rep,) = [r for r in verify_program(program) if "==" in r.kernel]
    return program, rep


def _refuted_and_replays(second: str):
    program, rep = _claim(second)
    assert rep.verdict == "illegal", [o.message for o in rep.obligations]
    cex = next(o.counterexample.to_json() for o in rep.obligations if o.status == "refuted")
    r = compare_kernels(program, "a", "b", cex["params"], cex.get("seed", 0), cex.get("inputs", "random"),
                        values=cex.get("values"))
    assert not r.equal


def test_abs_of_negative_zero_is_not_max_of_x_and_minus_x():
    _refuted_and_replays("max(x[i], -x[i])")


def test_abs_of_negated_x_is_not_abs_of_x():
    """abs(-(-0.0)) = +0.0 but abs(-0.0) = -0.0."""
    _refuted_and_replays("abs(-x[i])")


def test_abs_times_one_is_proved():
    _, rep = _claim("abs(x[i]) * 1.0")
    assert rep.verdict == "legal", [o.message for o in rep.obligations]
