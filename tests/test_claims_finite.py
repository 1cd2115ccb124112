"""The `finite` profile: value-based claims drop terms that read cells known (by value flow) to
hold zero, `0 * input`, from sums that start at +0.0 (verified_sched/values/finite_zero.py); never under
`default` or `reproducible`, and never when the zero is not established or the co-factor may
overflow."""
from __future__ import annotations

import pytest

from verified_sched.oracle.compare import compare_kernels
from verified_sched.values import finite_zero
from polyhedral.valueexpr import Const, Leaf, Op, Red
from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_claim

HEAD = """params N where N >= 1
tensor x[N] f32
tensor w[3] f32
tensor p[N + 2] f32 local
tensor q[N + 2] f32
tensor s[N] f32
tensor y[N] f32
"""

# a 3-tap correlation through a zero-padded copy (as a compiler lowers it) ...
PADDED = """kernel first {
  zero p
  for i in 0 .. N { p[i + 1] = x[i] }
  zero y
  for i in 0 .. N { for k in 0 .. 3 { y[i] += p[i + k] * w[k] } }
}
"""
# ... and with guards (as the chain rule writes it): the padded version adds 0 * w[k] at the edges
GUARDED = """kernel second {
  zero y
  for i in 0 .. N { for k in 0 .. 3 { if i + k >= 1 and i + k < N + 1 { y[i] += x[i + k - 1] * w[k] } } }
}
"""


def claim(body: str, profile: str, head: str = HEAD):
    text = f"profile {profile}\n" + head + body + "\nclaim first == second\n"
    program = parse_text(text)
    return program, verify_claim(program, program.claims[0], profile, 60.0)


def test_zero_padded_terms_are_dropped_under_finite_and_the_report_says_so():
    _, rep = claim(PADDED + GUARDED, "finite")
    assert rep.verdict == "legal", [(o.kind, o.status, o.message) for o in rep.obligations]
    eq = next(o for o in rep.obligations if o.kind == "equivalence")
    assert "assuming finite inputs" in eq.message and "finite profile" in eq.message


def test_approximate_states_the_assumption_too():
    _, rep = claim(PADDED + GUARDED, "approximate")
    assert rep.verdict == "legal"
    assert "assuming finite inputs" in rep.obligations[0].message


@pytest.mark.parametrize("profile", ["default", "reproducible"])
def test_zero_padded_terms_are_kept_without_the_assumption(profile):
    """0 * w[k] is NaN for an infinite w[k]: default and reproducible never drop it."""
    program, rep = claim(PADDED + GUARDED, profile)
    assert rep.verdict != "legal"
    assert all("assuming finite" not in o.message for o in rep.obligations)


def test_the_dropped_terms_matter_for_infinite_inputs():
    """Why the assumption is needed: with w[0] = inf the padded kernel adds 0 * inf (NaN) at the
    first cell, which the guarded kernel never reads."""
    import numpy as np

    program = parse_text("profile finite\n" + HEAD + PADDED + GUARDED + "\nclaim first == second\n")
    from codegen.build import load_c

    arrays = {"x": np.ones(4, np.float32), "w": np.array([np.inf, 1, 1], np.float32),
              "q": np.zeros(6, np.float32), "s": np.zeros(4, np.float32)}
    out = {}
    for k in ("first", "second"):
        a = {n: v.copy() for n, v in arrays.items()}
        a["y"] = np.zeros(4, np.float32)
        load_c(program).run(k, {"N": 4}, a)
        out[k] = a["y"]
    assert np.isnan(out["first"][0]) and out["second"][0] == 2.0  # x[0]*w[1] + x[1]*w[2]


def test_a_zero_that_value_flow_does_not_establish_is_not_dropped():
    """q is a global input: its edge cells hold whatever the caller put there, not 0."""
    first = """kernel first {
  for i in 0 .. N { q[i + 1] = x[i] }
  zero y
  for i in 0 .. N { for k in 0 .. 3 { y[i] += q[i + k] * w[k] } }
}
"""
    program, rep = claim(first + GUARDED, "finite")
    assert rep.verdict == "illegal"
    cex = next(o.counterexample.to_json() for o in rep.obligations if o.status == "refuted")
    rep2 = compare_kernels(program, "second", "first", cex["params"], rtol=1e-5, atol=1e-6)
    assert not rep2.ok


def test_a_sum_that_starts_from_an_input_keeps_its_zero_terms():
    """y starts from s (which may be -0.0, and -0 + +0 = +0): nothing is dropped."""
    first = """kernel first {
  zero p
  for i in 0 .. N { p[i + 1] = x[i] }
  for i in 0 .. N { y[i] = s[i] }
  for i in 0 .. N { for k in 0 .. 3 { y[i] += p[i + k] * w[k] } }
}
"""
    second = """kernel second {
  for i in 0 .. N { y[i] = s[i] }
  for i in 0 .. N { for k in 0 .. 3 { if i + k >= 1 and i + k < N + 1 { y[i] += x[i + k - 1] * w[k] } } }
}
"""
    _, rep = claim(first + second, "finite")
    assert rep.verdict != "legal"


