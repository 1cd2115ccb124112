"""The goals of tensorize (obligations.Goal records, decided by verified_sched/verify/discharge.py):

- `equivalence`: the block's contraction equals its fallback's (a Procedure: the contraction
  comparison of polyhedral/contraction.py over two small kernels);
- `race`: no two lanes of the lane loop conflict on a cell (an IslEmpty goal: the violations
  are the conflicting pairs of instances whose lane indices differ; the witness names both);
- `profile`: may the block's intrinsic reorder its sums (a Decided structural goal).

On `profile`: a tensor-core block means its scalar fallback run by lane 0, and the
interpreter, C and the emulator run exactly that. The CUDA backend renders the block as WMMA
when codegen.cuda_mma's rule matches (f16/bf16 operands, f32 target, shape multiples of 16, a
one-warp thread.x lane loop), and WMMA's summation order inside a fragment is unspecified. So
under `reproducible` a block that CUDA would render as WMMA is refuted; a block no backend
renders as an intrinsic runs the exact fallback everywhere and is proved. Under `default` /
`approximate` it is allowed; a WMMA-eligible block sets the `reassociates` flag (the
reassociation license covers the unspecified order: `vsched run` compares within tolerance),
an ineligible one does not.
"""
from __future__ import annotations

import dataclasses

from polyhedral.lazy_isl import isl

from polyhedral import contraction
from polyhedral.describe import coords, instance, param_values
from polyhedral.isltools import params_text
from polyhedral.model import KernelModel
from ...core import ir
from ...core.counterexample import Counterexample, Instance
from ...core.errors import ScheduleError, UsageError
from ...core.ir import Assign, BinOp, For, If, Int, Load, TensorCore, Var
from ...core.obligations import Decided, Goal, IslEmpty, Procedure, formal_statement
from .. import common
from .apply import Tile, tile

RACE = "forall params: no two lanes of the lane loop access one cell, one of them writing"
PROFILE = ("the tensor-core block runs its scalar fallback's summation order on every backend, "
           "or the profile licenses the intrinsic's unspecified order")


def obligations(ctx) -> list:
    """The goals of the tensorize op in `ctx`: equivalence, race, profile (ScheduleError when
    the op left no tensor-core block over its loop `i`)."""
    kernel, site = block(ctx)
    return [Goal("equivalence", formal_statement(equivalence), Procedure(lambda: equivalence(ctx, kernel, site))),
            race_goal(ctx, site), profile_goal(ctx, site)]


def find_block(kernel: ir.Kernel, i: str):
    """The site of the TensorCore whose fallback is the nest of loop `i`."""
    for s in common.sites(kernel.body):
        if isinstance(s.stmt, TensorCore) and any(isinstance(f, For) and f.var == i for f in s.stmt.fallback):
            return s
    return None


def block(ctx):
    """(the after-kernel, the site of the op's tensor-core block)."""
    kernel = ctx.after.kernel(ctx.kernel)
    site = find_block(kernel, common.base_name(ctx.op.i))
    if site is None:
        raise ScheduleError(f"tensorize: no tensor-core block over loop '{ctx.op.i}' after the op",
                            getattr(ctx.op, "loc", None))
    return kernel, site


def wrap_lanes(site, inner: tuple, lane: str) -> tuple:
    """`inner` under the site's guards and enclosing loops, the lane loop left out."""
    body = inner
    if site.guards:
        cond = site.guards[0]
        for g in site.guards[1:]:
            cond = ir.And(cond, g)
        body = (If(cond, body),)
    for lp in reversed(site.loops):
        if lp.var != lane:
            body = (dataclasses.replace(lp, body=body),)
    return body


def intrinsic_of(t: Tile, shape: tuple, used: set) -> tuple:
    """The contraction the tensor-core block performs, from its shape and the tile bases."""
    m, n, k = (Var(common.fresh_name(used, f"tc_{c}")) for c in "mnk")

    def at(load, r, c):
        base = t.base(load)
        return Load(load.tensor, base[:-2] + (BinOp("+", base[-2], r), BinOp("+", base[-1], c)))
    d = at(t.d, m, n)
    term = BinOp("*", at(t.a, m, k), at(t.b, k, n))
    s = Assign(d.tensor, d.index, BinOp("+", d, term), sid="TC", provenance=())
    body = (s,)
    for v, e in reversed(list(zip((m, n, k), shape))):
        body = (For(v.name, Int(0), Int(e), "serial", body),)
    return body


