"""The goals of split_reduction, affine form (isl over the before/after kernel models); the
dynamic scatter form's goals are in proofs_dynamic.py, which shares the helpers here.

Statements: A = the redirected accumulation (after, writes P), I = the partials'
initialization, C = the combine, S = the original accumulation (before). Which statements
exist is structural (the kernel models' statement lists, no isl), known when the goals are
stated; a missing one makes its goal `unknown` there. Everything else is decided by isl when
`verified_sched.verify.discharge` discharges the goals.
"""
from __future__ import annotations

from dataclasses import dataclass

from polyhedral.describe import coords, instance, param_values
from polyhedral.isltools import params_text, point_of
from polyhedral.model import Access
from ...core import ir
from ...core.counterexample import Counterexample, Instance
from ...core.obligations import AllOf, Decided, Goal, IslEmpty, Procedure
from ...analysis.simplify import norm_index
from .. import common
from .apply import Found, recognize

# the statements of the three obligations, as the reports give them
INJECTIVE = ("forall params: distinct iterations of the loops enclosing the reduction loop "
             "use distinct partial cells (and distinct target cells in the combine)")
EQUIVALENCE = ("forall params: the two passes add to every target cell the same terms, each "
               "exactly once, as the original reduction")
REASSOCIATION = "forall params: no target cell receives two terms (else the sum is reassociated)"


@dataclass(frozen=True)
class Parts:
    """What the goals are about: the recognized reduction and the model statements (lists:
    an op applied after this one may have copied a statement)."""

    found: Found
    mb: object  # the KernelModel before
    ma: object  # the KernelModel after
    S: list  # the original accumulation (before)
    A: list  # the redirected accumulation (after)
    I: list  # the partials' initialization (affine form only)
    C: list  # the combine


def parts(ctx) -> Parts:
    """The reduction `ctx.op` splits and its statements in both models (structural)."""
    op = ctx.op
    f = recognize(ctx.before, ctx.before.kernel(ctx.kernel), op)
    mb, ma = ctx.model_before, ctx.model_after
    sid = common.original_sid(f.assign.sid)
    return Parts(f, mb, ma,
                 [st for st in mb.stmts if st.node == f.assign and st.top == f.top],
                 [st for st in ma.stmts if st.sid == sid and st.node.tensor == op.partials],
                 [st for st in ma.stmts if st.sid == f"{sid}_init"],
                 [st for st in ma.stmts if st.sid == f"{sid}_combine"])


def goals(ctx, p: Parts) -> list:
    """The affine form's goals: injective_partials, equivalence, reassociation."""
    return [injective_partials(ctx, p), equivalence(ctx, p), reassociation(ctx, p)]


# ---------------------------------------------------------------- helpers (also proofs_dynamic)


def write_map(m, sts):
    """Instance -> cell written, of the statements `sts` (storage view)."""
    return m.union_map(m.access_map(st, st.accesses[0], storage_view=True) for st in sts)


def duplicate_pairs(u):
    """Pairs of distinct domain points of `u` with the same image (empty iff `u` is injective)."""
    return u.apply_range(u.reverse()).subtract(u.domain().identity())


def pair_instances(m, pt, label) -> tuple:
    """(params, [instance, instance]) of a point of a relation between two instances of `m`."""
    p, tup = coords(pt)
    params = param_values(m, p)
    return params, [instance(m, n, v, params, label) for n, v in tup]


def who(inst) -> str:
    return f"{inst['stmt']}({', '.join(f'{k}={v}' for k, v in inst['at'].items())})"


# ---------------------------------------------------------------- the goals


