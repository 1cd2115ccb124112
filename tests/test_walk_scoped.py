"""ir.walk_scoped (the one walk with enclosing loops and guards) and rewrite's descend hook:
checked against a plain recursive definition on random programs and schedules."""
from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings

from verified_sched.core import ir
from verified_sched.fuzz.strategies import fuzz_examples, programs
from verified_sched.core.errors import ScheduleError
from verified_sched.ops import apply_op, apply_schedule
from verified_sched.dsl import parse_file

CASES = Path(__file__).parent / "cases"


def reference(body, path=(), loops=(), guards=(), core=None, field="body") -> list:
    """The definition, written out: (stmt, path, loops, guards, core) for every statement."""
    out = []
    for i, s in enumerate(body):
        p = path + ((field, i),)
        out.append((s, p, loops, guards, core))
        if isinstance(s, ir.For):
            out += reference(s.body, p, loops + (s,), guards, core)
        elif isinstance(s, ir.If):
            out += reference(s.then, p, loops, guards + (s.cond,), core, "then")
            out += reference(s.orelse, p, loops, guards + (ir.Not(s.cond),), core, "orelse")
        elif isinstance(s, ir.TensorCore):
            out += reference(s.fallback, p, loops, guards, s, "fallback")
    return out


def at(body, path):
    """The statement a path addresses."""
    node = None
    for field, i in path:
        node = (body if node is None else getattr(node, field))[i]
    return node


def check(body) -> None:
    got = [tuple(x) for x in ir.walk_scoped(body)]
    assert got == reference(body)
    stmts = [n for n in ir.walk(body) if isinstance(n, (ir.For, ir.If, ir.Assign, ir.Zero, ir.Barrier,
                                                         ir.TensorCore))]
    assert [x[0] for x in got] == stmts  # every statement, pre-order, none twice
    for x in ir.walk_scoped(body):
        assert at(body, x.path) is x.stmt


@given(programs(parallel=True, dynamic=True, kernels=2))
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_walk_scoped_matches_the_recursive_definition(program):
    for k in program.kernels:
        check(k.body)


@given(fuzz_examples(ops=("split", "tensorize", "stage", "privatize"), shapes=("tiled", "gpu"), sizes=1,
                     max_ops=3))
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_walk_scoped_matches_on_scheduled_kernels(ex):
    program, sched = ex.program, ex.program.schedule_for(ex.kernel)
    for op in (sched.ops if sched else ()):  # the fuzzer keeps a failing op at times
        try:
            program = apply_op(program, ex.kernel, op)
        except ScheduleError:
            break
    check(program.kernel(ex.kernel).body)


def test_walk_scoped_on_the_tensorized_corpus_kernel():
    """tests/cases/tensorize_matmul.vs after its schedule: the fallback is walked and marked."""
    program = parse_file(str(CASES / "tensorize_matmul.vs"))
    for k in program.kernels:
        body = apply_schedule(program, k.name).kernel(k.name).body
        check(body)
        got = list(ir.walk_scoped(body))
        inside = [x for x in got if x.core is not None]
        assert inside and all(any(f == "fallback" for f, _ in x.path) for x in inside)
        assert all(isinstance(x.stmt, ir.TensorCore) for x in got if x.stmt is not None
                   and any(y.core is x.stmt for y in got))


def test_walk_scoped_tensor_core_policy():
    """The fallback is descended, each statement there marked with its TensorCore; guards of
    an else branch are negated."""
    a = ir.Assign("c", (ir.Var("i"),), ir.Int(0))
    tc = ir.TensorCore("l", (16, 16, 16), (a,))
    cond = ir.Cmp("<", ir.Var("i"), ir.Int(3))
    loop = ir.For("i", ir.Int(0), ir.Int(8), "serial", (ir.If(cond, (ir.Zero("c"),), (tc,)),))
    got = list(ir.walk_scoped((loop,)))
    assert [type(x.stmt).__name__ for x in got] == ["For", "If", "Zero", "TensorCore", "Assign"]
    assert got[4].core is tc and got[3].core is None
    assert got[4].guards == (ir.Not(cond),) and got[2].guards == (cond,)
    assert got[4].loops == (loop,)
    assert got[4].path == (("body", 0), ("body", 0), ("orelse", 0), ("fallback", 0))
    # descend: skip below loops
    assert [type(x.stmt).__name__ for x in ir.walk_scoped((loop,), lambda x: not isinstance(x.stmt, ir.For))] \
        == ["For"]


def test_rewrite_descend_stops_below_a_node():
    inner = ir.BinOp("+", ir.Var("i"), ir.Int(1))
    e = ir.BinOp("*", inner, ir.Var("i"))

    def bump(n):
        return ir.Var("j") if n == ir.Var("i") else None

    assert ir.rewrite(e, bump) == ir.BinOp("*", ir.BinOp("+", ir.Var("j"), ir.Int(1)), ir.Var("j"))
    kept = ir.rewrite(e, bump, descend=lambda n: n is not inner)
    assert kept == ir.BinOp("*", inner, ir.Var("j")) and kept.a is inner
    # fn still applies to the node whose children are skipped
    assert ir.rewrite(ir.Var("i"), bump, descend=lambda n: False) == ir.Var("j")
    assert ir.rewrite(e, lambda n: None, descend=lambda n: True) is e
