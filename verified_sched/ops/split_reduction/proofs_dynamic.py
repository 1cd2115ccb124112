"""The goals of split_reduction, dynamic scatter form (an embedding backward): no
initialization; Z = the whole-tensor `zero P`, A = the redirected scatter, C = the combine over
every cell of T, S = the original scatter (statements as in proofs.py). The data-dependent row
is an uninterpreted function of the original instance, and everything affine is decided by
isl.
"""
from __future__ import annotations

from polyhedral.isltools import params_text, point_of
from ...core import ir
from ...core.counterexample import Cell, Counterexample, Instance
from ...core.obligations import AllOf, Decided, Goal, IslEmpty, Procedure
from .apply import tree
from .proofs import Parts, duplicate_pairs, pair_instances, who, write_map

INJECTIVE = ("forall params: scatter instances of different blocks write disjoint partial slices "
             "(whatever their data-dependent rows), and the combine writes each target cell once")
EQUIVALENCE = ("forall params, with the row an uninterpreted function of the instance: the two passes "
               "add to every target cell exactly the original terms, each once")
REASSOCIATION = ("forall params and inputs: no target cell receives two terms (else the sum is reassociated "
                 "into per-block partials and a tree)")


def goals(ctx, p: Parts) -> list:
    """The scatter form's goals: injective_partials, equivalence, reassociation."""
    return [injective_partials(ctx, p), equivalence(ctx, p), reassociation(ctx, p)]


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


