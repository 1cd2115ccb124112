"""`shift i to 0` (verified_sched/ops/shift.py), loop normalization (issue 23 item 3): its
syntax round-trips, it moves the loop to start at 0 with i := i + lo in the body, the generic
obligations prove it (and refute a wrong rewrite), its examples' verdicts replay, and on
random kernels a legal verdict runs equal while every refutation replays (hypothesis)."""
from __future__ import annotations

import contextlib
import dataclasses
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from verified_sched.core import ir
from verified_sched.cli import main
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.printer import print_kernel, print_program
from verified_sched.core.errors import ParseError, ScheduleError
from verified_sched.fuzz.check import check_example
from verified_sched.fuzz.strategies import fuzz_examples
from verified_sched.ops import apply_op, common, shift
from verified_sched.ops.registry import OP_NAMES
from verified_sched.ops.shift import Shift
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

STENCIL = """params N where N >= 3
tensor a[N] f32
tensor b[N] f32
kernel k {
  for i in 1 .. N - 1 {
    for j in i .. N {
      b[j] = a[i] + a[j]
    }
  }
}
schedule k {
  shift i to 0
}
"""


def _run(args) -> tuple:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(args)
    return code, out.getvalue()


def test_shift_is_registered_and_round_trips():
    assert OP_NAMES["shift"] is Shift
    p = parse_text(STENCIL)
    (op,) = p.schedules[0].ops
    assert op == Shift("i") and op.text() == "shift i to 0"
    assert parse_text(print_program(p)) == p
    assert parse_text(STENCIL.replace("shift i", "shift i@1")).schedules[0].ops[0].text() == "shift i@1 to 0"


@pytest.mark.parametrize("text, words", [
    ("shift i to 1", "start at 0 (write 'to 0'), not at 1"),
    ("shift i to -2", "not at -2"),
    ("shift i", "expected 'to' in shift"),
    ("shift i to N", "must be an integer constant"),
    ("shift i to 0 by 2", "unknown keyword 'by' for shift"),
])
def test_shift_syntax_errors_are_positioned(text, words):
    with pytest.raises(ParseError) as e:
        parse_text(STENCIL.replace("shift i to 0", text), "s.vs")
    assert e.value.loc.line == 12 and words in e.value.message, e.value


def test_shift_moves_the_loop_to_zero_and_the_uses_by_lo():
    p = parse_text(STENCIL)
    after = apply_op(p, "k", p.schedules[0].ops[0])
    assert print_kernel(after.kernel("k")) == """\
kernel k {
  for i in 0 .. N - 2 {
    for j in i + 1 .. N {
      b[j] = a[i + 1] + a[j]
    }
  }
}
"""
    (assign,) = [n for n in ir.walk(after.kernel("k").body) if isinstance(n, ir.Assign)]
    assert dict(assign.provenance)["i"] == ir.BinOp("+", ir.Var("i"), ir.Int(1)) or \
        "i + 1" in str(assign.provenance)
    # a loop from 0 is unchanged; a missing loop is the precondition failure
    again = apply_op(after, "k", Shift("i"))
    assert print_kernel(again.kernel("k")) == print_kernel(after.kernel("k"))
    with pytest.raises(ScheduleError, match="no loop named 'z'"):
        apply_op(p, "k", Shift("z"))


def test_shift_examples_verdicts_and_replay():
    rep = file_report_json(verify_program(parse_file(EXAMPLES / "shift.vs")), "f")
    assert rep["verdict"] == "legal"
    code, out = _run(["run", str(EXAMPLES / "shift.vs"), "--size", "N=7"])
    assert code == 0 and "(bitwise): equal" in out
    rep = file_report_json(verify_program(parse_file(EXAMPLES / "shift_reverse_illegal.vs")), "f")
    (bad,) = [o for o in rep["obligations"] if o["status"] == "refuted"]
    assert bad["kind"] == "dependence" and bad["op"] == "reverse i"
    assert all(o["status"] == "proved" for o in rep["obligations"] if o["op"] == "shift i to 0")
    sizes = ",".join(f"{k}={v}" for k, v in bad["counterexample"]["params"].items())
    code, out = _run(["run", str(EXAMPLES / "shift_reverse_illegal.vs"), "--size", sizes])
    assert code == 1 and "DIFFERENT" in out


def test_a_wrong_shift_is_refuted_by_the_generic_obligations(monkeypatch):
    """Proved like any op: an off-by-one rewrite (i := i + lo + 1) does not verify."""
    def off_by_one(program, kernel_name, op):
        kernel, site = common.loop_site(program, kernel_name, op)
        loop = site.stmt
        moved = ir.BinOp("+", ir.Var(loop.var), ir.BinOp("+", loop.lo, ir.Int(1)))
        new = dataclasses.replace(loop, lo=ir.Int(0), hi=ir.BinOp("-", loop.hi, loop.lo),
                                  body=common.subst(loop.body, {loop.var: moved}))
        return common.rewrite_at(program, kernel, site.path, (new,))
    monkeypatch.setattr(shift, "SPEC", dataclasses.replace(shift.SPEC, apply=off_by_one))
    rep = file_report_json(verify_program(parse_file(EXAMPLES / "shift.vs")), "f")
    refuted = {o["kind"] for o in rep["obligations"] if o["status"] == "refuted" and o["op"] == "shift i to 0"}
    assert "coverage" in refuted, rep


SEEN: set = set()


@settings(max_examples=5, suppress_health_check=list(HealthCheck), deadline=None)
@given(fuzz_examples(ops=("shift", "reverse"), shapes=("matmul", "reduction", "stencil", "random"), sizes=1,
                     max_ops=2))
def _legal_runs_equal_and_refutations_replay(ex):
    out = check_example(ex.program, ex.kernel, ex.sizes)
    assert out.finding is None, out.finding
    SEEN.add(out.verdict)


def test_shift_legal_runs_equal_and_refutations_replay():
    SEEN.clear()
    _legal_runs_equal_and_refutations_replay()
    assert "legal" in SEEN, SEEN