def injective_partials(ctx, p: Parts) -> Goal:
    """Formal statement: forall params, the initialization and the combine each map their
    instances (one per iteration of the loops enclosing L, under the enclosing guards, and per
    block) injectively to cells: distinct enclosing iterations use distinct partial cells, and
    every target cell is combined at most once.

    Two IslEmpty parts, in order (the first refutation answers): the pairs of distinct
    initialization instances writing one partial cell, then the same for the combine and the
    target cells."""
    if not p.I or not p.C:
        return Goal("injective_partials", INJECTIVE,
                    Decided("unknown", "the initialization or the combine is not in the kernel"))

    def part(sts, what: str) -> IslEmpty:
        def witness(pt):
            params, insts = pair_instances(p.ma, pt, "after")
            return Decided("refuted",
                           f"two iterations of the loops enclosing '{ctx.op.loop}' use the same {what} cell at "
                           f"{params_text(params)}: {insts[0]['at']} and {insts[1]['at']} (a loop enclosing it "
                           f"does not pin a component of {ctx.op.tensor}'s index)",
                           counterexample=Counterexample(Instance(params), insts))
        return IslEmpty(lambda: duplicate_pairs(write_map(p.ma, sts)), witness)
    proved = Decided("proved", "each enclosing iteration has its own partial cell and target cell")
    return Goal("injective_partials", INJECTIVE,
                AllOf(lambda: [part(p.I, "partial"), part(p.C, "target")], lambda answers: proved))


def equivalence(ctx, p: Parts) -> Goal:
    """Formal statement: forall params, (1) the provenance maps the redirected accumulation's
    instances one-to-one onto the original accumulation's instances (every term once);
    (2) each term's partial cell is read by exactly one combine instance, which writes the
    target cell the original instance wrote; (3) every partial cell the combine reads is
    initialized exactly once (to the identity of + or *, or for max/min to the target's value,
    which they absorb; before its block's terms: structural); (4) each
    term reads the same cells as its original (isl, per load) with the same skeleton. Then
    the two passes add the same multiset of terms to every target cell."""
    if not (p.S and p.A and p.I and p.C):
        return Goal("equivalence", EQUIVALENCE,
                    Decided("unknown", "a statement of the two passes is missing from the kernel model"))
    # a Procedure: the argument is a chain of isl equalities and structural comparisons (1)-(4),
    # each failing with its own answer (refuted, or unknown for a term that is not structurally
    # the original); one obligation reports the first that fails
    return Goal("equivalence", EQUIVALENCE, Procedure(lambda: decide_equivalence(ctx, p)))


def decide_equivalence(ctx, p: Parts) -> Decided:
    """Steps (1)-(4) of `equivalence`, in order; the first that fails answers."""
    f, mb, ma, S, A, I_, C = p.found, p.mb, p.ma, p.S, p.A, p.I, p.C
    pa, pb = ma.union_map(ma.prov_map(st) for st in A), mb.union_map(mb.prov_map(st) for st in S)
    pt = point_of(duplicate_pairs(pa))
    if pt is not None:
        params, insts = pair_instances(ma, pt, "after")
        return Decided("refuted", f"two partial-sum instances stand for one original term at {params_text(params)}",
                       counterexample=Counterexample(Instance(params), insts))
    if not pa.range().is_equal(pb.range()):
        return Decided("refuted", "the partial sums do not add exactly the original terms")
    wa, wi, wc = write_map(ma, A), write_map(ma, I_), write_map(ma, C)
    rc = ma.union_map(ma.access_map(st, a, storage_view=True) for st in C for a in st.accesses
                      if not a.write and a.tensor == ctx.op.partials)
    leaves = [r.index for r in ir.reads(C[0].node.value) if r.tensor == ctx.op.partials]
    if len(set(leaves)) != ctx.op.blocks or len(leaves) != ctx.op.blocks:
        return Decided("refuted", "the combine does not read each block's partial exactly once")
    comp = wa.apply_range(rc.reverse())
    if not comp.is_single_valued() or not comp.domain().is_equal(wa.domain()):
        return Decided("refuted", "a partial cell is combined twice or never")
    if not wi.is_injective() or not rc.range().is_subset(wi.range()):
        return Decided("refuted", "a partial cell the combine reads is not initialized exactly once")
    bad_init = wrong_initial(ctx, f, ma, I_)
    if bad_init is not None:
        return Decided("refuted", bad_init[0], counterexample=bad_init[1])
    ta = comp.apply_range(wc)
    tb = pa.apply_range(pb.reverse()).apply_range(write_map(mb, S))
    if not ta.is_equal(tb):
        return Decided("refuted", "a term reaches a different target cell than in the original reduction")
    eb, ea = ir.accumulation(S[0].node)[1], ir.accumulation(A[0].node)[1]
    lb, la = ir.reads(eb), ir.reads(ea)
    if _skeleton(eb) != _skeleton(ea) or [x.tensor for x in lb] != [x.tensor for x in la]:
        return Decided("unknown", "the redirected term is not structurally the original term")
    to_b = pa.apply_range(pb.reverse())
    for x, y in zip(lb, la):
        rb = mb.union_map(mb.access_map(st, Access(x.tensor, x.index, False), True) for st in S)
        ra = ma.union_map(ma.access_map(st, Access(y.tensor, y.index, False), True) for st in A)
        if not to_b.apply_range(rb).is_equal(ra):
            return Decided("refuted", f"a term reads {y.tensor} at a different cell than its original")
    return Decided("proved", "every original term lands in exactly one partial cell, which the combine folds "
                             "into exactly the original target cell")


