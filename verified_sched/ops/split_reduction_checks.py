"""The obligations of split_reduction (isl over the before/after kernel models).

Statements: A = the redirected accumulation (after, writes P), I = the partials'
initialization, C = the combine, S = the original accumulation (before).
"""
from __future__ import annotations

from polyhedral.describe import coords, instance, param_values
from polyhedral.isltools import _params_text, _sample
from polyhedral.model import Access
from .. import ir
from . import common
from .split_reduction import recognize


def _parts(ctx):
    op = ctx.op
    f = recognize(ctx.before, ctx.before.kernel(ctx.kernel), op)
    mb, ma = ctx.model_before, ctx.model_after
    sid = common.original_sid(f.assign.sid)
    S = [st for st in mb.stmts if st.node == f.assign and st.top == f.top]
    A = [st for st in ma.stmts if st.sid == sid and st.node.tensor == op.partials]
    I_ = [st for st in ma.stmts if st.sid == f"{sid}_init"]
    C = [st for st in ma.stmts if st.sid == f"{sid}_combine"]
    return f, mb, ma, S, A, I_, C


def _write(m, sts):
    return m._union(m.access_map(st, st.accesses[0], storage_view=True) for st in sts)


def _dup(u):
    """Pairs of distinct domain points with the same image."""
    return u.apply_range(u.reverse()).subtract(u.domain().identity())


def _pair_cex(m, u, label):
    pt = _sample(_dup(u))
    p, tup = coords(pt)
    params = param_values(m, p)
    insts = [instance(m, n, v, params, label) for n, v in tup]
    return params, insts


def injective_partials(ctx):
    """Formal statement: forall params, the initialization and the combine each map their
    instances (one per iteration of the loops enclosing L, under the enclosing guards, and per
    block) injectively to cells: distinct enclosing iterations use distinct partial cells, and
    every target cell is combined at most once."""
    statement = ("forall params: distinct iterations of the loops enclosing the reduction loop "
                 "use distinct partial cells (and distinct target cells in the combine)")
    f, mb, ma, S, A, I_, C = _parts(ctx)
    if not I_ or not C:
        return common.obligation(ctx, "injective_partials", statement, "unknown",
                                 "the initialization or the combine is not in the kernel")
    for sts, what in ((I_, "partial"), (C, "target")):
        w = _write(ma, sts)
        if not w.is_injective():
            params, insts = _pair_cex(ma, w, "after")
            return common.obligation(
                ctx, "injective_partials", statement, "refuted",
                f"two iterations of the loops enclosing '{ctx.op.loop}' use the same {what} cell at "
                f"{_params_text(params)}: {insts[0]['at']} and {insts[1]['at']} (a loop enclosing it "
                f"does not pin a component of {ctx.op.tensor}'s index)",
                {"params": params, "instances": insts})
    return common.obligation(ctx, "injective_partials", statement, "proved",
                             "each enclosing iteration has its own partial cell and target cell")


def _skeleton(e):
    """The value with every load replaced by a placeholder (structural part of a term)."""
    return ir.rewrite(e, lambda n: ir.Var("__load__") if isinstance(n, ir.Load) else None)


