"""Loops named per nest (issue 23 item 3): a schedule names one of several loops that share a
name as `i@k`, the k-th loop named i in program order of the kernel as it stands when the op
applies (verified_sched/ops/common.find_loop); a plain name that several loops share is a
precondition failure listing the qualified names; ordinary code with repeated names across
nests verifies and runs; `show --after K` prints a program whose remaining schedule means the
same."""
from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_sched.cli import main
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.printer import print_kernel, print_program
from verified_sched.core.errors import ParseError, ScheduleError
from verified_sched.ops import apply_op, apply_schedule
from verified_sched.ops.common import split_name
from verified_sched.ops.interchange import Interchange
from verified_sched.ops.reverse import Reverse
from verified_sched.ops.split import Split
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

TWO_NESTS = """params N, M where N >= 1, M >= 1
tensor x[N, M] f32
tensor y[N, M] f32
kernel k {
  for i in 0 .. N {
    for j in 0 .. M {
      y[i, j] = x[i, j] * 2.0
    }
  }
  for i in 0 .. N {
    for j in 0 .. M {
      y[i, j] += 1.0
    }
  }
}
schedule k {
  OPS
}
"""


def _program(ops: str):
    return parse_text(TWO_NESTS.replace("OPS", ops), "t.vs")


def _run(args) -> tuple:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue() + err.getvalue()


def test_matmul_bias_with_repeated_loop_names_is_legal_and_runs_equal():
    """Regression: a matmul followed by a bias loop, both nests over i/j, was ILLEGAL
    ("2 loops are named 'j'") whatever the schedule."""
    path = EXAMPLES / "matmul_bias.vs"
    rep = file_report_json(verify_program(parse_file(path)), "f")
    assert rep["verdict"] == "legal", rep
    code, out = _run(["run", str(path), "--size", "N=5,M=13,K=3"])
    assert code == 0 and "(bitwise): equal" in out, out


def test_plain_name_of_two_loops_lists_the_qualified_names():
    p = _program("split j by 4 -> jo, ji")
    with pytest.raises(ScheduleError) as e:
        apply_schedule(p, "k")
    assert "2 loops are named 'j'" in e.value.message
    assert "j@1 (line 6), j@2 (line 11)" in e.value.message
    assert e.value.loc is not None and e.value.loc.line == 17


def test_qualified_name_picks_the_kth_loop_in_program_order():
    after = apply_schedule(_program("reverse i@2"), "k")
    first, second = after.kernel("k").body
    assert print_program(after).count("y[N - i - 1, j] += 1.0") == 1
    assert "y[i, j] = x[i, j] * 2.0" in print_program(after)
    assert first == _program("").kernel("k").body[0] and second != first


def test_qualified_name_counts_the_kernel_as_it_stands():
    # after the first j is split, the second one is the only j (so j, j@1 both name it)
    a = apply_schedule(_program("split j@1 by 4 -> jo, ji\n  split j by 2 -> jo2, ji2"), "k")
    b = apply_schedule(_program("split j@1 by 4 -> jo, ji\n  split j@1 by 2 -> jo2, ji2"), "k")
    assert a.kernel("k") == b.kernel("k") and "jo2" in print_program(a)


def test_qualified_name_past_the_last_loop():
    with pytest.raises(ScheduleError, match=r"loop 'i@3': kernel 'k' has 2 loop\(s\) named 'i': i@1"):
        apply_schedule(_program("reverse i@3"), "k")
    with pytest.raises(ScheduleError, match="no loop named 'q'"):
        apply_schedule(_program("reverse q@1"), "k")


def test_interchange_of_qualified_loops():
    p = _program("interchange i@2, j@2")
    after = apply_schedule(p, "k")
    second = after.kernel("k").body[1]
    assert second.var == "j" and second.body[0].var == "i"
    with pytest.raises(ScheduleError, match="neither encloses the other"):
        apply_schedule(_program("interchange i@1, j@2"), "k")
    with pytest.raises(ScheduleError, match="cannot interchange a loop with itself"):
        apply_schedule(_program("interchange i@1, i@1"), "k")