def test_adding_a_known_zero_product_to_a_sum_is_dropped():
    """x + 0*y outside a reduction: s (a sum from +0, never -0.0) + p[0] * w[0] with p[0] zero."""
    first = """kernel first {
  zero p
  zero s
  for i in 0 .. N { for k in 0 .. 3 { s[i] += x[i] * w[k] } }
  for i in 0 .. N { y[i] = s[i] + p[0] * w[1] }
}
"""
    second = """kernel second {
  zero s
  for i in 0 .. N { for k in 0 .. 3 { s[i] += x[i] * w[k] } }
  for i in 0 .. N { y[i] = s[i] }
}
"""
    _, rep = claim(first + second, "finite")
    assert rep.verdict == "legal", [(o.kind, o.status, o.message) for o in rep.obligations]
    assert "additions of a value known to be 0" in rep.obligations[0].message
    _, rep = claim(first + second, "default")
    assert rep.verdict != "legal"


def test_adding_a_known_zero_product_to_an_input_is_kept():
    """x[i] may be -0.0, and -0.0 + 0.0 is +0.0: not dropped even under finite."""
    first = "kernel first {\n  zero p\n  for i in 0 .. N { y[i] = x[i] + p[0] * w[1] }\n}\n"
    second = "kernel second {\n  for i in 0 .. N { y[i] = x[i] }\n}\n"
    _, rep = claim(first + second, "finite")
    assert rep.verdict != "legal"


def _leaf(t):
    return Leaf(t, None)


@pytest.mark.parametrize("shape, zero", [
    (("c", 0.0), True),
    (("o", "*", ("c", 0.0), ("l", "w")), True),
    (("o", "*", ("l", "w"), ("c", 0.0)), True),
    (("o", "cast bf16", ("o", "*", ("c", 0.0), ("l", "w"))), True),
    (("o", "*", ("c", 0.0), ("c", float("inf"))), False),  # 0 * inf is NaN
    (("o", "*", ("c", 0.0), ("o", "*", ("l", "x"), ("l", "x"))), False),  # x*x may overflow
    (("o", "+", ("c", 0.0), ("l", "w")), False),
    (("o", "*", ("c", 1.0), ("l", "w")), False),
    (("o", "/", ("c", 0.0), ("l", "w")), False),  # 0 / 0 is NaN
])
def test_zero_shapes(shape, zero):
    lim = finite_zero.Limits("f32", {"w": "f32", "x": "f32"})
    assert finite_zero.zero_shape(shape, lim) is zero


def test_finite_zero_of_an_f64_input_read_by_an_f32_statement_is_kept():
    """Issue 20: inputs are finite at their declared precision; an f64 input read by an f32
    statement may overflow on conversion (1e300 -> inf, 0 * inf = NaN): never dropped."""
    lim = finite_zero.Limits("f32", {"w": "f64", "h": "f16"})
    assert not finite_zero.zero_shape(("o", "*", ("c", 0.0), ("l", "w")), lim)
    assert finite_zero.zero_shape(("o", "*", ("c", 0.0), ("l", "h")), lim)
    assert not finite_zero.zero_shape(("o", "*", ("c", 0.0), ("c", 1e300)), lim)  # inf in f32
    assert finite_zero.zero_shape(("o", "*", ("c", 0.0), ("c", 1e300)), finite_zero.Limits("f64", {}))


def test_never_negative_zero():
    assert finite_zero.never_negzero(Const(0.0)) and finite_zero.never_negzero(Const(2.0))
    assert not finite_zero.never_negzero(Const(-0.0))
    assert finite_zero.never_negzero(Red("+", "f32", Const(0.0)))
    assert not finite_zero.never_negzero(Red("+", "f32", _leaf("s")))
    assert not finite_zero.never_negzero(Red("*", "f32", Const(0.0)))
    assert not finite_zero.never_negzero(_leaf("x"))
    zero_term = Op("*", [Const(0.0), _leaf("w")])
    lim = finite_zero.Limits("f32", {"w": "f32", "x": "f32"})
    assert finite_zero.plus_zero_operand(Op("+", [Red("+", "f32", Const(0.0)), zero_term]), lim) is not None
    assert finite_zero.plus_zero_operand(Op("+", [_leaf("x"), zero_term]), lim) is None
    assert finite_zero.plus_zero_operand(Op("-", [zero_term, Red("+", "f32", Const(0.0))]), lim) is None


def test_only_finite_and_approximate_assume_finite_inputs():
    assert [p for p in ("default", "finite", "approximate", "reproducible") if finite_zero.assumes_finite(p)] == \
        ["finite", "approximate"]
