"""The obligations of split_reduction (isl over the before/after kernel models).

Statements: A = the redirected accumulation (after, writes P), I = the partials'
initialization, C = the combine, S = the original accumulation (before). The dynamic scatter
form (no I; Z = the whole-tensor `zero P`) has its own versions of the three obligations (the
"dynamic" section below): the data-dependent row is an uninterpreted function of the original
instance, and everything affine is decided by isl.
"""
from __future__ import annotations

from polyhedral.describe import coords, instance, param_values
from polyhedral.isltools import params_text, point_of
from polyhedral.model import Access
from .. import ir
from ..simplify import norm_index
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
    return m.union_map(m.access_map(st, st.accesses[0], storage_view=True) for st in sts)


def _dup(u):
    """Pairs of distinct domain points with the same image."""
    return u.apply_range(u.reverse()).subtract(u.domain().identity())


def _pair_cex(m, u, label):
    pt = point_of(_dup(u))
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
    if f.dynamic:
        return _dyn_injective(ctx, f, mb, ma, S, A, C)
    if not I_ or not C:
        return common.decided(statement, "unknown",
                                 "the initialization or the combine is not in the kernel")
    for sts, what in ((I_, "partial"), (C, "target")):
        w = _write(ma, sts)
        if not w.is_injective():
            params, insts = _pair_cex(ma, w, "after")
            return common.decided(statement, "refuted",
                f"two iterations of the loops enclosing '{ctx.op.loop}' use the same {what} cell at "
                f"{params_text(params)}: {insts[0]['at']} and {insts[1]['at']} (a loop enclosing it "
                f"does not pin a component of {ctx.op.tensor}'s index)",
                {"params": params, "instances": insts})
    return common.decided(statement, "proved",
                             "each enclosing iteration has its own partial cell and target cell")


def _wrong_initial(ctx, f, ma, I_):
    """(message, counterexample) when a partial cell's initial value is not the identity of
    the accumulation's operator (for max/min: the target cell the original accumulates into),
    else None. A wrong start value shifts every result by it, at every size with a term."""
    prec = ctx.before.tensor(ctx.op.tensor).prec
    want = _identity(f.acc_op, prec, ir.Load(ctx.op.tensor, f.assign.index))
    for st in I_:
        got = st.node.value
        if _same_value(got, want):
            continue
        pt = point_of(_write(ma, [st]).domain())
        params = param_values(ma, coords(pt)[0]) if pt is not None else {}
        from ..dsl.printer import expr_text
        return (f"a partial cell of {ctx.op.partials} starts at {expr_text(got)}, not at "
                f"{expr_text(want)} (the start value of a {f.acc_op} reduction): every combined "
                f"result is off by it", {"params": params})
    return None


def _identity(op: str, prec: str, target):
    """The start value a partial cell must have (stated here independently of apply)."""
    if op in ("max", "min"):
        return target
    one = {"+": 0, "*": 1}[op]
    return ir.Int(one) if prec == "i32" else ir.Float(float(one))


