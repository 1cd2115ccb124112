"""One IR -> isl translator (polyhedral.affine; ops.winograd.isl_text renders through it with
prefixed names) and one IR -> z3 integer translator (smt.intexpr; ops.winograd.exact uses it).

Every translator is an `ExprMapper` registered with `expr_mapper.register`: each one defines
every node kind's method and, for every row of the semantics table (binop, fn, cmp, cast,
floor/mod), either its method or an explicit DECLINED entry (issue 20)."""
from __future__ import annotations

import islpy as isl
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen import c_expr
from verified_sched.core import dtypes
from polyhedral import affine
from smt import intexpr
from verified_sched.analysis import int_range, linear_form
from verified_sched.core import ir
from verified_sched.core.expr_mapper import NODE_METHODS, REGISTERED, ExprMapper
from verified_sched.mlir import emit_body
from verified_sched.core.semantics import ROWS
from verified_sched.ops.winograd import isl_text as wi

_atoms = st.one_of(st.integers(-5, 5).map(ir.Int), st.sampled_from(("N", "M")).map(ir.Var))
_exprs = st.recursive(_atoms, lambda sub: st.one_of(
    st.builds(ir.BinOp, st.sampled_from(("+", "-")), sub, sub),
    st.builds(lambda c, e: ir.BinOp("*", ir.Int(c), e), st.integers(-3, 3), sub),
    st.builds(ir.FloorDiv, sub, st.integers(1, 4)),
    st.builds(ir.Mod, sub, st.integers(1, 4)),
    st.builds(lambda f, a, b: ir.Call(f, (a, b)), st.sampled_from(("min", "max")), sub, sub)), max_leaves=5)
_int_exprs = st.recursive(_atoms, lambda sub: st.one_of(
    st.builds(ir.BinOp, st.sampled_from(("+", "-", "*")), sub, sub),
    st.builds(ir.FloorDiv, sub, st.integers(1, 4)), st.builds(ir.Mod, sub, st.integers(1, 4)),
    st.builds(lambda f, a, b: ir.Call(f, (a, b)), st.sampled_from(("min", "max")), sub, sub),
    st.builds(lambda f, a: ir.Call(f, (a,)), st.sampled_from(("neg", "abs", "relu")), sub)), max_leaves=6)
_conds = st.recursive(st.builds(ir.Cmp, st.sampled_from(ir.CMPOPS), _exprs, _exprs), lambda sub: st.one_of(
    st.builds(ir.And, sub, sub), st.builds(ir.Or, sub, sub), st.builds(ir.Not, sub)), max_leaves=3)


def missing_methods(cls) -> list:
    """The `map_<kind>` methods a mapper class does not override (inherits the raising default)."""
    return [name for name in NODE_METHODS.values()
            if getattr(cls, name) is getattr(ExprMapper, name)]


def missing_rows(cls) -> list:
    """The table rows (`semantics.ROWS`) a mapper class neither translates (its `Row.method`)
    nor declines (`DECLINED`)."""
    return [r.method for r in ROWS.values()
            if not callable(getattr(cls, r.method, None)) and r.method not in cls.DECLINED]


def test_one_non_affine_class():
    assert wi.NonAffine is affine.NonAffine
    with pytest.raises(affine.NonAffine):
        wi.aff(ir.BinOp("*", ir.Var("N"), ir.Var("M")), {"N", "M"})


@given(_conds)
@settings(max_examples=60, deadline=None)
def test_winograd_isl_negation_is_the_complement(c):
    ps = {"N", "M"}
    head = "[p_N, p_M]"
    box = "-20 <= p_N <= 20 and -20 <= p_M <= 20"
    yes = isl.Set(f"{head} -> {{ [] : {box} and {wi.cond(c, ps)} }}")
    no = isl.Set(f"{head} -> {{ [] : {box} and {wi.cond(c, ps, negate=True)} }}")
    whole = isl.Set(f"{head} -> {{ [] : {box} }}")
    assert yes.intersect(no).is_empty() and yes.union(no).is_equal(whole)
    # the same set as the engine's own names give
    mine = isl.Set(f"{head} -> {{ [] : {box} and {affine.cond(c, {'N': 'p_N', 'M': 'p_M'})} }}")
    assert mine.is_equal(yes)


@given(_conds, st.integers(-6, 6), st.integers(-6, 6))
@settings(max_examples=60, deadline=None)
def test_intexpr_condition_agrees_with_isl(c, n, m):
    """The z3 term and the isl text of one condition hold at the same points."""
    env: dict = {}
    s = z3.Solver()
    s.add(intexpr.cond(c, env), *(env[k] == v for k, v in (("N", n), ("M", m)) if k in env))
    in_isl = not isl.Set(f"[p_N, p_M] -> {{ [] : p_N = {n} and p_M = {m} and {wi.cond(c, {'N', 'M'})} }}").is_empty()
    assert (s.check() == z3.sat) == in_isl


def test_no_term_names_the_node():
    load = ir.Load("a", (ir.Int(0),))
    with pytest.raises(intexpr.NoTerm) as err:
        intexpr.term(ir.BinOp("+", ir.Var("N"), load), {})
    assert err.value.node == load and not err.value.in_condition


def test_every_registered_translator_handles_every_node_kind_and_table_row():
    names = {cls.__name__ for cls in REGISTERED}
    assert {"IntTerm", "IntEval", "Interval", "IslText", "IndexC", "ScalarC", "IndexMlir", "ScalarMlir",
            "LinearForm"} <= names, names
    assert dtypes.IntEval and int_range.Interval and affine.IslText and intexpr.IntTerm
    assert c_expr.ScalarC and emit_body.ScalarMlir and linear_form.LinearForm
    for cls in REGISTERED:
        assert not missing_methods(cls), (cls.__name__, missing_methods(cls))
        assert not missing_rows(cls), (cls.__name__, missing_rows(cls))


@given(_int_exprs, st.integers(-9, 9), st.integers(-9, 9))
@settings(max_examples=80, deadline=None)
def test_integer_translators_agree_with_the_table(e, n, m):
    """The exact evaluation, the z3 term and the interval of one integer expression agree."""
    env = {"N": n, "M": m}
    v = dtypes.eval_int(e, env)
    zenv: dict = {}
    t = intexpr.term(e, zenv)
    s = z3.Solver()
    s.add(*(zenv[k] == env[k] for k in zenv), t != v)
    assert s.check() == z3.unsat
    lo, hi = int_range.interval(e, {"N": (n, n), "M": (m, m)}, "test", {})
    assert lo <= v <= hi
