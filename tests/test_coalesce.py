"""Loop coalescing for the polyhedral model (analysis/coalesce.py): the coalesced kernel runs
the same statement instances, touching the same cells, standing for the same originals, in
the same order."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from verified_sched.analysis import coalesce
from verified_sched.analysis.coalesce import coalesce_kernel
from verified_sched.core import ir
from verified_sched.core.int_eval import eval_cond, eval_int
from verified_sched.core.ir import Assign, BinOp, Cmp, For, If, Int, Load, Var
from verified_sched.dsl import parse_text
from verified_sched.ops import apply_schedule


def trace(stmts, env):
    """Every assignment executed, in order: (sid, index, provenance, loads' indices)."""
    out = []
    for s in stmts:
        match s:
            case For(var=v, lo=lo, hi=hi, body=b):
                for x in range(eval_int(lo, env), eval_int(hi, env)):
                    out += trace(b, {**env, v: x})
            case If(cond=c, then=t, orelse=e):
                out += trace(t if eval_cond(c, env) else e, env)
            case Assign(sid=sid, index=idx, provenance=prov, value=val):
                loads = tuple(tuple(eval_int(x, env) for x in n.index) for n in ir.walk(val) if isinstance(n, Load))
                out.append((sid, tuple(eval_int(x, env) for x in idx),
                            tuple((k, eval_int(x, env)) for k, x in prov), loads))
    return out


def _kernel(text: str):
    program = apply_schedule(parse_text(text), "k")
    return program, program.kernel("k")


def _loops(stmts) -> int:
    return sum(1 for n in ir.walk(stmts) if isinstance(n, For))


SPLIT3 = """params N where N >= 1
tensor x[8 * N] f32
tensor y[8 * N] f32
kernel k {
  for i in 0 .. 8 * N {
    y[i] = x[i]
  }
}
schedule k {
  split i by 2 -> a, b
  split a by 2 -> c, d
  split c by 2 -> e, f
}
"""


def test_nested_splits_coalesce_back_to_one_loop():
    program, k = _kernel(SPLIT3)
    assert _loops(k.body) == 4
    c = coalesce_kernel(k)
    assert _loops(c.body) == 1
    (loop,) = c.body
    (stmt,) = loop.body
    assert stmt.index == (Var(loop.var),) and stmt.provenance == (("i", Var(loop.var)),)
    for n in (1, 3):
        assert trace(c.body, {"N": n}) == trace(k.body, {"N": n})


def test_a_guarded_tail_coalesces_with_its_guard():
    text = SPLIT3.replace("8 * N", "N").replace("N >= 1", "N >= 1").split("schedule")[0]
    text += "schedule k {\n  split i by 4 -> io, ii\n}\n"
    program, k = _kernel(text)
    c = coalesce_kernel(k)
    assert _loops(c.body) == 1 and isinstance(c.body[0].body[0], If)
    for n in (1, 5, 8):
        assert trace(c.body, {"N": n}) == trace(k.body, {"N": n})


def test_a_chain_the_body_breaks_is_left_alone():
    """`reverse ii` makes the body use 4*io - ii: not one combination of the two loops."""
    text = SPLIT3.split("schedule")[0] + "schedule k {\n  split i by 4 -> io, ii\n  reverse ii\n}\n"
    program, k = _kernel(text)
    before = dict(coalesce.STATS)
    assert coalesce_kernel(k) is k
    assert coalesce.STATS["declined"] > before["declined"]


def test_a_parallel_or_hardware_loop_is_never_coalesced():
    text = SPLIT3.split("schedule")[0] + "schedule k {\n  split i by 4 -> io, ii\n  retype ii as vectorized\n}\n"
    program, k = _kernel(text)
    assert coalesce_kernel(k) is k


def _nest(extents, coefs, guard, scalar_use, floor_read=False):
    """for l0 in 0 .. N { for l1 in 0 .. F1 { ... t[sum c_j * l_j] = x[...] } } with the
    provenance o = sum c_j * l_j, maybe a guard on it, maybe a loop variable used as a value."""
    names = [f"l{j}" for j in range(len(extents) + 1)]
    e = Int(0)
    for c, v in zip(coefs, names):
        e = BinOp("+", e, BinOp("*", Int(c), Var(v)))
    value = ir.Cast("f32", Var(names[-1])) if scalar_use else Load("x", (ir.FloorDiv(e, 2) if floor_read else e,))
    body = (Assign("y", (e,), value, "S0", (("o", e),)),)
    if guard is not None:
        body = (If(Cmp("<", e, Int(guard)), body),)
    for v, f in reversed(list(zip(names[1:], extents))):
        body = (For(v, Int(0), Int(f), "serial", body),)
    return ir.Kernel("k", (For(names[0], Int(0), Var("N"), "serial", body),))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=3), st.data(), st.booleans(), st.booleans(),
       st.booleans())
def test_coalescing_keeps_every_instance_and_its_order(extents, data, proportional, scalar_use, floor_read):
    """Random chains: with mixed-radix coefficients (coalescable) or arbitrary ones (mostly
    not), a read through floor (the substitution path) or not (the linear forms' algebra);
    whatever coalesce_kernel returns executes the same assignments, with the same cells,
    provenance and reads, in the same order."""
    if proportional:
        scale = data.draw(st.integers(-3, 3))
        coefs = [scale]
        for f in reversed(extents):
            coefs.insert(0, coefs[0] * f)
    else:
        coefs = data.draw(st.lists(st.integers(-4, 4), min_size=len(extents) + 1, max_size=len(extents) + 1))
    guard = data.draw(st.one_of(st.none(), st.integers(0, 12)))
    k = _nest(extents, coefs, guard, scalar_use, floor_read)
    c = coalesce_kernel(k)
    if proportional and not scalar_use:
        assert _loops(c.body) == 1
    if scalar_use:
        assert c is k
    for n in (0, 1, 3):
        assert trace(c.body, {"N": n}) == trace(k.body, {"N": n})
