"""Issue 9 item 4: every constant, loop bound and index expression fits the backends' int64
for all admitted sizes (parameters |P| <= 2^31 - 1, storage under 2^63 bytes).

Regressions: a loop bound beyond 2^63 verified legal (and `run` segfaulted), a split factor of
10^30 verified legal (and `run` hung). Now: literals outside int64 are parse errors; an
expression that leaves int64 for some admitted size refutes `in_bounds` with sizes at which
`vsched run` refuses with the same overflow; run/exec refuse sizes that overflow.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from verified_sched.analysis import int_range
from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.core.errors import ParseError, UsageError
from verified_sched.analysis.sizes import check_sizes
from verified_sched.verify.driver import verify_program

HUGE_BOUND = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel big {
  for i in 0 .. N {
    for j in 0 .. 4611686018427387904 * N {
      if j < 1 {
        y[i] = x[i]
      }
    }
  }
}
"""

PLAIN = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    y[i] = x[i]
  }
}
"""


def _in_bounds(text: str, kernel: str):
    (report,) = [r for r in verify_program(parse_text(text, "k.vs"), timeout=30.0) if r.kernel == kernel]
    return [o for o in report.obligations if o.kind == "in_bounds"], report


@pytest.mark.parametrize("literal", ["9223372036854775808", "100000000000000000000"])
def test_literal_outside_int64_is_a_parse_error(literal):
    with pytest.raises(ParseError, match="does not fit in int64"):
        parse_text(PLAIN.replace("0 .. N", f"0 .. {literal}"), "k.vs")


def test_split_factor_of_ten_to_the_thirty_is_rejected(tmp_path, capsys):
    path = tmp_path / "split.vs"
    path.write_text(PLAIN + "schedule k {\n  split i by 1" + "0" * 30 + " -> io, ii\n}\n")
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert "split.vs:11:14:" in err and "does not fit in int64" in err


def test_int64_literal_bound_is_accepted():
    parse_text(PLAIN.replace("0 .. N", "0 .. 9223372036854775807"), "k.vs")


def test_loop_bound_beyond_int64_is_refuted_and_run_refuses_the_sizes(tmp_path, capsys):
    obs, report = _in_bounds(HUGE_BOUND, "big")
    assert report.verdict == "illegal"
    bad = [o for o in obs if o.status == "refuted"]
    assert bad and "overflows int64" in bad[0].message
    params = bad[0].counterexample.sizes
    assert params["N"] <= int_range.SIZE_BOUND
    path = tmp_path / "big.vs"
    path.write_text(HUGE_BOUND)
    size = ",".join(f"{k}={v}" for k, v in params.items())
    assert main(["run", str(path), "--size", size]) == 2
    assert "overflow int64" in capsys.readouterr().err


def test_split_that_overflows_after_the_op_is_refuted():
    """Each factor fits int64; the product of two nested splits' factors does not."""
    text = PLAIN + ("schedule k {\n  split i by 4611686018427387904 -> io, ii\n"
                    "  split io by 4611686018427387904 -> ioo, ioi\n}\n")
    obs, report = _in_bounds(text, "k")
    assert report.verdict != "legal"
    assert any(o.status != "proved" and "int64" in o.message for o in obs)


def test_ordinary_kernels_prove_the_range():
    obs, report = _in_bounds(PLAIN, "k")
    assert report.verdict == "legal" and all(o.status == "proved" for o in obs)
    assert "int64" in obs[0].statement


def test_exec_refuses_sizes_whose_storage_cannot_exist():
    program = parse_text(PLAIN.replace("tensor y[N] f32", "tensor y[N, N, N] f32")
                         .replace("y[i] = x[i]", "y[i, 0, 0] = x[i]"), "k.vs")
    with pytest.raises(UsageError, match="beyond 2\\^63"):
        check_sizes(program, {"N": 3_000_000})


@given(st.integers(min_value=1, max_value=2 ** 40), st.integers(min_value=-2 ** 62, max_value=2 ** 62))
def test_concrete_check_agrees_with_exact_arithmetic(n, c):
    """At concrete sizes the check refuses exactly when the loop bound c * N + c leaves int64."""
    text = PLAIN.replace("for i in 0 .. N {", f"for i in 0 .. {c} * N + {c} {{\n    if i < N {{") \
                .replace("y[i] = x[i]\n  }", "y[i] = x[i]\n    }\n  }")
    program = parse_text(text, "k.vs")
    fits = int_range.INT64_MIN <= c * n + c <= int_range.INT64_MAX and int_range.INT64_MIN <= c * n <= int_range.INT64_MAX
    try:
        int_range.check_concrete(program, {"N": n})
        assert fits
    except UsageError:
        assert not fits
