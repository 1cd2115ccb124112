"""print -> parse gives the same Program on generated programs, and the generated programs
keep the promises strategies.py makes (well formed; every access in bounds)."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.core.printer import cond_text, expr_text, print_program
from verified_sched.analysis.sizes import eval_cond, eval_int, example_sizes
from verified_sched.fuzz.strategies import kernels_for, programs
from verified_sched.analysis.wellformed import check_program

SLOW_OK = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SLOW_OK
@given(programs(dynamic=True, parallel=True, kernels=2, schedule="any", constant=True, profile=True))
def test_print_parse_round_trip(program):
    check_program(program)
    text = print_program(program)
    again = parse_text(text, "gen.vs")
    assert again == program, text
    assert print_program(again) == text


@settings(SLOW_OK, max_examples=25)
@given(programs(max_tensors=2, max_loops=2), st.data())
def test_kernels_for_round_trip(program, data):
    extra = data.draw(kernels_for(program, "extra", dynamic=True))
    with_extra = program.with_kernel(extra)
    check_program(with_extra)
    assert parse_text(print_program(with_extra)) == with_extra


# ---------------------------------------------------------------- in bounds


class _TooBig(Exception):
    pass


def _check_bounds(program, kernel, sizes, rng):
    """Walk every instance (guards that read data: both branches) and assert every index is
    inside its tensor's dims."""
    dims = {t.name: [eval_int(d, sizes) for d in t.dims] for t in program.tensors}
    budget = [20000]

    def load(_t, _idx):
        return rng.randint(-50, 50)

    def access(t, index, env):
        cell = [eval_int(x, env, load) for x in index]
        assert all(0 <= c < d for c, d in zip(cell, dims[t])), f"{t}{cell} outside {dims[t]} at {env}"

    def expr(e, env):
        for n in ir.walk(e):
            if isinstance(n, ir.Load):
                access(n.tensor, n.index, env)

    def run(body, env):
        for s in body:
            budget[0] -= 1
            if budget[0] < 0:
                raise _TooBig
            match s:
                case ir.For():
                    for v in range(eval_int(s.lo, env), eval_int(s.hi, env)):
                        run(s.body, {**env, s.var: v})
                case ir.Assign():
                    access(s.tensor, s.index, env)
                    expr(s.value, env)
                case ir.If():
                    expr(s.cond, env)
                    if ir.reads(s.cond):
                        run(s.then, env)
                        run(s.orelse, env)
                    else:
                        run(s.then if eval_cond(s.cond, env) else s.orelse, env)

    try:
        run(kernel.body, dict(sizes))
    except _TooBig:
        pass
    return 20000 - budget[0]


def test_bounds_checker_catches_out_of_bounds():
    p = parse_text("params N where N >= 1\ntensor x[N] f32\nkernel k {\n  for i in 0 .. N {\n"
                   "    if x[i] > 0.0 {\n      x[i + 1] = 1.0\n    }\n  }\n}\n")
    try:
        _check_bounds(p, p.kernels[0], {"N": 3}, random.Random(0))
    except AssertionError as err:
        assert "x[3] outside [3]" in str(err)
    else:
        raise AssertionError("the out-of-bounds write under a data guard was not found")


@SLOW_OK
@given(programs(dynamic=True, max_loops=3))
def test_generated_accesses_in_bounds(program):
    rng = random.Random(0)
    visited = 0
    for sizes in example_sizes(program, count=2):
        for k in program.kernels:
            visited += _check_bounds(program, k, sizes, rng)
    assert visited > 0


@settings(SLOW_OK, max_examples=25)
@given(programs(max_tensors=2, max_loops=2), st.data())
def test_kernels_for_accesses_in_bounds(program, data):
    extra = data.draw(kernels_for(program, "extra", max_loops=2))
    rng = random.Random(0)
    for sizes in example_sizes(program, count=2):
        _check_bounds(program, extra, sizes, rng)


def test_minimal_parentheses():
    p = parse_text("params N\ntensor x[N] f32\nkernel k {\n  x[0] = (1 + 2) * 3 - (4 - 5) + (6 + 7) - 8 * (9 * 10)\n}\n")
    value = p.kernels[0].body[0].value
    assert expr_text(value) == "(1 + 2) * 3 - (4 - 5) + (6 + 7) - 8 * (9 * 10)"
    e = ir.BinOp("-", ir.BinOp("-", ir.Var("a"), ir.Var("b")), ir.Call("neg", (ir.Call("neg", (ir.Var("c"),)),)))
    assert expr_text(e) == "a - b - -(-c)"
    c = ir.Not(ir.And(ir.Or(ir.BoolConst(True), ir.Cmp("<", ir.Var("a"), ir.Int(1))), ir.Not(ir.BoolConst(False))))
    assert cond_text(c) == "not ((true or a < 1) and not false)"


# ---------------------------------------------------------------- arbitrary expression trees

_names = st.sampled_from(("i", "j", "N", "floor", "exp", "f32"))  # function names are not reserved
_leaves = st.one_of(
    st.integers(-20, 20).map(ir.Int),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(ir.Float),
    _names.map(ir.Var),
)


def _exprs():
    return st.recursive(_leaves, lambda sub: st.one_of(
        st.builds(ir.BinOp, st.sampled_from(ir.BINOPS), sub, sub),
        st.builds(ir.FloorDiv, sub, st.integers(1, 9)),
        st.builds(ir.Mod, sub, st.integers(1, 9)),
        st.builds(lambda f, a: ir.Call(f, (a,)), st.sampled_from(("neg", "exp", "abs", "relu")), sub),
        st.builds(lambda f, a, b: ir.Call(f, (a, b)), st.sampled_from(("min", "max")), sub, sub),
        st.builds(lambda a, b, c: ir.Call("fma", (a, b, c)), sub, sub, sub),
        st.builds(ir.Cast, st.sampled_from(ir.PRECISIONS), sub),
        st.builds(lambda t, xs: ir.Load(t, tuple(xs)), st.sampled_from(("x", "idx")), st.lists(sub, min_size=1, max_size=2)),
        st.builds(ir.Where, _conds(sub, 1), sub, sub),
    ), max_leaves=12)


def _conds(sub, depth=2):
    atom = st.one_of(st.builds(ir.Cmp, st.sampled_from(ir.CMPOPS), sub, sub), st.booleans().map(ir.BoolConst))
    if depth == 0:
        return atom
    inner = _conds(sub, depth - 1)
    return st.one_of(atom, st.builds(ir.And, inner, inner), st.builds(ir.Or, inner, inner), st.builds(ir.Not, inner))


@settings(SLOW_OK, max_examples=200)
@given(_exprs())
def test_expression_text_round_trip(e):
    from verified_sched.dsl import parse_expr
    assert parse_expr(expr_text(e)) == e, expr_text(e)


@settings(SLOW_OK, max_examples=100)
@given(_conds(_exprs()))
def test_condition_text_round_trip(c):
    from verified_sched.dsl import parse_cond
    assert parse_cond(cond_text(c)) == c, cond_text(c)
