"""IR -> isl text: affine, quasi-affine floor/mod, min/max (piecewise), ceil(N/8) as
floor((N+7)/8), constraints from `params ... where`, and sound approximation of what isl
cannot state; plus: concrete huge sizes cost what symbolic ones cost."""
from __future__ import annotations

import dataclasses

import islpy as isl
import pytest

from polyhedral.affine import NonAffine, aff, approx_cond, cond
from polyhedral.model import KernelModel
from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.core.ir import BinOp, Call, Cmp, FloorDiv, Int, Load, Mod, Not, Var

NAMES = {"N": "p0", "i": "i0", "j": "i1"}


def values(expr_text, **env):
    """All values the isl piecewise expression takes at a point (as a set of ints)."""
    params = ", ".join(f"p0 = {env['N']}" for _ in [0])
    s = isl.Set(f"[p0] -> {{ [v] : exists (i0 = {env['i']}, i1 = {env.get('j', 0)} : v = {expr_text}) and {params} }}")
    out = []
    s.foreach_point(lambda p: out.append(p.get_coordinate_val(isl.dim_type.set, 0).to_python()))
    return out


@pytest.mark.parametrize("expr,expect", [
    (BinOp("+", BinOp("*", Int(8), Var("i")), Var("j")), lambda N, i, j: 8 * i + j),
    (FloorDiv(BinOp("+", Var("N"), Int(7)), 8), lambda N, i, j: (N + 7) // 8),
    (Mod(BinOp("-", Var("i"), Int(3)), 4), lambda N, i, j: (i - 3) % 4),
    (Call("min", (BinOp("+", BinOp("*", Int(8), Var("i")), Var("j")), BinOp("-", Var("N"), Int(8)))),
     lambda N, i, j: min(8 * i + j, N - 8)),
    (Call("max", (Var("i"), BinOp("*", Int(-2), Var("j")))), lambda N, i, j: max(i, -2 * j)),
    (BinOp("*", BinOp("-", Int(0), Int(1)), BinOp("+", Var("i"), Int(2))), lambda N, i, j: -(i + 2)),
])
def test_expressions_match_python_floor_semantics(expr, expect):
    text = aff(expr, NAMES)
    for N, i, j in [(1, 0, 0), (9, 3, 5), (17, -4, 2), (8, 7, -3)]:
        with_j = text.replace("i1", f"({j})").replace("i0", f"({i})").replace("p0", f"({N})")
        got = isl.Set(f"{{ [v] : v = {with_j} }}")
        pts = []
        got.foreach_point(lambda p: pts.append(p.get_coordinate_val(isl.dim_type.set, 0).to_python()))
        assert pts == [expect(N, i, j)]


@pytest.mark.parametrize("expr", [
    BinOp("*", Var("N"), Var("i")), Load("x", (Var("i"),)), BinOp("/", Var("i"), Int(2)),
    ir.Float(1.0), BinOp("+", Var("i"), Var("unknown"))])
def test_non_affine_is_refused(expr):
    with pytest.raises(NonAffine):
        aff(expr, NAMES)


def test_data_dependent_conditions_are_approximated_soundly():
    data = Cmp(">", Load("x", (Var("i"),)), Int(0))
    c = ir.And(Cmp("<", Var("i"), Var("N")), data)
    def points(text):
        s = isl.Set(f"[p0] -> {{ [i0] : 0 <= i0 < 4 and p0 = 2 and {text} }}")
        return s.count_val().to_python()
    assert points(approx_cond(c, NAMES, over=True)) == 2  # may: i < N
    assert points(approx_cond(c, NAMES, over=False)) == 0  # surely: never
    # under a negation the polarity flips: not(data) may hold everywhere, surely nowhere
    assert points(approx_cond(Not(data), NAMES, over=True)) == 4
    assert points(approx_cond(Not(c), NAMES, over=False)) == 2  # i >= N surely falsifies c
    with pytest.raises(NonAffine):
        cond(data, NAMES)


def test_domain_with_min_bound_guard_and_param_constraints():
    p = parse_text("""params N, M where N >= 8, M == 2 * N
tensor x[M] f32
kernel k { for io in 0 .. floor((N + 7) / 8) { for ii in 0 .. 8 {
  if 8 * io + ii < N { x[min(8 * io + ii, N - 1)] = 1.0 } } } }""")
    m = KernelModel(p, "k")
    (dom,) = m.domains.values()
    fixed = dom.intersect_params(isl.Set("[p0, p1] -> { : p0 = 9 }"))
    assert fixed.count_val().to_python() == 9  # guard keeps exactly the N original points
    assert m.params_set().intersect(isl.Set("[p0, p1] -> { : p1 != 2p0 }")).is_empty()


MATMUL = """params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
kernel matmul { zero c
 for i in 0 .. N { for j in 0 .. M { for k in 0 .. K { c[i, j] += a[i, k] * b[k, j] } } } }
schedule matmul { split i by 32 -> io, ii
 split j by 8 -> jo, ji
 interchange ii, jo
 retype ji as vectorized }"""


def test_concrete_huge_sizes_cost_what_symbolic_sizes_cost(monkeypatch):
    """Counted in isl operations, not seconds (issue 23: no test depends on the machine's
    speed): sizes pinned to 10^6 verify within the same small operation budget per obligation
    as symbolic sizes (about 1% of the default), which enumerating 10^18 instances could not."""
    from verified_sched.core import budget
    from verified_sched.verify.driver import verify_program
    p = parse_text(MATMUL)
    huge = dataclasses.replace(p, constraints=p.constraints + tuple(
        Cmp("==", Var(n), Int(10 ** 6)) for n in p.params))
    monkeypatch.setattr(budget, "ISL_MAX_OPERATIONS", 100_000)
    for program in (p, huge):
        assert [r.verdict for r in verify_program(program, timeout=600.0)] == ["legal"]
