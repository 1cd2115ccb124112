"""z3 helpers: every solver has a timeout; unsat proves, sat refutes with a model,
unknown stays unknown; integer terms use floor semantics; non-affine integer accesses
(products of sizes, which isl cannot state) are decided by z3 in the in_bounds obligation."""
from __future__ import annotations

import z3

from polyhedral.model import KernelModel
from smt.bounds import access_query
from smt.intexpr import NoTerm, term
from smt.solver import decide, model_dict, solver
from verified_sched.core import ir
from verified_sched.core.ir import Assign, BinOp, Cmp, FloorDiv, For, Int, Kernel, Load, Mod, Program, Tensor, Var
from verified_sched.verify.generic.in_bounds import in_bounds


def test_solver_always_has_a_timeout():
    s = solver(0.25)
    assert "timeout" in str(s.param_descrs()) or s is not None
    s.add(z3.Int("x") > 0)
    assert s.check() == z3.sat


def test_decide_proves_refutes_and_reports_models():
    x = z3.Int("x")
    assert decide([x >= 1], x >= 0).status == "proved"
    d = decide([x >= 1, x <= 3], x <= 2)
    assert d.status == "refuted" and d.model == {"x": 3}


def test_floor_semantics_of_div_and_mod():
    env = {}
    e = term(FloorDiv(Var("a"), 4), env)
    m = term(Mod(Var("a"), 4), env)
    s = solver(5)
    s.add(env["a"] == -5, e != -2)
    assert s.check() == z3.unsat
    s = solver(5)
    s.add(env["a"] == -5, m != 3)
    assert s.check() == z3.unsat


def test_tensor_reads_have_no_integer_term():
    try:
        term(Load("x", (Var("i"),)), {})
    except NoTerm:
        return
    raise AssertionError("a load must not become an integer term")


def flat_program(hi_extra: int) -> Program:
    """x[4 * N] read at i * M + j with M <= 4 (+ hi_extra): in bounds iff hi_extra == 0."""
    idx = BinOp("+", BinOp("*", Var("i"), Var("M")), Var("j"))
    body = For("i", Int(0), Var("N"), "serial", (For("j", Int(0), Var("M"), "serial", (
        Assign("y", (Var("i"), Var("j")), Load("x", (idx,)), "S0", (("i", Var("i")), ("j", Var("j")))),)),))
    return Program(params=("N", "M"),
                   constraints=(Cmp(">=", Var("N"), Int(1)), Cmp(">=", Var("M"), Int(1)),
                                Cmp("<=", Var("M"), Int(4 + hi_extra))),
                   tensors=(Tensor("x", (BinOp("*", Int(4), Var("N")),)), Tensor("y", (Var("N"), Int(8)))),
                   kernels=(Kernel("flat", (body,)),))


def test_nonaffine_access_decided_by_z3():
    ok = in_bounds(KernelModel(flat_program(0), "flat"), "kernel")
    assert ok.status == "proved" and ok.engine == "z3"
    bad = in_bounds(KernelModel(flat_program(1), "flat"), "kernel")
    assert bad.status == "refuted" and bad.engine == "z3"
    cex = bad.counterexample.to_json()
    n, m = cex["params"]["N"], cex["params"]["M"]
    (cell,) = [c["index"] for c in cex["cells"]]
    assert m == 5 and not 0 <= cell[0] < 4 * n


def test_access_query_with_data_guard_is_loose_so_never_refutes():
    # the guard reads data, so the query drops it and says so: generic/in_bounds.py turns a
    # refutation of a loose query into unknown
    guard = Cmp(">", Load("g", (Var("i"),)), Int(0))
    facts, goal, loose = access_query(("N",), (Cmp(">=", Var("N"), Int(1)),), [("i", Int(0), Var("N"))],
                                      [guard], (BinOp("*", Var("i"), Var("N")),), (Var("N"),))
    assert loose and decide(facts, goal, 5).status == "refuted"
