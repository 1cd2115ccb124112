"""ir.nodes_of / ir.fact (facts computed once per immutable IR node and kept on it) and the
helpers built on them (free_vars, reads, accumulation): the same answers as a plain walk, on
random programs, walked once per node however often asked, and never pickled."""
from __future__ import annotations

import copy
import pickle

from hypothesis import HealthCheck, given, settings

from verified_sched.core import ir
from verified_sched.fuzz.strategies import programs

CLASSES = (ir.For, ir.Var, ir.Load, (ir.Assign, ir.Zero), (ir.Load, ir.Assign, ir.Zero), ir.Node)


def _plain(x, cls) -> list:
    return [n for n in ir.walk(x) if isinstance(n, cls)]


def _every_node(program):
    for k in program.kernels:
        yield k.body
        yield from ir.walk(k.body)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_cached_facts_equal_a_plain_walk(program):
    for _ in range(2):  # computed, then kept: the same answers both times
        for x in _every_node(program):
            for cls in CLASSES:
                assert list(ir.nodes_of(x, cls)) == _plain(x, cls)
            assert ir.free_vars(x) == {n.name for n in _plain(x, ir.Var)}
            assert ir.reads(x) == _plain(x, ir.Load)
            if isinstance(x, ir.Assign):
                target = ir.Load(x.tensor, x.index)
                fresh = ir.Assign(x.tensor, x.index, x.value)  # equal, nothing kept on it yet
                assert ir.accumulation(x) == ir.accumulation(fresh)
                if ir.accumulation(x) is not None:
                    assert target not in _plain(ir.accumulation(x)[1], ir.Load)


def test_a_node_is_walked_once_per_class_however_often_asked():
    loop = ir.For("i", ir.Int(0), ir.Var("N"), "serial", (ir.Assign("y", (ir.Var("i"),), ir.Load("x", (ir.Var("i"),))),))
    before = dict(ir.FACT_STATS)
    for _ in range(5):
        assert [f.var for f in ir.nodes_of(loop, ir.For)] == ["i"]
        assert ir.free_vars(loop) == {"i", "N"}
    # For and Var, each for the loop and for the statement below it (kept there too)
    assert ir.FACT_STATS["walks"] - before["walks"] == 4
    assert ir.FACT_STATS["reused"] - before["reused"] == 8


def test_a_node_rebuilt_above_unchanged_statements_walks_only_what_is_new():
    stmt = ir.Assign("y", (ir.Var("i"),), ir.Load("x", (ir.Var("i"), ir.Var("j"))))
    loop = ir.For("i", ir.Int(0), ir.Var("N"), "serial", (stmt,))
    assert ir.free_vars(loop) == {"i", "j", "N"}
    before = dict(ir.FACT_STATS)
    rebuilt = ir.For("i", ir.Int(0), ir.Var("M"), "serial", (stmt, ir.Zero("z")))  # `stmt` shared
    assert ir.nodes_of(rebuilt, ir.Var) == tuple(n for n in ir.walk(rebuilt) if isinstance(n, ir.Var))
    assert ir.FACT_STATS["walks"] - before["walks"] == 1  # the new loop; the statement's answer is reused
    assert ir.FACT_STATS["reused"] - before["reused"] == 1


def test_callers_get_their_own_sets_and_lists():
    e = ir.BinOp("+", ir.Load("x", (ir.Var("i"),)), ir.Var("j"))
    ir.free_vars(e).add("k")
    ir.reads(e).clear()
    assert ir.free_vars(e) == {"i", "j"} and len(ir.reads(e)) == 1


def test_statement_tuples_are_kept_by_identity_not_by_value():
    a = (ir.Zero("y"),)
    b = tuple(a)  # equal value; another tuple could be built from other nodes later
    assert ir.nodes_of(a, ir.Zero) == (a[0],)
    c = (ir.Zero("z"),)
    assert ir.nodes_of(c, ir.Zero) == (c[0],) and ir.nodes_of(b, ir.Zero) == (a[0],)
    assert ir.nodes_of([ir.Zero("y")], ir.Zero) == ()  # a list is not walked (walk yields nothing)


def test_kept_facts_are_not_pickled_nor_copied():
    loop = ir.For("i", ir.Int(0), ir.Var("N"), "serial", (ir.Zero("y"),))
    ir.nodes_of(loop, ir.Zero)
    hash(loop)
    assert "_facts" in loop.__dict__
    for other in (pickle.loads(pickle.dumps(loop)), copy.copy(loop), copy.deepcopy(loop)):
        assert other == loop and "_facts" not in other.__dict__ and "_hash" not in other.__dict__


def test_fact_computes_once_per_node():
    calls = []

    def count(node):
        calls.append(node)
        return len(_plain(node, ir.Node))

    e = ir.BinOp("*", ir.Var("a"), ir.Int(2))
    assert ir.fact(e, count) == ir.fact(e, count) == 3 and len(calls) == 1


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_reads_in_context_without_lazy_nodes_is_every_read_under_the_context(program):
    from polyhedral.lazy import lazy_reads, reads_in_context

    ctx = (ir.Cmp("<", ir.Var("i"), ir.Int(3)),)
    for x in _every_node(program):
        for c in ((), ctx):
            assert reads_in_context(x, c) == lazy_reads(x, c)


def test_reads_in_context_of_a_where_keeps_the_branch_conditions():
    from polyhedral.lazy import reads_in_context

    c = ir.Cmp("<", ir.Var("i"), ir.Int(3))
    a, b = ir.Load("x", (ir.Var("i"),)), ir.Load("y", (ir.Var("i"),))
    (ra, ca), (rb, cb) = reads_in_context(ir.Where(c, a, b))
    assert (ra, ca) == (a, (c,)) and rb == b and len(cb) == 1 and cb[0] != c


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_isl_text_of_a_condition_kept_on_it_is_the_computed_one(program):
    from verified_sched.analysis import simplify

    def answer(fn, c):
        try:
            return fn(c)
        except simplify.NotAffine:
            return "NotAffine"

    conds = [n for x in _every_node(program) for n in ir.nodes_of(x, (ir.Cmp, ir.And, ir.Or, ir.Not))]
    conds += [ir.Cmp("<", ir.Var("i"), ir.Load("x", (ir.Int(0),)))]  # not affine: raised every time
    for c in conds:
        first = answer(simplify.isl_cond, c)
        assert first == answer(simplify.isl_cond, c) == answer(simplify._isl_cond, c)  # noqa: SLF001
