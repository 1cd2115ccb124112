"""Issue 20, items 2 and 3: values judged by z3's IEEE-754 theory, and refutation by running
with special values. One regression test per wrong-answer class: every false "legal" is now
illegal with a counterexample that replays (input values included), every unknown decided."""
from __future__ import annotations

import pytest

from verified_sched.oracle.compare import compare_kernels
from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program


def _claim(text: str, profile=None):
    program = parse_text(text)
    (rep,) = [r for r in verify_program(program, profile) if "==" in r.kernel]
    return program, rep


def _replays(program, rep) -> bool:
    """The refutation's counterexample (sizes, input mode and seed, z3 model values) makes the
    two kernels differ bitwise when run."""
    cex = next(o.counterexample.to_json() for o in rep.obligations if o.status == "refuted")
    a, b = rep.kernel.split(" == ")
    r = compare_kernels(program, a, b, cex["params"], cex.get("seed", 0), cex.get("inputs", "random"),
                        values=cex.get("values"))
    return not r.equal


def _illegal_and_replays(text: str, profile=None):
    program, rep = _claim(text, profile)
    assert rep.verdict == "illegal", [o.message for o in rep.obligations]
    assert _replays(program, rep)
    return rep


def _legal(text: str, profile=None):
    _, rep = _claim(text, profile)
    assert rep.verdict == "legal", [o.message for o in rep.obligations]
    return rep


ONE = "params N where N >= 1\ntensor x[N] f32\ntensor y[N] f32\n"
SUM = "params N, K where N >= 1, K >= 1\ntensor x[N, K] f32\ntensor y[N] f32\n"


def test_negative_zero_store_is_not_positive_zero():
    """A constant -0.0 and 0.0 compared with Python `==` were "bitwise equal"."""
    _illegal_and_replays(ONE + "kernel a { for i in 0 .. N { y[i] = -0.0 } }\n"
                               "kernel b { for i in 0 .. N { y[i] = 0.0 } }\nclaim a == b\n")


def test_negative_zero_start_of_a_sum_is_not_positive_zero():
    """The starting value of a sum: -0.0 + -0.0 ... stays -0.0, +0.0 + -0.0 is +0.0; only
    special-value inputs (every x = -0.0) show it."""
    rep = _illegal_and_replays(
        SUM + "kernel a { for i in 0 .. N { y[i] = -0.0\n for k in 0 .. K { y[i] += x[i, k] } } }\n"
              "kernel b { for i in 0 .. N { y[i] = 0.0\n for k in 0 .. K { y[i] += x[i, k] } } }\nclaim a == b\n")
    cex = next(o.counterexample.to_json() for o in rep.obligations if o.status == "refuted")
    assert cex["inputs"] == "special"


def test_plus_zero_is_not_dropped_as_a_no_op():
    """`x + 0.0` is +0.0 for x = -0.0: the z3 model's input replays."""
    rep = _illegal_and_replays(ONE + "kernel a { for i in 0 .. N { y[i] = x[i] + 0.0 } }\n"
                                     "kernel b { for i in 0 .. N { y[i] = x[i] } }\nclaim a == b\n")
    cex = next(o.counterexample.to_json() for o in rep.obligations if o.status == "refuted")
    assert cex["values"][0]["value"] == "-0.0" and cex["values"][0]["bits"] == "0x80000000"


def test_minus_zero_addend_is_exact():
    """`x + -0.0` is x for every x (NaN and infinities included): proved."""
    _legal(ONE + "kernel a { for i in 0 .. N { y[i] = x[i] + -0.0 } }\n"
                 "kernel b { for i in 0 .. N { y[i] = x[i] } }\nclaim a == b\n")


FINITE_F64 = """profile finite
params N where N >= 1
tensor x[N] f64
tensor z[N] f32
tensor y[N] f32
kernel a {
  for i in 0 .. N { z[i] = 0.0 }
  for i in 0 .. N { y[i] = 0.0
    y[i] += z[i] * x[i] }
}
kernel b {
  for i in 0 .. N { z[i] = 0.0 }
  for i in 0 .. N { y[i] = 0.0 }
}
claim a == b
"""


def test_finite_zero_times_f64_input_in_f32_statement_is_kept():
    """Under `finite`, 0 * x with x an f64 input read by an f32 statement: 1e300 is finite at
    f64 but inf in f32, and 0 * inf is NaN; the finite special values (no NaN, no inf) show it."""
    rep = _illegal_and_replays(FINITE_F64)
    cex = next(o.counterexample.to_json() for o in rep.obligations if o.status == "refuted")
    assert cex["inputs"] == "special-finite"


def test_finite_zero_times_f32_input_is_still_dropped():
    _legal(FINITE_F64.replace("tensor x[N] f64", "tensor x[N] f32"))