@pytest.mark.parametrize("text, col, words", [
    ("reverse i @2", 13, "without spaces"),
    ("reverse i@ 2", 14, "expected the loop's number"),
    ("reverse i@0", 13, "must be positive"),
    ("reverse i@x", 13, "expected the loop's number"),
])
def test_qualified_name_syntax_errors_are_positioned(text, col, words):
    with pytest.raises(ParseError) as e:
        _program(text)
    assert (e.value.loc.line, e.value.loc.col) == (17, col) and words in e.value.message


def test_records_print_and_reparse_qualified_names():
    p = _program("split j@2 by 4 -> jo, ji\n  interchange i@1, j@1\n  reverse i@2")
    assert [op.text() for op in p.schedules[0].ops] == [
        "split j@2 by 4 -> jo, ji", "interchange i@1, j@1", "reverse i@2"]
    assert parse_text(print_program(p), "t.vs") == p
    assert split_name("j@2") == ("j", 2) and split_name("j") == ("j", None)


def test_show_after_k_round_trips():
    """`vsched show --after K` prints the program after K ops with the rest of the schedule;
    its qualified names count in the printed kernel, so it means the same."""
    path = EXAMPLES / "matmul_bias.vs"
    whole = apply_schedule(parse_file(path), "matmul_bias")
    for k in range(0, 6):
        code, out = _run(["show", str(path), "--after", str(k)])
        assert code == 0, out
        again = parse_text(out, "shown.vs")
        assert print_kernel(apply_schedule(again, "matmul_bias").kernel("matmul_bias")) == \
            print_kernel(whole.kernel("matmul_bias"))
        if k == 3:  # the rest of the schedule, proved on the printed program
            assert file_report_json(verify_program(again), "f")["verdict"] == "legal"


def test_verify_cli_reports_the_ambiguous_name(tmp_path):
    f = tmp_path / "amb.vs"
    f.write_text(TWO_NESTS.replace("OPS", "reverse i"))
    code, out = _run(["verify", str(f)])
    assert code == 1 and "name one of them: i@1 (line 5), i@2 (line 10)" in out, out


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["i", "j"]), st.integers(1, 2), st.sampled_from(["reverse", "split"]))
def test_qualified_op_equals_the_op_on_a_uniquely_renamed_loop(name, k, kind):
    """Applying an op to `name@k` is applying it to that loop renamed apart (here: the loops
    of the other nest renamed), up to the other nest's names."""
    p = _program("")
    other = "_1" if k == 2 else "_2"
    renamed = TWO_NESTS.replace("OPS", "")
    lines = renamed.splitlines()
    # rename the loops of the nest that is NOT the k-th
    start = 4 if k == 2 else 9
    for n in range(start, start + 5):
        lines[n] = lines[n].replace(" i ", f" i{other} ").replace(" j ", f" j{other} ") \
            .replace("[i, j]", f"[i{other}, j{other}]")
    q = parse_text("\n".join(lines) + "\n", "t.vs")
    op_q = Reverse(f"{name}@{k}") if kind == "reverse" else Split(f"{name}@{k}", 4, "o", "n")
    op_u = Reverse(name) if kind == "reverse" else Split(name, 4, "o", "n")
    a = apply_op(p, "k", op_q).kernel("k").body[k - 1]
    b = apply_op(q, "k", op_u).kernel("k").body[k - 1]
    assert a == b


def test_retype_of_a_second_loop_of_a_name_already_parallel_checks_its_independence():
    """Regression: the driver knew a new parallel loop by (name, axis), so vectorizing j@2
    while j@1 was vectorized skipped j@2's independence obligation."""
    text = """params N where N >= 2
tensor x[N] f32
tensor y[N] f32
kernel k {
  for j in 0 .. N : vectorized {
    x[j] = 2.0 * x[j]
  }
  for j in 1 .. N {
    y[j] = y[j - 1] + x[j]
  }
}
schedule k {
  retype j@2 as vectorized
}
"""
    rep = file_report_json(verify_program(parse_text(text, "v.vs")), "v.vs")
    refuted = {o["kind"] for o in rep["obligations"] if o["status"] == "refuted"}
    assert {"independence", "dependence"} <= refuted, rep