def _same_value(a, b) -> bool:
    match a, b:
        case ir.Load(), ir.Load():
            return a.tensor == b.tensor and [norm_index(e) for e in a.index] == [norm_index(e) for e in b.index]
    return a == b


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
    if f.dynamic:
        return _dyn_equivalence(ctx, f, mb, ma, S, A, C)

    def ob(status, msg, cex=None):
        return common.decided(statement, status, msg, cex)
    if not (S and A and I_ and C):
        return ob("unknown", "a statement of the two passes is missing from the kernel model")
    pa, pb = ma.union_map(ma.prov_map(st) for st in A), mb.union_map(mb.prov_map(st) for st in S)
    if not pa.is_injective():
        params, insts = _pair_cex(ma, pa, "after")
        return ob("refuted", f"two partial-sum instances stand for one original term at {params_text(params)}",
                  {"params": params, "instances": insts})
    if not pa.range().is_equal(pb.range()):
        return ob("refuted", "the partial sums do not add exactly the original terms")
    wa, wi, wc = _write(ma, A), _write(ma, I_), _write(ma, C)
    rc = ma.union_map(ma.access_map(st, a, storage_view=True) for st in C for a in st.accesses
                   if not a.write and a.tensor == ctx.op.partials)
    leaves = [r.index for r in ir.reads(C[0].node.value) if r.tensor == ctx.op.partials]
    if len(set(leaves)) != ctx.op.blocks or len(leaves) != ctx.op.blocks:
        return ob("refuted", "the combine does not read each block's partial exactly once")
    comp = wa.apply_range(rc.reverse())
    if not comp.is_single_valued() or not comp.domain().is_equal(wa.domain()):
        return ob("refuted", "a partial cell is combined twice or never")
    if not wi.is_injective() or not rc.range().is_subset(wi.range()):
        return ob("refuted", "a partial cell the combine reads is not initialized exactly once")
    bad_init = _wrong_initial(ctx, f, ma, I_)
    if bad_init is not None:
        return ob("refuted", bad_init[0], bad_init[1])
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
        rb = mb.union_map(mb.access_map(st, Access(x.tensor, x.index, False), True) for st in S)
        ra = ma.union_map(ma.access_map(st, Access(y.tensor, y.index, False), True) for st in A)
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
    if f.dynamic:
        return _dyn_reassociation(ctx, f, mb, ma, S, A)
    tb = mb.union_map(mb.access_map(st, st.accesses[0], storage_view=True) for st in S)
    dup = _dup(tb)
    pt = point_of(dup)
    if pt is None:
        return common.decided(statement, "proved", "no cell receives two terms")
    if f.acc_op in ("max", "min"):
        return common.decided(statement, "proved",
                                 f"regroups the {f.acc_op} reduction (exact)")
    if ctx.profile == "reproducible":
        from polyhedral.witness import sample_large  # many terms per cell: the regrouping shows
        pt = sample_large(dup) or pt
    p, tup = coords(pt)
    params = param_values(mb, p)
    insts = [instance(mb, n, v, params, "before") for n, v in tup]
    if ctx.profile == "reproducible":
        return common.decided(statement, "refuted",
            f"the two-pass {f.acc_op} reduction regroups the terms of {ctx.op.tensor} (partials per block, "
            f"then a tree): at {params_text(params)} the terms of {insts[0]['at']} and {insts[1]['at']} "
            "are added in a different grouping; the reproducible profile refuses it",
            {"params": params, "instances": insts})
    ob = common.decided(statement, "proved",
                           f"regroups the {f.acc_op} reduction of {ctx.op.tensor} (allowed by the {ctx.profile} "
                           "profile)")
    ob.reassociates = True
    return ob


# ---------------------------------------------------------------- dynamic scatter form


def _dyn_ob(ctx, kind, statement):
    def ob(status, msg, cex=None):
        return common.decided(statement, status, msg, cex)
    return ob


def _block_pairs(m, sts, var: str):
    """Universe pairs of instances of `sts` whose block iterators `var` differ."""
    import islpy as isl
    maps = []
    for s in sts:
        for t in sts:
            ks = [lp.var for lp in s.loops].index(var)
            kt = [lp.var for lp in t.loops].index(var)
            maps.append(isl.Map(m.space(f"{m.tup(s, 'a')} -> {m.tup(t, 'b')} : a{ks} != b{kt}")))
    return m.union_map(maps)


def _dyn_injective(ctx, f, mb, ma, S, A, C):
    """Formal statement: forall params, two instances of the redirected scatter in different
    blocks (different values of the block iterator) never write the same partial cell, the
    data-dependent row counted as ANY row of its extent (isl on the over-approximated write
    relation: the block index is the first coordinate of the partials); and the combine writes
    every target cell at most once."""
    statement = ("forall params: scatter instances of different blocks write disjoint partial slices "
                 "(whatever their data-dependent rows), and the combine writes each target cell once")
    ob = _dyn_ob(ctx, "injective_partials", statement)
    if not A or not C:
        return ob("unknown", "the redirected scatter or the combine is not in the kernel")
    if any(ctx.op.outer not in [lp.var for lp in st.loops] for st in A):
        return ob("unknown", f"the block loop '{ctx.op.outer}' does not enclose the redirected scatter")
    w = _write(ma, A)
    clash = w.apply_range(w.reverse()).intersect(_block_pairs(ma, A, ctx.op.outer))
    if not clash.is_empty():
        p, tup = coords(point_of(clash))
        params = param_values(ma, p)
        insts = [instance(ma, n, v, params, "after") for n, v in tup]
        return ob("refuted", f"two blocks may write the same cell of {ctx.op.partials} at {params_text(params)}: "
                             f"{_who(insts[0])} and {_who(insts[1])}", {"params": params, "instances": insts})
    wc = _write(ma, C)
    if not wc.is_injective():
        params, insts = _pair_cex(ma, wc, "after")
        return ob("refuted", f"the combine writes one cell of {ctx.op.tensor} twice at {params_text(params)}",
                  {"params": params, "instances": insts})
    return ob("proved", f"block {ctx.op.outer} owns the slice {ctx.op.partials}[{ctx.op.outer}, ...] whatever the "
                        "data-dependent row; the combine writes each cell once")