REGROUP = """params N, K where N >= 1, K >= 1
tensor a[N, K] f32
tensor b[N, K] f32
tensor w[K] f32
tensor y[N] f32
kernel p { zero y
  for i in 0 .. N { for k in 0 .. K { y[i] += (a[i, k] * b[i, k]) * w[k] } } }
kernel q { zero y
  for i in 0 .. N { for k in 0 .. K { y[i] += a[i, k] * (b[i, k] * w[k]) } } }
claim p == q
"""


@pytest.mark.parametrize("profile", ["default", "reproducible"])
def test_product_regrouped_inside_a_sum_is_not_equal(profile):
    """The sum-of-products path compared a product's factors as a set."""
    _illegal_and_replays(REGROUP, profile)


def test_product_factors_commuted_inside_a_sum_are_equal():
    _legal(REGROUP.replace("a[i, k] * (b[i, k] * w[k])", "w[k] * (b[i, k] * a[i, k])"), "reproducible")


def test_i32_tree_regrouped_is_proved_exact():
    """Wrapping i32 arithmetic is associative and distributive: z3 over bit-vectors proves it."""
    _legal("params N where N >= 1\ntensor a[N] i32\ntensor b[N] i32\ntensor c[N] i32\ntensor y[N] i32\n"
           "kernel p { for i in 0 .. N { y[i] = (a[i] + b[i]) * c[i] + a[i] } }\n"
           "kernel q { for i in 0 .. N { y[i] = a[i] + (c[i] * b[i] + c[i] * a[i]) } }\nclaim p == q\n",
           "reproducible")


def test_min_max_operands_swapped_are_proved_exact():
    """IEEE 754-2019 minimum/maximum do not depend on the operands' order."""
    _legal("params N where N >= 1\ntensor a[N] f32\ntensor b[N] f32\ntensor y[N] f32\n"
           "kernel p { for i in 0 .. N { y[i] = max(a[i], min(b[i], 1.0)) } }\n"
           "kernel q { for i in 0 .. N { y[i] = max(min(1.0, b[i]), a[i]) } }\nclaim p == q\n", "reproducible")


def test_max_over_repeated_terms_is_proved():
    """max is idempotent: a term taken twice is taken once."""
    _legal(SUM + "kernel p { for i in 0 .. N { y[i] = -1.0\n for k in 0 .. K {\n"
                 " y[i] = max(y[i], x[i, k])\n y[i] = max(y[i], x[i, k]) } } }\n"
                 "kernel q { for i in 0 .. N { y[i] = -1.0\n for k in 0 .. K { y[i] = max(y[i], x[i, k]) } } }\n"
                 "claim p == q\n")


MANY = """params N where N >= 1
tensor y[N] f32
kernel p { for i in 0 .. N { y[i] = 0.0
  for k in 0 .. 20 { y[i] += 1.0 } } }
kernel q { for i in 0 .. N { y[i] = 0.0
  for k in 0 .. 10 { y[i] += 1.0
    y[i] += 1.0 } } }
claim p == q
"""


def test_more_than_16_repeated_terms_are_counted():
    _legal(MANY)
    _illegal_and_replays(MANY.replace("0 .. 20", "0 .. 21"))


NARROW = ("params N where N >= 1\ntensor a[N] f32\ntensor t[N] f16\ntensor y[N] f32\n"
          "kernel first { for i in 0 .. N { t[i] = a[i] }\n for i in 0 .. N { y[i] = t[i] * 2.0 } }\n"
          "kernel second { for i in 0 .. N { t[i] = a[i] }\n for i in 0 .. N { y[i] = SECOND } }\n"
          "claim first == second\n")


def test_value_copied_through_narrower_tensor_against_inline_cast():
    _legal(NARROW.replace("SECOND", "f16(a[i]) * 2.0"))
    _illegal_and_replays(NARROW.replace("SECOND", "bf16(a[i]) * 2.0"))


def test_f16_intermediate_store_rounds():
    """An f16 statement computes in f32 and rounds at the store: storing x*x into an f16 tile
    first rounds twice, computing (x*x)*x inline once."""
    text = ("params N where N >= 1\ntensor x[N] f16\ntensor t[N] f16\ntensor y[N] f16\n"
            "kernel a { for i in 0 .. N { t[i] = x[i] * x[i] }\n for i in 0 .. N { y[i] = t[i] * x[i] } }\n"
            "kernel b { for i in 0 .. N { t[i] = x[i] * x[i] }\n for i in 0 .. N { y[i] = (x[i] * x[i]) * x[i] } }\n"
            "claim a == b\n")
    _illegal_and_replays(text)


