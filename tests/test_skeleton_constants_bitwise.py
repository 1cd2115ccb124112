"""Regression: coverage's value skeletons compared float constants by Python's `==` (`-0.0 ==
0.0`) and an integer equal to a float (`1 == 1.0`): two statements storing different
values had equal skeletons, so coverage (and the equal-stores test of idempotent recompute)
could call them the same computation. Constants are now compared bit for bit (one meaning)."""
from polyhedral.coverage import skeleton_of
from verified_sched.core import ir


def _skel(e):
    return skeleton_of(e, {}, [])


def test_signed_zeros_differ():
    x = ir.Load("a", (ir.Var("i"),))
    plus = ir.BinOp("+", x, ir.Float(0.0))
    minus = ir.BinOp("+", x, ir.Float(-0.0))
    assert _skel(plus) != _skel(minus)
    assert _skel(plus) == _skel(ir.BinOp("+", x, ir.Float(0.0)))


def test_nan_equals_same_nan():
    nan = float("nan")
    assert _skel(ir.Float(nan)) == _skel(ir.Float(nan))


def test_float_and_int_constants_differ():
    x = ir.Load("a", (ir.Var("i"),))
    a = ir.BinOp("*", x, ir.Float(1.0))
    assert _skel(ir.Float(2.0 ** 53)) != _skel(ir.Float(2.0 ** 53 + 2))
    assert _skel(a) != _skel(ir.BinOp("*", x, ir.Int(1)))