def wrong_initial(ctx, f, ma, I_):
    """(message, counterexample) when a partial cell's initial value is not the identity of
    the accumulation's operator (for max/min: the target cell the original accumulates into),
    else None. A wrong start value shifts every result by it, at every size with a term."""
    from ...core.printer import expr_text

    prec = ctx.before.tensor(ctx.op.tensor).prec
    want = _identity(f.acc_op, prec, ir.Load(ctx.op.tensor, f.assign.index))
    for st in I_:
        got = st.node.value
        if _same_value(got, want):
            continue
        pt = point_of(write_map(ma, [st]).domain())
        params = param_values(ma, coords(pt)[0]) if pt is not None else {}
        return (f"a partial cell of {ctx.op.partials} starts at {expr_text(got)}, not at "
                f"{expr_text(want)} (the start value of a {f.acc_op} reduction): every combined "
                f"result is off by it", Counterexample(Instance(params)))
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


def reassociation(ctx, p: Parts) -> Goal:
    """Formal statement: no target cell receives two or more terms (then the two passes add in
    the original order); otherwise the sums are reassociated: refused for + and * under the
    reproducible profile, reported under default/approximate, exact for max and min.

    Violations: the pairs of distinct original instances adding to one target cell. A pair
    refutes only for + and * under the reproducible profile; otherwise it shows the regrouping,
    which is exact (max, min) or allowed and reported (`reassociates`)."""
    mb, op = p.mb, p.found.acc_op

    def violations():
        return duplicate_pairs(write_map(mb, p.S))

    def witness(pt):
        if op in ("max", "min"):
            return Decided("proved", f"regroups the {op} reduction (exact)")
        if ctx.profile != "reproducible":
            return Decided("proved", f"regroups the {op} reduction of {ctx.op.tensor} (allowed by the "
                                     f"{ctx.profile} profile)", reassociates=True)
        from polyhedral.witness import sample_large  # many terms per cell: the regrouping shows
        params, insts = pair_instances(mb, sample_large(violations()) or pt, "before")
        return Decided("refuted",
                       f"the two-pass {op} reduction regroups the terms of {ctx.op.tensor} (partials per block, "
                       f"then a tree): at {params_text(params)} the terms of {insts[0]['at']} and {insts[1]['at']} "
                       "are added in a different grouping; the reproducible profile refuses it",
                       counterexample=Counterexample(Instance(params), insts))
    return Goal("reassociation", REASSOCIATION, IslEmpty(violations, witness, "no cell receives two terms"))