def equivalence(ctx):
    """Formal statement: forall params, (1) the provenance maps the redirected accumulation's
    instances one-to-one onto the original accumulation's instances (every term once);
    (2) each term's partial cell is read by exactly one combine instance, which writes the
    target cell the original instance wrote; (3) every partial cell the combine reads is
    initialized exactly once (to the identity of + or *, or for max/min to the target's value,
    which they absorb; before its block's terms: structural); (4) each
    term reads the same cells as its original (isl, per load) with the same skeleton. Then
    the two passes add the same multiset of terms to every target cell."""
    statement = ("forall params: the two passes add to every target cell the same terms, each "
                 "exactly once, as the original reduction")
    f, mb, ma, S, A, I_, C = _parts(ctx)

    def ob(status, msg, cex=None):
        return common.obligation(ctx, "equivalence", statement, status, msg, cex)
    if not (S and A and I_ and C):
        return ob("unknown", "a statement of the two passes is missing from the kernel model")
    pa, pb = ma._union(ma.prov_map(st) for st in A), mb._union(mb.prov_map(st) for st in S)
    if not pa.is_injective():
        params, insts = _pair_cex(ma, pa, "after")
        return ob("refuted", f"two partial-sum instances stand for one original term at {_params_text(params)}",
                  {"params": params, "instances": insts})
    if not pa.range().is_equal(pb.range()):
        return ob("refuted", "the partial sums do not add exactly the original terms")
    wa, wi, wc = _write(ma, A), _write(ma, I_), _write(ma, C)
    rc = ma._union(ma.access_map(st, a, storage_view=True) for st in C for a in st.accesses
                   if not a.write and a.tensor == ctx.op.partials)
    leaves = [r.index for r in ir.reads(C[0].node.value) if r.tensor == ctx.op.partials]
    if len(set(leaves)) != ctx.op.blocks or len(leaves) != ctx.op.blocks:
        return ob("refuted", "the combine does not read each block's partial exactly once")
    comp = wa.apply_range(rc.reverse())
    if not comp.is_single_valued() or not comp.domain().is_equal(wa.domain()):
        return ob("refuted", "a partial cell is combined twice or never")
    if not wi.is_injective() or not rc.range().is_subset(wi.range()):
        return ob("refuted", "a partial cell the combine reads is not initialized exactly once")
    ta = comp.apply_range(wc)
    tb = pa.apply_range(pb.reverse()).apply_range(_write(mb, S))
    if not ta.is_equal(tb):
        return ob("refuted", "a term reaches a different target cell than in the original reduction")
    eb, ea = ir.accumulation(S[0].node)[1], ir.accumulation(A[0].node)[1]
    lb, la = ir.reads(eb), ir.reads(ea)
    if _skeleton(eb) != _skeleton(ea) or [x.tensor for x in lb] != [x.tensor for x in la]:
        return ob("unknown", "the redirected term is not structurally the original term")
    to_b = pa.apply_range(pb.reverse())
    for x, y in zip(lb, la):
        rb = mb._union(mb.access_map(st, Access(x.tensor, x.index, False), True) for st in S)
        ra = ma._union(ma.access_map(st, Access(y.tensor, y.index, False), True) for st in A)
        if not to_b.apply_range(rb).is_equal(ra):
            return ob("refuted", f"a term reads {y.tensor} at a different cell than its original")
    return ob("proved", "every original term lands in exactly one partial cell, which the combine folds "
                        "into exactly the original target cell")


def reassociation(ctx):
    """Formal statement: no target cell receives two or more terms (then the two passes add in
    the original order); otherwise the sums are reassociated: refused for + and * under the
    reproducible profile, reported under default/approximate, exact for max and min."""
    statement = "forall params: no target cell receives two terms (else the sum is reassociated)"
    f, mb, ma, S, A, I_, C = _parts(ctx)
    tb = mb._union(mb.access_map(st, st.accesses[0], storage_view=True) for st in S)
    dup = _dup(tb)
    pt = _sample(dup)
    if pt is None:
        return common.obligation(ctx, "reassociation", statement, "proved", "no cell receives two terms")
    if f.acc_op in ("max", "min"):
        return common.obligation(ctx, "reassociation", statement, "proved",
                                 f"regroups the {f.acc_op} reduction (exact)")
    p, tup = coords(pt)
    params = param_values(mb, p)
    insts = [instance(mb, n, v, params, "before") for n, v in tup]
    if ctx.profile == "reproducible":
        return common.obligation(
            ctx, "reassociation", statement, "refuted",
            f"the two-pass {f.acc_op} reduction regroups the terms of {ctx.op.tensor} (partials per block, "
            f"then a tree): at {_params_text(params)} the terms of {insts[0]['at']} and {insts[1]['at']} "
            "are added in a different grouping; the reproducible profile refuses it",
            {"params": params, "instances": insts})
    ob = common.obligation(ctx, "reassociation", statement, "proved",
                           f"regroups the {f.acc_op} reduction of {ctx.op.tensor} (allowed by the {ctx.profile} "
                           "profile)")
    ob.reassociates = True
    return ob