def _skel(e, names: dict, leaves: list):
    """Structure of an expression or condition with its maximal affine integer sub-expressions
    cut out as leaves (compared by isl through the provenance); loads keep their tensor."""
    from polyhedral.affine import is_affine
    if isinstance(e, tuple):
        return tuple(_skel(x, names, leaves) for x in e)
    if not isinstance(e, ir.Node):
        return e
    if not isinstance(e, (ir.Float, ir.Cmp, ir.And, ir.Or, ir.Not, ir.BoolConst)) and is_affine(e, names):
        leaves.append(e)
        return ("leaf",)
    kids = tuple((k, _skel(v, names, leaves)) for k, v in ir.child_fields(e))
    scalars = tuple((k, getattr(e, k)) for k in ("op", "fn", "prec", "value", "divisor", "tensor")
                    if hasattr(e, k) and not isinstance(getattr(e, k), (ir.Node, tuple)))
    return (type(e).__name__, scalars, kids)


def _leaves_map(m, st, leaves):
    import islpy as isl
    from polyhedral.affine import aff
    names = st.names(m.pnames)
    outs = ", ".join(aff(e, names) for e in leaves)
    return isl.Map(m.space(f"{m.tup(st)} -> [{outs}]")).intersect_domain(m.domains[st.name])


def _same_through_prov(mb, ma, sb, sa, view_b, view_a):
    """None when every instance of the after statements `sa` stands for exactly one instance of
    the before statements `sb` (provenance injective, same original instances) and computes
    what it stands for: `view` (statement -> tuple of expressions/conditions) has the same
    structure on both sides and equal affine leaves through the provenance (isl). Otherwise
    (status, message[, counterexample])."""
    import islpy as isl
    if not sa or not sb:
        return "unknown", f"statement {(sa or sb)[0].sid} exists on one side only"
    pa, pb = ma.union_map(ma.prov_map(st) for st in sa), mb.union_map(mb.prov_map(st) for st in sb)
    if not pa.is_injective():
        return "refuted", "two instances stand for one original instance (a term would be added twice)"
    if not pa.range().is_equal(pb.range()):
        return "refuted", "the instances do not stand for exactly the original instances"
    to_b = pa.apply_range(pb.reverse())
    for a in sa:
        la = []
        ka = _skel(view_a(ma, a), a.names(ma.pnames), la)
        for b in sb:
            lb = []
            kb = _skel(view_b(mb, b), b.names(mb.pnames), lb)
            via = to_b.intersect_domain(isl.UnionSet.from_set(ma.domains[a.name]))
            via = via.intersect_range(isl.UnionSet.from_set(mb.domains[b.name]))
            if via.is_empty():
                continue
            if ka != kb or len(la) != len(lb):
                return "unknown", f"{a.sid} is not structurally the original statement {b.sid}"
            if not la:
                continue
            lma = isl.UnionMap.from_map(_leaves_map(ma, a, la)).intersect_domain(via.domain())
            lmb = via.apply_range(isl.UnionMap.from_map(_leaves_map(mb, b, lb)))
            pt = point_of(lma.subtract(lmb).union(lmb.subtract(lma)).domain())
            if pt is not None:
                p, tup = coords(pt)
                params = param_values(ma, p)
                inst = instance(ma, tup[0][0], tup[0][1], params, "after")
                return ("refuted", f"{_who(inst)} reads or writes other cells than its original instance "
                                   f"({', '.join(f'{k}={v}' for k, v in inst['original'].items())}) at "
                                   f"{params_text(params)}", {"params": params, "instances": [inst]})
    return None


