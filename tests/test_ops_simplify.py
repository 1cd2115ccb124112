"""The simplifier: index normalization, isl-decided guard folding, empty loops."""
from __future__ import annotations

import pytest

from verified_sched.dsl import parse_text
from verified_sched.core.printer import expr_text, print_kernel
from verified_sched.core.ir import BinOp, Call, FloorDiv, Int, Load, Mod, Var
from verified_sched.analysis.simplify import Context, norm_index, simplify_kernel

N, I, J = Var("N"), Var("i"), Var("j")


def add(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = BinOp("+", out, x)
    return out


def mul(c, x):
    return BinOp("*", Int(c), x)


@pytest.mark.parametrize("expr, text", [
    (FloorDiv(add(mul(32, FloorDiv(add(N, Int(31)), 32)), Int(31)), 32), "floor((N + 31) / 32)"),
    (FloorDiv(add(mul(8, I), Var("ii"), Int(9)), 8), "i + floor((ii + 1) / 8) + 1"),
    (Mod(add(mul(8, I), Int(3)), 4), "3"),
    (Mod(add(mul(4, I), J), 4), "j % 4"),
    (BinOp("-", add(mul(2, I), J, Int(1)), add(I, J)), "i + 1"),
    (Call("min", (add(I, Int(2)), add(I, Int(5)))), "i + 2"),
    (Call("max", (Int(3), Int(7))), "7"),
    (BinOp("-", Int(0), N), "-1 * N"),
    (BinOp("-", Int(3), N), "3 - N"),
    (add(Call("neg", (I,)), N), "N - i"),
    (mul(3, mul(2, add(I, Int(1)))), "6 * i + 6"),
])
def test_norm_index(expr, text):
    assert expr_text(norm_index(expr)) == text


def test_scalar_expressions_are_not_reassociated():
    e = BinOp("+", BinOp("-", Load("x", (I,)), Load("y", (I,))), Load("z", (I,)))
    assert norm_index(e) is not None
    prog = parse_text("""params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    y[i] = x[i] - y[i] + x[i]
  }
}
""")
    k = prog.kernel("k")
    assert simplify_kernel(prog, k) == k


def _simp(body: str, params="N where N >= 1", extra="") -> str:
    prog = parse_text(f"""params {params}
tensor x[N] f32
tensor y[N, N] f32
{extra}
kernel k {{
{body}
}}
""")
    out = print_kernel(simplify_kernel(prog, prog.kernel("k"))).strip().splitlines()[1:-1]
    return "\n".join(line[2:] for line in out)


def test_guard_proved_by_loop_domain_is_dropped():
    assert _simp("for i in 0 .. N {\n if i < N {\n x[i] = 1.0\n }\n }") == \
        "for i in 0 .. N {\n  x[i] = 1.0\n}"


def test_guard_refuted_keeps_else_branch():
    assert _simp("for i in 0 .. N {\n if i >= N {\n x[i] = 1.0\n } else {\n x[i] = 2.0\n }\n }") == \
        "for i in 0 .. N {\n  x[i] = 2.0\n}"


def test_isl_not_intervals_decides_triangular_guard():
    # intervals give i + j <= 2N - 2; the domain j < N - i proves i + j < N
    body = "for i in 0 .. N {\n for j in 0 .. N - i {\n if i + j < N {\n y[i, j] = 1.0\n }\n }\n }"
    assert "if" not in _simp(body)


def test_undecided_guard_is_kept_and_conjunct_dropped():
    body = "for i in 0 .. N {\n if i < N and x[i] > 0 {\n if i < N - 1 {\n x[i] = 1.0\n }\n }\n }"
    assert _simp(body) == ("for i in 0 .. N {\n  if x[i] > 0 {\n    if i < N - 1 {\n"
                           "      x[i] = 1.0\n    }\n  }\n}")


def test_param_constraints_are_used():
    assert _simp("if N >= 2 {\n x[0] = 1.0\n }", params="N where N >= 4") == "x[0] = 1.0"
    assert _simp("if N >= 2 {\n x[0] = 1.0\n }", params="N where N >= 1") == \
        "if N >= 2 {\n  x[0] = 1.0\n}"


def test_where_condition_folded():
    assert _simp("for i in 0 .. N {\n x[i] = where(i < N, x[i], 0.0)\n }") == \
        "for i in 0 .. N {\n  x[i] = x[i]\n}"


def test_empty_loops_removed_only_when_provably_empty():
    assert _simp("for i in N .. N {\n x[i] = 1.0\n }\n x[0] = 2.0") == "x[0] = 2.0"
    assert _simp("for i in 0 .. N - 1 {\n x[i] = 1.0\n }") == "for i in 0 .. N - 1 {\n  x[i] = 1.0\n}"


def test_guard_context_ignores_data_conditions():
    body = "for i in 0 .. N {\n if x[i] > 0 {\n if i < N {\n x[i] = 1.0\n }\n }\n }"
    assert _simp(body) == "for i in 0 .. N {\n  if x[i] > 0 {\n    x[i] = 1.0\n  }\n}"


def test_context_decide_and_counterexample():
    from verified_sched.core.ir import Cmp
    ctx = Context(("N",), ("v_N >= 1",)).with_iter("i")
    ctx = ctx.add(Cmp("<", I, N)).add(Cmp(">=", I, Int(0)))
    assert ctx.decide(Cmp("<", I, add(N, Int(1)))) is True
    assert ctx.decide(Cmp(">", I, N)) is False
    assert ctx.decide(Cmp("<", I, Int(3))) is None
    cex = ctx.counterexample(Cmp(">=", I, Int(3)))
    assert cex["i"] >= 3 and cex["N"] > cex["i"]


def test_integer_arithmetic_in_values_is_not_folded():
    """-(i) at i = 0 is -0.0 in float: folding the unrolled copy to 0 would change its bits."""
    from test_ops_support import assert_same_results, scheduled
    text = """params N where N >= 1
tensor y[N, 2] f32
kernel k {
  for j in 0 .. N {
    for i in 0 .. 2 {
      y[j, i] = -i
    }
  }
}
schedule k {
  unroll i materialize
}
"""
    before, after, k = scheduled(text)
    assert "y[j, 0] = -(0)" in print_kernel(after.kernel(k))
    assert_same_results(before, after, k, {"N": 2})
