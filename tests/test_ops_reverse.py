"""`reverse i` (verified_sched/ops/reverse.py), the op added the registry's way (one module):
its syntax round-trips, it mirrors the iterator in the body, it is legal exactly when no
dependence is carried by the loop, and on random kernels a legal verdict runs equal while
every refutation replays with a run (hypothesis)."""
from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from verified_sched.cli import main
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.printer import print_program
from verified_sched.core.errors import ParseError, ScheduleError
from verified_sched.fuzz.check import check_example
from verified_sched.fuzz.strategies import fuzz_examples
from verified_sched.ops import apply_op
from verified_sched.ops.registry import OP_NAMES
from verified_sched.ops.reverse import Reverse
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

MAP = """params N where N >= 1
tensor a[N] f32
tensor b[N] f32
kernel k {
  for i in 2 .. N + 2 {
    b[i - 2] = a[i - 2] * 2.0
  }
}
schedule k {
  reverse i
}
"""


def _run(args) -> tuple:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(args)
    return code, out.getvalue()


def test_reverse_is_registered_and_round_trips():
    assert OP_NAMES["reverse"] is Reverse
    p = parse_text(MAP)
    (op,) = p.schedules[0].ops
    assert op == Reverse("i") and op.text() == "reverse i"
    assert parse_text(print_program(p)) == p


def test_reverse_syntax_errors_are_positioned():
    with pytest.raises(ParseError, match="unknown keyword 'by' for reverse"):
        parse_text(MAP.replace("reverse i", "reverse i by 2"))
    with pytest.raises(ParseError, match="expected a loop name"):
        parse_text(MAP.replace("reverse i", "reverse 3"))
    with pytest.raises(ScheduleError, match="loop 3: must be a name"):
        Reverse(3)


def test_reverse_mirrors_the_iterator_within_the_bounds():
    p = parse_text(MAP)
    after = apply_op(p, "k", p.schedules[0].ops[0])
    loop = after.kernel("k").body[0]
    assert print_program(after).count("for i in 2 .. N + 2") == 1
    # i := 2 + (N + 2) - 1 - i, then shifted by -2: N - i + 1
    assert "b[N - i + 1] = a[N - i + 1] * 2.0" in print_program(after), print_program(after)
    assert loop.body[0].provenance  # the original i, over the new one
    with pytest.raises(ScheduleError, match="no loop named 'z'"):
        apply_op(p, "k", Reverse("z"))


def test_reverse_examples_verdicts_and_replay():
    rep = file_report_json(verify_program(parse_file(EXAMPLES / "reverse.vs")), "f")
    assert rep["verdict"] == "legal" and rep["reassociates"] is True
    rep = file_report_json(verify_program(parse_file(EXAMPLES / "reverse_prefix_illegal.vs")), "f")
    assert rep["verdict"] == "illegal"
    (bad,) = [o for o in rep["obligations"] if o["status"] == "refuted"]
    assert bad["kind"] == "dependence" and bad["op"] == "reverse i"
    sizes = ",".join(f"{k}={v}" for k, v in bad["counterexample"]["params"].items())
    code, out = _run(["run", str(EXAMPLES / "reverse_prefix_illegal.vs"), "--size", sizes])
    assert code == 1 and "DIFFERENT" in out
    code, out = _run(["run", str(EXAMPLES / "reverse.vs")])
    assert code == 0 and "DIFFERENT" not in out


def test_reverse_under_the_reproducible_profile_refutes_a_reordered_sum():
    rep = file_report_json(verify_program(parse_file(EXAMPLES / "reverse.vs"), profile="reproducible"), "f")
    refuted = {(o["op"], o["kind"]) for o in rep["obligations"] if o["status"] == "refuted"}
    assert refuted == {("reverse k", "reassociation")}


SEEN: set = set()


@settings(max_examples=25, suppress_health_check=list(HealthCheck))
@given(fuzz_examples(ops=("reverse",), shapes=("matmul", "reduction", "stencil", "random"), sizes=1, max_ops=2))
def _legal_runs_equal_and_refutations_replay(ex):
    out = check_example(ex.program, ex.kernel, ex.sizes)
    assert out.finding is None, out.finding
    SEEN.add(out.verdict)


def test_reverse_legal_runs_equal_and_refutations_replay():
    # and the property is not vacuous: both legal and refuted reversals were drawn
    SEEN.clear()
    _legal_runs_equal_and_refutations_replay()
    assert {"legal", "illegal"} <= SEEN, SEEN