def test_unknown_claim_is_refuted_by_running():
    """A data-dependent guard is outside the value comparison (unknown); a run shows it."""
    _, rep = _claim(SUM + "kernel a { for i in 0 .. N { y[i] = 0.0\n for k in 0 .. K {\n"
                          " if x[i, k] > 0.5 { y[i] += x[i, k] } } } }\n"
                          "kernel b { for i in 0 .. N { y[i] = 0.0\n for k in 0 .. K { y[i] += x[i, k] } } }\n"
                          "claim a == b\n")
    (o,) = [o for o in rep.obligations if o.status == "refuted"]
    assert o.engine == "run" and o.counterexample.sizes


def test_run_set_replays_a_z3_counterexample(tmp_path, capsys):
    """`vsched run --set 'x[0]=-0.0'` replays the z3 model's input and shows the bits."""
    f = tmp_path / "c.vs"
    f.write_text(ONE + "kernel a { for i in 0 .. N { y[i] = x[i] + 0.0 } }\n"
                       "kernel b { for i in 0 .. N { y[i] = x[i] } }\nclaim a == b\n")
    assert main(["run", str(f), "--size", "N=1", "--set", "x[0]=-0.0"]) == 1
    out = capsys.readouterr().out
    assert "DIFFERENT" in out and "bits 0x00000000 vs 0x80000000" in out
    assert main(["run", str(f), "--size", "N=1", "--set", "x[0]=0x1p-3"]) == 0


def test_run_special_inputs(tmp_path, capsys):
    f = tmp_path / "c.vs"
    f.write_text(SUM + "kernel a { for i in 0 .. N { y[i] = -0.0\n for k in 0 .. K { y[i] += x[i, k] } } }\n"
                       "kernel b { for i in 0 .. N { y[i] = 0.0\n for k in 0 .. K { y[i] += x[i, k] } } }\n"
                       "claim a == b\n")
    assert main(["run", str(f), "--size", "N=1,K=2", "--inputs", "special", "--seed", "0"]) == 1
    assert "DIFFERENT" in capsys.readouterr().out


@pytest.mark.parametrize("spec, message", [
    ("x[5]=1.0", "outside its storage"),
    ("x[0=1.0", "expected --set"),
    ("q[0]=1.0", "no global tensor q"),
    ("x[0]=abc", "not a value"),
])
def test_run_set_errors(tmp_path, capsys, spec, message):
    f = tmp_path / "c.vs"
    f.write_text(ONE + "kernel a { for i in 0 .. N { y[i] = x[i] } }\nkernel b { for i in 0 .. N { y[i] = x[i] } }\n"
                       "claim a == b\n")
    assert main(["run", str(f), "--size", "N=1", "--set", spec]) == 2
    assert message in capsys.readouterr().err


def test_negative_zero_start_of_a_sum_of_products_is_not_a_zero_fill():
    """A `y = -0.0` nest is no zero fill (the sum-of-products path took it for one): products
    -0.0 * 1.0 keep the sum at -0.0; the special pattern of tensors alternately -0.0 and 1.0
    shows it."""
    rep = _illegal_and_replays(
        "params N, K where N >= 1, K >= 1\ntensor a[N, K] f32\ntensor b[K] f32\ntensor y[N] f32\n"
        "kernel p { for i in 0 .. N { y[i] = -0.0 }\n for i in 0 .. N { for k in 0 .. K { y[i] += a[i, k] * b[k] } } }\n"
        "kernel q { zero y\n for i in 0 .. N { for k in 0 .. K { y[i] += a[i, k] * b[k] } } }\nclaim p == q\n")
    cex = next(o.counterexample.to_json() for o in rep.obligations if o.status == "refuted")
    assert cex["inputs"] == "special"


def test_float_literals_compare_bitwise_not_by_python_float_eq():
    """Issue 20 (one meaning): ir.Float compared with Python's float `==`, so trees differing
    only in a signed zero were identical (split_reduction's start-value check among them)."""
    from verified_sched.core import ir
    from verified_sched.ops.split_reduction.proofs import _same_value

    assert ir.Float(-0.0) != ir.Float(0.0) and ir.Float(0.0) == ir.Float(0.0)
    assert ir.Float(float("nan")) == ir.Float(float("nan"))  # the same literal is the same tree
    assert len({ir.Float(0.0), ir.Float(-0.0)}) == 2
    a = ir.BinOp("+", ir.Load("x", (ir.Var("i"),)), ir.Float(0.0))
    b = ir.BinOp("+", ir.Load("x", (ir.Var("i"),)), ir.Float(-0.0))
    assert a != b
    assert not _same_value(ir.Float(-0.0), ir.Float(0.0)) and _same_value(ir.Float(0.0), ir.Float(0.0))
