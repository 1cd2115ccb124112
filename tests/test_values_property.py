"""Issue 20: the verdict on `claim a == b` for generated expression pairs agrees with running
both kernels on special-value and random inputs. Pairs: special-value constants, casts between
all precisions, min/max, fma, integer trees; the second expression a rewrite of the first
(commuted, regrouped, a signed zero flipped, `+ 0.0` / `* 1.0` added, a cast inserted) or an
independent one. legal => bitwise equal on every input set; refuted => the counterexample
replays. (The interpreter runs both sides here; it agrees with C bitwise by design.)"""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified_sched.oracle.compare import compare_kernels
from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.core.printer import expr_text
from verified_sched.interp.interpreter import run_kernel
from verified_sched.verify.refute_run import INPUT_SETS
from verified_sched.verify.driver import verify_program

FLOAT_CONSTS = (-0.0, 0.0, 1.0, -1.0, 0.5, 2.0, 65504.0, 3.0e38, 1e300)
INT_CONSTS = (0, 1, -1, 2, 2147483647, -2147483647)
FLOAT_PRECS = ("f16", "bf16", "f32", "f64")


def _leaf(k):
    return ir.Load(f"x{k}", (ir.Var("i"),))


@st.composite
def trees(draw, integer: bool, depth: int = 3):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            return _leaf(draw(st.integers(0, 1)))
        return ir.Int(draw(st.sampled_from(INT_CONSTS))) if integer else ir.Float(draw(st.sampled_from(FLOAT_CONSTS)))
    sub = trees(integer, depth - 1)
    kind = draw(st.sampled_from(("bin", "bin", "minmax", "unary", "fma") + (() if integer else ("cast",))))
    if kind == "bin":
        return ir.BinOp(draw(st.sampled_from(("+", "-", "*"))), draw(sub), draw(sub))
    if kind == "minmax":
        return ir.Call(draw(st.sampled_from(("min", "max"))), (draw(sub), draw(sub)))
    if kind == "unary":
        return ir.Call(draw(st.sampled_from(("neg", "abs"))), (draw(sub),))
    if kind == "fma":
        return ir.Call("fma", (draw(sub), draw(sub), draw(sub)))
    return ir.Cast(draw(st.sampled_from(FLOAT_PRECS)), draw(sub))


def _rewrite(e, how: str):
    """One rewrite at the root (or the tree unchanged when it does not apply)."""
    match how, e:
        case "commute", ir.BinOp(op=("+" | "*") as op, a=a, b=b):
            return ir.BinOp(op, b, a)
        case "commute", ir.Call(fn=("min" | "max") as fn, args=(a, b)):
            return ir.Call(fn, (b, a))
        case "regroup", ir.BinOp(op=("+" | "*") as op, a=ir.BinOp(op=op2, a=a, b=b), b=c) if op2 == op:
            return ir.BinOp(op, a, ir.BinOp(op, b, c))
        case "flipzero", ir.Float(value=v) if v == 0.0:
            return ir.Float(-v)
        case "pluszero", _:
            return ir.BinOp("+", e, ir.Float(0.0))
        case "timesone", _:
            return ir.BinOp("*", e, ir.Float(1.0))
        case "cast", _:
            return ir.Cast("f32", e)
    return e


def _deep(e, how: str, path: list):
    """The rewrite applied at the node `path` leads to (child indices)."""
    if not path:
        return _rewrite(e, how)
    k, rest = path[0], path[1:]
    match e:
        case ir.BinOp(op=op, a=a, b=b):
            return ir.BinOp(op, _deep(a, how, rest), b) if k % 2 == 0 else ir.BinOp(op, a, _deep(b, how, rest))
        case ir.Call(fn=fn, args=args):
            j = k % len(args)
            return ir.Call(fn, tuple(_deep(x, how, rest) if n == j else x for n, x in enumerate(args)))
        case ir.Cast(prec=p, a=a):
            return ir.Cast(p, _deep(a, how, rest))
    return _rewrite(e, how)


@st.composite
def pairs(draw):
    integer = draw(st.booleans()) and draw(st.booleans())  # i32 trees a quarter of the time
    out = "i32" if integer else draw(st.sampled_from(FLOAT_PRECS))
    inp = "i32" if integer else draw(st.sampled_from(FLOAT_PRECS))
    a = draw(trees(integer))
    if draw(st.integers(0, 4)) == 0:
        b = draw(trees(integer))
    else:
        hows = ("commute", "regroup", "flipzero") + (() if integer else ("pluszero", "timesone", "cast"))
        b = _deep(a, draw(st.sampled_from(hows)), draw(st.lists(st.integers(0, 2), max_size=3)))
    return out, inp, a, b


def _program(out, inp, a, b) -> str:
    return (f"params N where N >= 1\ntensor x0[N] {inp}\ntensor x1[N] {inp}\ntensor y[N] {out}\n"
            f"kernel a {{ for i in 0 .. N {{ y[i] = {expr_text(a)} }} }}\n"
            f"kernel b {{ for i in 0 .. N {{ y[i] = {expr_text(b)} }} }}\nclaim a == b\n")


def _interp(program):
    return lambda k, s, arr: run_kernel(program, k, s, arr)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs())
def test_claim_verdict_agrees_with_special_value_runs(pair):
    program = parse_text(_program(*pair))
    (rep,) = [r for r in verify_program(program) if "==" in r.kernel]
    run = _interp(program)
    if rep.verdict == "legal":
        for inputs, seed in INPUT_SETS:
            r = compare_kernels(program, "a", "b", {"N": 3}, seed, inputs, run, run)
            assert r.equal, (pair, inputs, seed, r.text())
    elif rep.verdict == "illegal":
        cex = next(o.counterexample.to_json() for o in rep.obligations if o.status == "refuted")
        r = compare_kernels(program, "a", "b", cex["params"], cex.get("seed", 0), cex.get("inputs", "random"),
                            run, run, values=cex.get("values"))
        assert not r.equal, (pair, cex)