def _dyn_equivalence(ctx, f, mb, ma, S, A, C):
    """Formal statement: let R(o) be the data-dependent row of original instance o (an
    uninterpreted function: the index expression over the cells it reads). Forall params:
    (1) the provenance maps the redirected scatter's instances one-to-one onto the original
    instances, and each instance a computes the term of o = P(a), under the same data guards,
    into partial cell P[b(a), I(o)] where I(o) is the original index with the same row R(o)
    (same expression reading the same cells: structure + isl on the affine leaves) and b(a)
    is a's block iterator (structural); (2) `zero P`, the top-level statement right before, zeroes
    every storage cell of P (isl) and nothing else touches P but the scatter and the combine;
    (3) the combine, the top-level statement right after, writes every storage cell c of T
    exactly once (isl) with T[c] + tree(P[0, c], ..., P[B-1, c]), each block's slice once
    (structural), and nothing in the scatter's statement touches T; (4) the statements around
    are unchanged. Hence every target cell receives, once each, exactly the multiset of
    (instance, R(instance)) terms the original adds to it (values of the cells read are the
    same by the `dependence` obligation; rows within storage by `in_bounds`)."""
    import islpy as isl
    from polyhedral.isltools import tensor_box
    statement = ("forall params, with the row an uninterpreted function of the instance: the two passes "
                 "add to every target cell exactly the original terms, each once")
    ob = _dyn_ob(ctx, "equivalence", statement)
    op = ctx.op
    Z = [st for st in ma.stmts if isinstance(st.node, ir.Zero) and st.node.tensor == op.partials]
    if not Z:
        return ob("refuted", f"nothing zeroes {op.partials}: the partial sums would start from what it holds")
    if len(S) != 1 or len(A) != 1 or len(C) != 1 or len(Z) != 1:
        return ob("unknown", "the zeroing, scatter or combine statement is missing or copied")
    s, a, c, z = S[0], A[0], C[0], Z[0]
    kb, ka = ctx.before.kernel(ctx.kernel).body, ctx.after.kernel(ctx.kernel).body
    if (z.top, c.top) != (a.top - 1, a.top + 1) or ka[:z.top] != kb[:s.top] or ka[c.top + 1:] != kb[s.top + 1:]:
        return ob("unknown", f"the passes are not `zero {op.partials}`, the scatter and the combine in place of "
                             "the original statement, with the statements around it unchanged")
    for st in ma.stmts:
        touches = {x.tensor for x in st.accesses}
        if op.partials in touches and st not in (z, a, c):
            return ob("unknown", f"{st.sid} also accesses {op.partials}")
        if op.tensor in touches and st.top == a.top:
            return ob("unknown", f"{st.sid} accesses {op.tensor} in the scatter's statement")
    acc = ir.accumulation(a.node)
    if (acc is None or acc[0] != "+" or a.node.tensor != op.partials or a.node.index[0] != ir.Var(op.outer)
            or op.outer not in [lp.var for lp in a.loops]):
        return ob("unknown", f"the scatter is not an add accumulation into {op.partials}[{op.outer}, ...] inside "
                             f"the block loop '{op.outer}'")
    # (1) terms, rows and guards through the provenance
    others_b = [st for st in mb.stmts if st.top == s.top and st is not s]
    others_a = [st for st in ma.stmts if st.top == a.top and st is not a]
    bad = _same_through_prov(mb, ma, [s], [a], _view_before, _view_after)
    for sid in sorted({st.sid for st in others_b} | {st.sid for st in others_a}):
        if bad is None:
            bad = _same_through_prov(mb, ma, [x for x in others_b if x.sid == sid],
                                     [x for x in others_a if x.sid == sid], _whole, _whole)
    if bad is not None:
        return ob(*bad)
    # (2) the zeroing covers every partial cell
    if not _write(ma, [z]).range().is_equal(isl.UnionSet.from_set(tensor_box(ma, op.partials, True))):
        return ob("refuted", f"`zero {op.partials}` does not cover every cell of {op.partials}")
    # (3) the combine: every storage cell of T once, each block's slice once
    cidx = c.node.index
    slices = sorted(r.index[0].value if isinstance(r.index[0], ir.Int) and r.index[1:] == cidx else -1
                    for r in ir.reads(c.node.value) if r.tensor == op.partials)
    if slices != list(range(op.blocks)):
        lost = sorted(set(range(op.blocks)) - set(slices))
        return ob("refuted", f"the combine does not read each slice {op.partials}[b, c] exactly once"
                             + (f": the terms of block {lost[0]} never reach {op.tensor}" if lost else ""))
    want = ir.BinOp("+", ir.Load(op.tensor, cidx), _tree(op, cidx))
    if c.node.tensor != op.tensor or c.node.value != want or c.guards:
        return ob("unknown", f"the combine is not {op.tensor}[c] + tree({op.partials}[0, c], ...) over every cell")
    wc = _write(ma, [c])
    if not wc.is_injective() or not wc.range().is_equal(isl.UnionSet.from_set(tensor_box(ma, op.tensor, True))):
        return ob("refuted", f"the combine does not fold every cell of {op.tensor} exactly once")
    return ob("proved", f"every original term, with its data-dependent row, lands once in {op.partials}[its block, "
                        f"its original cell]; {op.partials} is zeroed first and the combine folds all "
                        f"{op.blocks} slices into every cell of {op.tensor}")