def equivalence(ctx, kernel, site) -> Decided:
    """Formal statement: forall params and every iteration of the loops around the block, the
    tensor-core contraction d[I0 + m, J0 + n] += a[A0 + m, A1 + k] * b[B0 + k, B1 + n] over the
    block's shape (m, n, k) adds to every cell of d the same multiset of products as the
    fallback nest (contraction equivalence with multiplicities, polyhedral/contraction.py, on
    two kernels holding the enclosing loops and guards around each; all tensors taken as
    global so every cell counts).

    A Procedure, not one emptiness query: the contraction comparison decides per tensor how
    each kernel builds it, then compares term sets both ways and their multiplicities, each
    with its own counterexample."""
    tc = site.stmt
    t = tile(ctx.after, tc.fallback[0], tuple(common.base_name(n) for n in (ctx.op.i, ctx.op.j, ctx.op.k)), ctx.op)
    used = common.used_names(ctx.after, kernel)
    spec = intrinsic_of(t, tc.shape, used)
    fb = wrap_lanes(site, tc.fallback, tc.lane)
    it = wrap_lanes(site, spec, tc.lane)
    prog = dataclasses.replace(
        ctx.after, tensors=tuple(dataclasses.replace(x, memory="global") for x in ctx.after.tensors),
        kernels=(ir.Kernel("tc_fallback", fb), ir.Kernel("tc_intrinsic", it)), schedules=(), claims=())
    found = contraction.equivalence(KernelModel(prog, "tc_intrinsic", tag="I"),
                                    KernelModel(prog, "tc_fallback", tag="F"), ctx.profile)
    f = dict(found)["equivalence"]
    f.statement = ("forall params: the tensor-core block's contraction (shape "
                   f"{'x'.join(map(str, tc.shape))} from the tile bases) adds the same products, with "
                   "multiplicity, to every cell as its scalar fallback")
    return f


def race_goal(ctx, site) -> Goal:
    """`race` as an isl emptiness goal on the after-kernel's model (the fallback runs under
    lane == 0): the violations are the pairs of instances inside the lane loop whose lane
    indices differ (all else equal or not) and that conflict on a cell, one of them writing;
    a sample pair is the witness."""
    lane = site.stmt.lane
    lane_loop = next((lp for lp in site.loops if lp.var == lane), None)
    if lane_loop is None or not any(isinstance(n, (Assign, ir.Zero)) for n in ir.walk(lane_loop.body)):
        return Goal("race", RACE, Decided("proved", "the block holds no statement", RACE))

    def violations():
        m = ctx.model_after
        inside = [st for st in m.stmts if any(lp.var == lane for lp in st.loops)]
        maps = []
        for s in inside:
            for t in inside:
                ls = next(d for d, lp in enumerate(s.loops) if lp.var == lane)
                lt = next(d for d, lp in enumerate(t.loops) if lp.var == lane)
                maps.append(isl.Map(m.space(f"{m.tup(s, 'a')} -> {m.tup(t, 'b')} : a{ls} != b{lt}")))
        return m.conflicts.intersect(m.union_map(maps))

    def witness(pt) -> Decided:
        m = ctx.model_after
        p, tup = coords(pt)
        params = param_values(m, p)
        insts = [instance(m, n, v, params, "after") for n, v in tup]
        return Decided("refuted", f"two lanes conflict at {params_text(params)}", RACE,
                       Counterexample(Instance(params), insts))

    return Goal("race", RACE, IslEmpty(violations, witness,
                                       "only lane 0 runs the fallback: no two lanes conflict"))


def renders_wmma(ctx, site) -> bool:
    """Whether the CUDA backend renders the block at `site` as WMMA (core/mma_rule.match,
    the one rule deciding it)."""
    from ...core import mma_rule

    tc = site.stmt
    lane_loop = next((lp for lp in site.loops if lp.var == tc.lane), None)
    return mma_rule.match(ctx.after, tc, lane_loop) is not None


def _sizes(program) -> dict:
    from ...analysis.sizes import example_sizes

    try:
        return example_sizes(program, 1)[0]
    except UsageError:
        return {}


def profile_goal(ctx, site) -> Goal:
    """`profile`, decided structurally when stated: whether CUDA renders the block as WMMA,
    and whether the profile licenses its unspecified summation order."""
    if not renders_wmma(ctx, site):
        answer = Decided("proved", "no backend renders this block as an intrinsic (not a WMMA shape): every "
                                   "backend runs the exact scalar fallback", PROFILE, engine="structural")
    elif ctx.profile == "reproducible":
        answer = Decided(
            "refuted", "the CUDA backend renders this block as WMMA (f16/bf16 x f32, 16-multiple shape, "
                       "one-warp lane loop), whose summation order is unspecified: refused under the "
                       "reproducible profile (replays on a GPU: vsched run --target cuda)",
            PROFILE, Counterexample(Instance(_sizes(ctx.before)), profile="reproducible", extra={"backend": "cuda"}),
            engine="structural")
    else:
        answer = Decided("proved", f"WMMA on CUDA reorders the block's sums (allowed by the {ctx.profile} profile)",
                         PROFILE, reassociates=True, engine="structural")
    return Goal("profile", PROFILE, answer)