def injective_partials(ctx, p: Parts) -> Goal:
    """Formal statement: forall params, two instances of the redirected scatter in different
    blocks (different values of the block iterator) never write the same partial cell, the
    data-dependent row counted as ANY row of its extent (isl on the over-approximated write
    relation: the block index is the first coordinate of the partials); and the combine writes
    every target cell at most once.

    Two IslEmpty parts, in order (the first refutation answers): the pairs of scatter
    instances of different blocks writing one cell, then the pairs of distinct combine
    instances writing one cell."""
    op, ma, A = ctx.op, p.ma, p.A
    if not A or not p.C:
        return Goal("injective_partials", INJECTIVE,
                    Decided("unknown", "the redirected scatter or the combine is not in the kernel"))
    if any(op.outer not in [lp.var for lp in st.loops] for st in A):
        return Goal("injective_partials", INJECTIVE,
                    Decided("unknown", f"the block loop '{op.outer}' does not enclose the redirected scatter"))

    def clashes():
        w = write_map(ma, A)
        return w.apply_range(w.reverse()).intersect(_block_pairs(ma, A, op.outer))

    def clash(pt):
        params, insts = pair_instances(ma, pt, "after")
        return Decided("refuted", f"two blocks may write the same cell of {op.partials} at "
                                  f"{params_text(params)}: {who(insts[0])} and {who(insts[1])}",
                       counterexample=Counterexample(Instance(params), insts))

    def twice(pt):
        params, insts = pair_instances(ma, pt, "after")
        return Decided("refuted", f"the combine writes one cell of {op.tensor} twice at {params_text(params)}",
                       counterexample=Counterexample(Instance(params), insts))
    parts = [IslEmpty(clashes, clash), IslEmpty(lambda: duplicate_pairs(write_map(ma, p.C)), twice)]
    proved = Decided("proved", f"block {op.outer} owns the slice {op.partials}[{op.outer}, ...] whatever the "
                               "data-dependent row; the combine writes each cell once")
    return Goal("injective_partials", INJECTIVE, AllOf(lambda: parts, lambda answers: proved))


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
    the Decided answer (refuted or unknown)."""
    import islpy as isl
    if not sa or not sb:
        return Decided("unknown", f"statement {(sa or sb)[0].sid} exists on one side only")
    pa, pb = ma.union_map(ma.prov_map(st) for st in sa), mb.union_map(mb.prov_map(st) for st in sb)
    if not pa.is_injective():
        return Decided("refuted", "two instances stand for one original instance (a term would be added twice)")
    if not pa.range().is_equal(pb.range()):
        return Decided("refuted", "the instances do not stand for exactly the original instances")
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
                return Decided("unknown", f"{a.sid} is not structurally the original statement {b.sid}")
            if not la:
                continue
            lma = isl.UnionMap.from_map(_leaves_map(ma, a, la)).intersect_domain(via.domain())
            lmb = via.apply_range(isl.UnionMap.from_map(_leaves_map(mb, b, lb)))
            pt = point_of(lma.subtract(lmb).union(lmb.subtract(lma)).domain())
            if pt is not None:
                from polyhedral.describe import coords, instance, param_values
                q, tup = coords(pt)
                params = param_values(ma, q)
                inst = instance(ma, tup[0][0], tup[0][1], params, "after")
                return Decided("refuted", f"{who(inst)} reads or writes other cells than its original instance "
                                          f"({', '.join(f'{k}={v}' for k, v in inst['original'].items())}) at "
                                          f"{params_text(params)}",
                               counterexample=Counterexample(Instance(params), [inst]))
    return None


def equivalence(ctx, p: Parts) -> Goal:
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
    # a Procedure: the argument is a chain of structural comparisons and isl equalities (1)-(4)
    # over several statements, each failing with its own answer (refuted, or unknown for a
    # result that is not the shape the argument covers); one obligation reports the first
    return Goal("equivalence", EQUIVALENCE, Procedure(lambda: decide_equivalence(ctx, p)))


def decide_equivalence(ctx, p: Parts) -> Decided:
    """Steps (1)-(4) of `equivalence`, in order; the first that fails answers."""
    import islpy as isl
    from polyhedral.isltools import tensor_box
    op, mb, ma, S, A, C = ctx.op, p.mb, p.ma, p.S, p.A, p.C
    Z = [st for st in ma.stmts if isinstance(st.node, ir.Zero) and st.node.tensor == op.partials]
    if not Z:
        return Decided("refuted", f"nothing zeroes {op.partials}: the partial sums would start from what it holds")
    if len(S) != 1 or len(A) != 1 or len(C) != 1 or len(Z) != 1:
        return Decided("unknown", "the zeroing, scatter or combine statement is missing or copied")
    s, a, c, z = S[0], A[0], C[0], Z[0]
    kb, ka = ctx.before.kernel(ctx.kernel).body, ctx.after.kernel(ctx.kernel).body
    if (z.top, c.top) != (a.top - 1, a.top + 1) or ka[:z.top] != kb[:s.top] or ka[c.top + 1:] != kb[s.top + 1:]:
        return Decided("unknown", f"the passes are not `zero {op.partials}`, the scatter and the combine in place "
                                  "of the original statement, with the statements around it unchanged")
    for st in ma.stmts:
        touches = {x.tensor for x in st.accesses}
        if op.partials in touches and st not in (z, a, c):
            return Decided("unknown", f"{st.sid} also accesses {op.partials}")
        if op.tensor in touches and st.top == a.top:
            return Decided("unknown", f"{st.sid} accesses {op.tensor} in the scatter's statement")
    acc = ir.accumulation(a.node)
    if (acc is None or acc[0] != "+" or a.node.tensor != op.partials or a.node.index[0] != ir.Var(op.outer)
            or op.outer not in [lp.var for lp in a.loops]):
        return Decided("unknown", f"the scatter is not an add accumulation into {op.partials}[{op.outer}, ...] "
                                  f"inside the block loop '{op.outer}'")
    # (1) terms, rows and guards through the provenance
    others_b = [st for st in mb.stmts if st.top == s.top and st is not s]
    others_a = [st for st in ma.stmts if st.top == a.top and st is not a]
    bad = _same_through_prov(mb, ma, [s], [a], _view_before, _view_after)
    for sid in sorted({st.sid for st in others_b} | {st.sid for st in others_a}):
        if bad is None:
            bad = _same_through_prov(mb, ma, [x for x in others_b if x.sid == sid],
                                     [x for x in others_a if x.sid == sid], _whole, _whole)
    if bad is not None:
        return bad
    # (2) the zeroing covers every partial cell
    if not write_map(ma, [z]).range().is_equal(isl.UnionSet.from_set(tensor_box(ma, op.partials, True))):
        return Decided("refuted", f"`zero {op.partials}` does not cover every cell of {op.partials}")
    # (3) the combine: every storage cell of T once, each block's slice once
    cidx = c.node.index
    slices = sorted(r.index[0].value if isinstance(r.index[0], ir.Int) and r.index[1:] == cidx else -1
                    for r in ir.reads(c.node.value) if r.tensor == op.partials)
    if slices != list(range(op.blocks)):
        lost = sorted(set(range(op.blocks)) - set(slices))
        return Decided("refuted", f"the combine does not read each slice {op.partials}[b, c] exactly once"
                                  + (f": the terms of block {lost[0]} never reach {op.tensor}" if lost else ""))
    leaves = [ir.Load(op.partials, (ir.Int(b),) + tuple(cidx)) for b in range(op.blocks)]
    want = ir.BinOp("+", ir.Load(op.tensor, cidx), tree("+", leaves))
    if c.node.tensor != op.tensor or c.node.value != want or c.guards:
        return Decided("unknown", f"the combine is not {op.tensor}[c] + tree({op.partials}[0, c], ...) over "
                                  "every cell")
    wc = write_map(ma, [c])
    if not wc.is_injective() or not wc.range().is_equal(isl.UnionSet.from_set(tensor_box(ma, op.tensor, True))):
        return Decided("refuted", f"the combine does not fold every cell of {op.tensor} exactly once")
    return Decided("proved", f"every original term, with its data-dependent row, lands once in {op.partials}[its "
                             f"block, its original cell]; {op.partials} is zeroed first and the combine folds all "
                             f"{op.blocks} slices into every cell of {op.tensor}")


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


def reassociation(ctx, p: Parts) -> Goal:
    """Formal statement: the two passes regroup the terms of a target cell (per-block partial
    sums from zero, then the balanced tree, then the cell's old value) unless no cell can receive
    two terms. With the row data-dependent, two original instances o1 != o2 can meet on a cell
    when their affine index components agree (isl) and their rows are equal for some input:
    certain when each row is a read X[affine] of a tensor the kernel never writes and there are
    no data guards (choose X's two cells equal, 0); otherwise possible but not decided. Refused
    for + under the reproducible profile, reported under default/approximate.

    Violations: the pairs of original instances that MAY add to one cell (the data-dependent
    row counted as any row). Under the reproducible profile a pair refutes when the rows are
    free inputs (the witness chooses them equal), else it leaves the goal unknown; under the
    other profiles it shows the (allowed, reported) regrouping."""
    op, mb, S = ctx.op, p.mb, p.S

    def violations():
        return duplicate_pairs(write_map(mb, S))

    def witness(pt):
        if ctx.profile != "reproducible":
            return Decided("proved", f"regroups the + reduction of {op.tensor} wherever data-dependent rows "
                                     f"collide (allowed by the {ctx.profile} profile)", reassociates=True)
        exact = len(S) == 1 and not S[0].data_guards(mb.pnames) and S[0].name not in mb.approximate
        rows = _free_rows(mb, S[0]) if exact else None
        if rows is None:
            return Decided("unknown", f"whether two terms of {op.tensor} can meet on a cell depends on data the "
                                      "kernel computes or tests (a guard, or a row that is not a plain input "
                                      "read); the reproducible profile needs that decided")
        return _meeting_rows(ctx, mb, S[0], rows, *pair_instances(mb, pt, "before"))
    return Goal("reassociation", REASSOCIATION, IslEmpty(violations, witness, "no two terms can meet on a cell"))


def _meeting_rows(ctx, mb, s, rows: dict, params: dict, insts: list) -> Decided:
    """The refutation of a pair of original instances whose free-input rows are chosen equal
    (both 0): the input cells, the cell both add to, the instances."""
    from polyhedral.evaluate import ev
    data, cell = [], None
    for inst in insts:
        env = {**params, **inst["at"]}
        for d, e in rows.items():
            data.append({"tensor": e.tensor, "index": [ev(x, env) for x in e.index], "value": 0})
        cell = [0 if d in rows else ev(e, env) for d, e in enumerate(s.node.index)]
        inst["writes"]["index"] = cell  # with the chosen rows
    where = " and ".join(f"{x['tensor']}[{', '.join(map(str, x['index']))}] = 0" for x in data)
    return Decided("refuted", f"the two-pass + reduction regroups the terms of {ctx.op.tensor}: at "
                              f"{params_text(params)}, with {where}, {who(insts[0])} and {who(insts[1])} both add "
                              f"to {ctx.op.tensor}[{', '.join(map(str, cell))}] and are summed in a different "
                              "grouping (per-block partials, then a tree); the reproducible profile refuses it",
                   counterexample=Counterexample(Instance(params), insts, cells=(Cell(ctx.op.tensor, cell),),
                                                 extra={"data": data},
                                                 key_order=("params", "instances", "data", "cells")))