def _tree(op, cidx):
    from .split_reduction import tree
    return tree("+", [ir.Load(op.partials, (ir.Int(b),) + tuple(cidx)) for b in range(op.blocks)])


def _view_before(m, st):
    """What an original scatter instance contributes: (term, index, data guards)."""
    return (ir.accumulation(st.node)[1], tuple(st.node.index), tuple(st.data_guards(m.pnames)))


def _view_after(m, st):
    """The same for the redirected scatter, the block coordinate of the partial dropped."""
    return (ir.accumulation(st.node)[1], tuple(st.node.index[1:]), tuple(st.data_guards(m.pnames)))


def _whole(m, st):
    """Everything another statement of the enclosing statement does."""
    n = st.node
    if isinstance(n, ir.Zero):
        return ("zero", n.tensor)
    return (n.tensor, tuple(n.index), n.value, tuple(st.data_guards(m.pnames)))


def _free_rows(mb, s):
    """The dynamic components of the original index when each is a plain read `X[affine]` of a
    tensor the kernel never writes (its values are free inputs), else None."""
    written = {n.tensor for n in ir.walk(mb.kernel.body) if isinstance(n, (ir.Assign, ir.Zero))}
    names = s.names(mb.pnames)
    from polyhedral.affine import is_affine
    out = {}
    for d, e in enumerate(s.node.index):
        if is_affine(e, names):
            continue
        if not (isinstance(e, ir.Load) and e.tensor not in written and all(is_affine(x, names) for x in e.index)):
            return None
        out[d] = e
    return out


def _dyn_reassociation(ctx, f, mb, ma, S, A):
    """Formal statement: the two passes regroup the terms of a target cell (per-block partial
    sums from zero, then the balanced tree, then the cell's old value) unless no cell can receive
    two terms. With the row data-dependent, two original instances o1 != o2 can meet on a cell
    when their affine index components agree (isl) and their rows are equal for some input:
    certain when each row is a read X[affine] of a tensor the kernel never writes and there are
    no data guards (choose X's two cells equal, 0); otherwise possible but not decided. Refused
    for + under the reproducible profile, reported under default/approximate."""
    statement = ("forall params and inputs: no target cell receives two terms (else the sum is reassociated "
                 "into per-block partials and a tree)")
    ob = _dyn_ob(ctx, "reassociation", statement)
    tb = _write(mb, S)  # the data-dependent row is any row: pairs that MAY meet
    dup = _dup(tb)
    pt = point_of(dup)
    if pt is None:
        return ob("proved", "no two terms can meet on a cell")
    p, tup = coords(pt)
    params = param_values(mb, p)
    insts = [instance(mb, n, v, params, "before") for n, v in tup]
    exact = len(S) == 1 and not S[0].data_guards(mb.pnames) and S[0].name not in mb.approximate
    rows = _free_rows(mb, S[0]) if exact else None
    if ctx.profile != "reproducible":
        o = ob("proved", f"regroups the + reduction of {ctx.op.tensor} wherever data-dependent rows collide "
                         f"(allowed by the {ctx.profile} profile)")
        o.reassociates = True
        return o
    if rows is None:
        return ob("unknown", f"whether two terms of {ctx.op.tensor} can meet on a cell depends on data the "
                             "kernel computes or tests (a guard, or a row that is not a plain input read); the "
                             "reproducible profile needs that decided")
    from polyhedral.evaluate import ev
    data, cell = [], None
    for inst in insts:
        env = {**params, **inst["at"]}
        for d, e in rows.items():
            data.append({"tensor": e.tensor, "index": [ev(x, env) for x in e.index], "value": 0})
        cell = [0 if d in rows else ev(e, env) for d, e in enumerate(S[0].node.index)]
        inst["writes"]["index"] = cell  # with the chosen rows
    where = " and ".join(f"{x['tensor']}[{', '.join(map(str, x['index']))}] = 0" for x in data)
    return ob("refuted", f"the two-pass + reduction regroups the terms of {ctx.op.tensor}: at {params_text(params)}, "
                         f"with {where}, {_who(insts[0])} and {_who(insts[1])} both add to "
                         f"{ctx.op.tensor}[{', '.join(map(str, cell))}] and are summed in a different grouping "
                         "(per-block partials, then a tree); the reproducible profile refuses it",
              {"params": params, "instances": insts, "data": data,
               "cells": [{"tensor": ctx.op.tensor, "index": cell}]})


def _who(inst):
    return f"{inst['stmt']}({', '.join(f'{k}={v}' for k, v in inst['at'].items())})"
