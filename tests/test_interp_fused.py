"""The scalar interpreter's fused accesses (verified_sched/interp/closures.py `fused_int`,
`fused_reader`, `fused_writer`): one generated function per access instead of a closure per
node. They must compute what the closure trees compute, raise the same errors, and compile
each access shape once (work counted, never timed)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_sched.core import ir
from verified_sched.core.errors import KernelError
from verified_sched.interp import closures
from verified_sched.interp.closures import fused_int, fused_reader, fused_writer, integer, reader, writer
from verified_sched.interp.scalar import bounds_checker

VARS = ("i", "j", "N")
PICK = {"min": min, "max": max}


@st.composite
def int_exprs(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        if draw(st.booleans()):
            return ir.Int(draw(st.integers(-9, 9)))
        return ir.Var(draw(st.sampled_from(VARS)))
    kind = draw(st.sampled_from(("bin", "bin", "div", "mod", "minmax")))
    a = draw(int_exprs(depth=depth - 1))
    if kind == "div":
        return ir.FloorDiv(a, draw(st.integers(1, 5)))
    if kind == "mod":
        return ir.Mod(a, draw(st.integers(1, 5)))
    b = draw(int_exprs(depth=depth - 1))
    if kind == "minmax":  # not spelled out: a call of its closure
        return ir.Call(draw(st.sampled_from(("min", "max"))), (a, b))
    return ir.BinOp(draw(st.sampled_from("+-*")), a, b)


def closure(e):
    """The closure tree (closures.integer), the slow computation the fused one replaces."""
    return integer(e, closure, PICK)


def envs():
    return st.fixed_dictionaries({v: st.integers(-20, 20) for v in VARS})


@settings(max_examples=300, deadline=None)
@given(e=int_exprs(), env=envs())
def test_fused_integer_expressions_equal_the_closure_trees(e, env):
    assert fused_int(e, closure)(env, None) == closure(e)(env, None)


@settings(max_examples=200, deadline=None)
@given(index=st.lists(int_exprs(depth=2), min_size=0, max_size=3), env=envs(), shape=st.lists(st.integers(1, 6), min_size=3, max_size=3))
def test_fused_reads_and_writes_equal_the_closure_accesses_and_fail_alike(index, env, shape):
    shape = tuple(shape[:len(index)])
    bounds, results = bounds_checker(set()), []

    class St:
        hw: dict = {}

    for make_reader, make_writer in ((reader, writer), (None, None)):
        st_ = St()
        st_.mem = {"t": np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)}
        out = []
        if make_reader is None:
            load = fused_reader("t", index, closure, bounds, None, float)
            store = fused_writer("t", index, closure, bounds, None, lambda env, st: 7.5, float)
        else:
            load = reader("t", [closure(x) for x in index], bounds, None, float)
            store = writer("t", [closure(x) for x in index], bounds, None, lambda env, st: 7.5, float)
        for fn in (load, store, load):
            try:
                out.append(fn(env, st_))
            except KernelError as err:
                out.append(("KernelError", str(err)))
        out.append(st_.mem["t"].tobytes())
        results.append(out)
    assert results[0] == results[1]


def test_an_access_shape_compiles_once_whatever_its_names_and_constants(monkeypatch):
    """The generated source names values by position only: accesses that differ in tensor
    and variable names and in constants share one compiled code object."""
    monkeypatch.setattr(closures, "_CODE", {})
    bounds = bounds_checker(set())
    for name, var, k in (("a", "i", 4), ("b", "j", 8), ("c", "k", 3)):
        index = (ir.BinOp("+", ir.BinOp("*", ir.Var(var), ir.Int(k)), ir.Int(1)), ir.Mod(ir.Var(var), k))
        fused_reader(name, index, closure, bounds, None, float)
        fused_writer(name, index, closure, bounds, None, lambda env, st: 1.0, float)
    assert len(closures._CODE) == 2  # one reader shape, one writer shape


def test_an_out_of_bounds_fused_read_names_the_tensor_index_and_instance():
    bounds = bounds_checker({"N"})

    class St:
        hw = {"thread.x": 1}
        mem = {"a": np.zeros((2, 3))}

    load = fused_reader("a", (ir.Var("i"), ir.BinOp("+", ir.Var("i"), ir.Int(2))), closure, bounds, None, float)
    assert load({"N": 2, "i": 0}, St()) == 0.0
    with pytest.raises(KernelError, match=r"a\[1, 3\] outside its storage \[2, 3\] at i=1, thread.x=1"):
        load({"N": 2, "i": 1}, St())


def test_integer_operators_follow_the_semantics_table(monkeypatch):
    """`+ - *` are spelled as Python's operators only while the table evaluates them so: a
    replaced table row (a semantic mutant, benchmarks/semantic_mutants.py) is what runs."""
    from verified_sched.core.semantics import ROWS

    e = ir.BinOp("+", ir.Var("i"), ir.Int(2))
    assert fused_int(e, closure)({"i": 5}, None) == 7
    monkeypatch.setitem(ROWS["add"].ev, "index", lambda a, b: a + b + 100)
    assert fused_int(e, closure)({"i": 5}, None) == 107
