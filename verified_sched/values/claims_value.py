"""`claim A == B` decided by value (polyhedral/valueflow.py, polyhedral/valueexpr.py).

Observable: every non-padding cell of every global tensor either kernel writes (local and
shared tensors are the kernels' own). For each such tensor both kernels' final values are
expanded to inputs (polyhedral/valueexpr.py) over one context, the cells `OUT_<T>[c]`, and compared
point by point on the common pieces of their case splits:

- leaves must read the same input cell (isl: equal maps on the piece), constants and
  operators must be identical: `fma(a, b, c)` is not `c + a*b` and `(a*b)*w` not `a*(b*w)`;
- reductions compare (operator, init, multiset of terms): per term shape, the relations
  {cell -> leaf cells} of the two kernels must have equal images and be injective in both
  (each term once); a partial sum (a reduction with init 0 added into another) counts as its
  terms. Equal per-cell term orders mean bitwise equal; otherwise the claim reassociates:
  exact for integer `+`/`*` and for max/min, licensed for floats by the default/approximate
  profiles, refused by `reproducible`. An fma chain against `+ a*b` is a contraction, licensed
  (and reported) like a reassociation, refused by `reproducible`;
- under the `finite` and `approximate` profiles (finite inputs assumed), a term `0 * input` of
  a sum from +0.0, the 0 read from a cell value flow shows to hold 0 (a fill, a pad zone, the
  gap of a strided insert), is dropped, and so is `+ 0 * input` added to such a sum
  (finite_zero.py); the report then says the assumption was used;
- in-place recurrences (`Ref`) are decided co-inductively: instance pairs met at the same
  position are assumed equal and every reference pair must be among them.

A difference of leaves, constants, operators or terms is refuted at a sampled cell (params +
cell, which `vsched run` replays); under `approximate` a difference of tree structure is
`unknown` (that profile licenses rewrites beyond reassociation, e.g. Winograd), as is anything
the analysis cannot model (barriers, data-dependent control, too large a value).
"""
from __future__ import annotations

import islpy as isl

from smt import fp
from verified_sched.core.budget import DEFAULT_TIMEOUT

from polyhedral import term_counts
from .claims_terms import (compute_type, continues, flat_terms, has_amb, has_red, is_neg_zero, is_zero, leaf_map,
                           node_kind, plain, same_const, same_ctx, same_init, sched_dims, shape_text, single_cell,
                           strip)
from verified_sched.core.counterexample import Cell, Counterexample, Instance
from verified_sched.core.obligations import Decided
from polyhedral.describe import coords, param_values
from polyhedral import claims_lift
from . import finite_zero, value_smt
from .finite_zero import ctx_first
from polyhedral.isltools import tensor_box, params_text, point_of
from polyhedral.model import KernelModel, safe_name
from polyhedral.valueexpr import At, Const, Expander, Iter, Leaf, Op, Pw, Red, Ref, identity
from polyhedral.valueflow import Unsupported, ValueFlow, out_tuple

STATEMENT = ("forall params and every observable cell (non-padding cell of a global, non-scratch tensor "
             "either kernel writes): the value expression each kernel leaves there, expanded through its last writers to "
             "the inputs, is the same (reductions as operator, init and term multiset)")


class Mismatch(Exception):
    def __init__(self, where: isl.Set, message: str, witness=None, **extra):
        super().__init__(message)
        self.where, self.message, self.extra, self.witness = where, message, extra, witness


class Side:
    def __init__(self, model: KernelModel):
        self.model = model
        self.flow = ValueFlow(model)
        self.exp = Expander(model, self.flow)

    def writes(self) -> set:
        return {a.tensor for st in self.model.stmts for a in st.accesses if a.write}


class Compare:
    def __init__(self, sa: Side, sb: Side, profile: str, prec: str = "f32", timeout: float = DEFAULT_TIMEOUT):
        self.a, self.b, self.profile = sa, sb, profile
        self.compute, self.timeout = fp.COMPUTE[prec], timeout
        self.tree = None  # inside a pair of reduction-free trees (tree_pair)
        self.by_z3 = 0  # pairs of different trees z3 proved bitwise equal
        self.hyp, self.refs = {}, []
        self.notes = set()
        self.refused = []  # (cells, why): reorderings the profile refuses
        self.fams = {}
        self.names = (sa.model.kernel.name, sb.model.kernel.name)
        self.finite = finite_zero.assumes_finite(profile)
        self.dropped = finite_zero.Dropped()  # what the finite-input assumption dropped
        self.lim = finite_zero.Limits(self.compute, {t.name: t.prec for t in sa.model.program.tensors})

    # ------------------------------------------------------------ pointwise

    def cmp(self, x, y, dom: isl.Set):
        if dom.is_empty():
            return
        if isinstance(x, Pw):
            for d, e in x.pieces:
                self.cmp(e, y, dom.intersect(d))
            return
        if isinstance(y, Pw):
            for d, e in y.pieces:
                self.cmp(x, e, dom.intersect(d))
            return
        if self.tree is None and plain(x) and plain(y):
            return self.tree_pair(x, y, dom)
        if isinstance(x, At) and isinstance(y, At):
            # the instance pairing, built only if an in-place recurrence asks for it (check_refs):
            # composing it on fragmented cell sets is what costs
            if self.rounds(self.a, x) != self.rounds(self.b, y):
                self.structure(dom, "a value stored in one precision in " + self.names[0] + ", another in " +
                               self.names[1])
            self.hyp.setdefault((x.stmt, y.stmt), []).append((x.inst, y.inst, dom))
            return self.cmp(x.body, y.body, dom)
        if isinstance(x, (At, Ref)) and isinstance(y, (At, Ref)):
            # an instance's value met again inside a recurrence on one side, expanded on the other
            # (a recurrence split into two statements: partition): the pair must be among those
            # compared, as for two Refs (check_refs; both instances run before the one whose
            # value is being compared, so the co-induction stays well-founded)
            rel = x.inst.intersect_domain(dom).reverse().apply_range(y.inst.intersect_domain(dom))
            self.refs.append(((x.stmt, y.stmt), rel))
            return
        for at, side in ((x, self.a), (y, self.b)):
            if isinstance(at, At) and self.rounds(side, at):
                self.structure(dom, f"a value rounded to {self.rounds(side, at)} by a store in "
                                    f"{self.who(side is self.a)} only")
        if isinstance(x, At):
            return self.cmp(x.body, y, dom)
        if isinstance(y, At):
            return self.cmp(x, y.body, dom)
        if isinstance(x, Ref) and isinstance(y, Ref):
            rel = x.inst.intersect_domain(dom).reverse().apply_range(y.inst.intersect_domain(dom))
            self.refs.append(((x.stmt, y.stmt), rel))
            return
        ref, other = (x, y) if isinstance(x, Ref) else (y, x)
        if isinstance(ref, Ref) and ref.computes and isinstance(other, Leaf):
            self.structure(dom, f"a computed value in {self.who(ref is x)}, {node_kind(other)} in "
                                f"{self.who(ref is not x)}")
        if isinstance(x, Ref) or isinstance(y, Ref):
            raise Unsupported("one kernel computes a cell by an in-place recurrence and the other does not")
        if self.finite and (pair := finite_zero.drop_zero_operand(x, y, self.lim)) is not None:
            self.dropped.operands += 1  # v + 0*w compares as v (finite_zero.py)
            return self.cmp(*pair, dom)
        for r, o, first in ((x, y, True), (y, x, False)):
            if isinstance(r, Red) and not isinstance(o, Red) and r.op == "+":
                if not self.families(r, dom, self.a if first else self.b)[0]:  # only + 0.0 terms
                    return self.cmp(r.init, o, dom) if first else self.cmp(o, r.init, dom)
        self.node(x, y, dom)

    def tree_pair(self, x, y, dom: isl.Set):
        """Two trees without reductions: identical trees are equal; anything else is decided by
        z3 over the IEEE-754 theory (value_smt.py), a model giving the counterexample's inputs."""
        saved = ({k: list(v) for k, v in self.hyp.items()}, list(self.refs), set(self.notes), list(self.refused))
        self.tree = True
        try:
            self.cmp(x, y, dom)
            return
        except Mismatch as exc:
            mm = exc
        finally:
            self.tree = None
        self.hyp, self.refs, self.notes, self.refused = saved
        where = mm.where if isinstance(mm.where, isl.Set) and mm.where.get_space().is_equal(dom.get_space()) else dom
        where = where.intersect(dom)
        status, res = value_smt.decide((self.a.model, self.b.model), x, y, where, self.compute, self.finite,
                                       self.timeout)
        if status == "proved":
            self.by_z3 += 1  # different trees, equal bits
            return
        if status == "unknown":
            raise Unsupported(f"{mm.message}; z3 did not decide whether the values are equal ({res})")
        if self.profile == "approximate" and mm.extra.get("structural"):
            raise Unsupported(f"the expression trees differ ({mm.message}); equivalence beyond reassociation is "
                              "not decided")
        raise Mismatch(where, f"{mm.message} (z3: the values differ bitwise{' for ' + res.text() if res.values else ''})",
                       witness=res, **{k: v for k, v in mm.extra.items() if k != "structural"})

    def node(self, x, y, dom: isl.Set):
        """Compare two non-piecewise nodes of the same kind structurally."""
        if type(x) is not type(y):
            self.structure(dom, f"{node_kind(x)} in {self.names[0]}, {node_kind(y)} in {self.names[1]}")
        if isinstance(x, Const):
            if not same_const(x.value, y.value):
                raise Mismatch(dom, f"the constant {x.value:g} in {self.names[0]} is {y.value:g} in "
                                    f"{self.names[1]}")
        elif isinstance(x, (Leaf, Iter)):
            if isinstance(x, Leaf) and x.tensor != y.tensor:
                raise Mismatch(dom, f"{self.names[0]} leaves a value of {x.tensor} where {self.names[1]} leaves "
                                    f"one of {y.tensor}")
            ma, mb = x.map.intersect_domain(dom), y.map.intersect_domain(dom)
            if not ma.is_equal(mb):
                bad = ma.subtract(mb).domain().union(mb.subtract(ma).domain())
                what = f"{x.tensor} cell" if isinstance(x, Leaf) else "iterator value"
                raise Mismatch(bad, f"{self.names[0]} and {self.names[1]} read a different {what}")
        elif isinstance(x, Op):
            if x.name != y.name or len(x.args) != len(y.args):
                self.structure(dom, f"{x.name} in {self.names[0]}, {y.name} in {self.names[1]} (different rounding)")
            if x.name in ("+", "*") and len(x.args) == 2:
                saved = ({k: list(v) for k, v in self.hyp.items()}, list(self.refs), set(self.notes), list(self.refused))
                try:  # two-operand + and * commute exactly
                    for p, q in zip(x.args, y.args[::-1]):
                        self.cmp(p, q, dom)
                    return
                except (Mismatch, Unsupported):
                    self.hyp, self.refs, self.notes, self.refused = saved
            for p, q in zip(x.args, y.args):
                self.cmp(p, q, dom)
        elif isinstance(x, Red):
            self.reduction(x, y, dom)

    def rounds(self, side: Side, at: At):
        """The precision a stored value is rounded to (a narrower store than the compute type:
        f16, bf16), or None when storing it is exact (a copy of a cell of that precision)."""
        m = side.model
        prec = m.program.tensor(m.stmt(at.stmt).accesses[0].tensor).prec
        if fp.COMPUTE[prec] == prec:
            return None
        body = strip(at.body)
        if isinstance(body, Leaf) and m.program.tensor(body.tensor).prec == prec:
            return None
        return prec

    def who(self, first: bool) -> str:
        return self.names[0] if first else self.names[1]

    def structure(self, dom, message):
        if self.tree:  # z3 decides the pair of trees (tree_pair)
            raise Mismatch(dom, f"the expression trees differ: {message}", structural=True)
        if self.profile == "approximate":
            raise Unsupported(f"the expression trees differ ({message}); equivalence beyond reassociation is "
                              "not decided")
        raise Mismatch(dom, f"the expression trees differ: {message}")

    # ------------------------------------------------------------ reductions

    def reduction(self, x: Red, y: Red, dom: isl.Set):
        if dom.is_empty():
            return
        for r, first in ((x, True), (y, False)):
            # a chain continuing the value of an earlier chain of the same operator on the cell
            # (copied out to a private accumulator and back, say) is one reduction: merge them
            init = strip(r.init)
            if isinstance(init, Pw) and any(continues(r, e) for _, e in init.pieces):
                for d, e in init.pieces:
                    part = Red(r.op, r.prec, e, r.terms)
                    self.reduction(part, y, dom.intersect(d)) if first else self.reduction(x, part, dom.intersect(d))
                return
            if continues(r, init):
                merged = Red(r.op, r.prec, init.init, list(init.terms) + list(r.terms))
                return self.reduction(merged, y, dom) if first else self.reduction(x, merged, dom)
        ops = {x.op, y.op}
        if x.prec != y.prec:
            self.structure(dom, f"an {x.prec} reduction in {self.names[0]}, an {y.prec} one in {self.names[1]}")
        if x.op != y.op:
            if ops != {"fma", "+"}:
                raise Mismatch(dom, f"a {x.op} reduction in {self.names[0]}, a {y.op} reduction in {self.names[1]}")
            if self.profile == "reproducible":
                self.refused.append((dom, f"{self.who(x.op == 'fma')} accumulates with fma, "
                                          f"{self.who(x.op != 'fma')} adds rounded products; "
                                          "the reproducible profile refuses the contraction"))
            self.notes.add("fma")
        self.cmp(x.init, y.init, dom)
        fa, oa, nest_a = self.families(x, dom, self.a)
        fb, ob, nest_b = self.families(y, dom, self.b)
        for key in sorted(set(fa) | set(fb), key=str):
            ia = fa[key].range() if key in fa else None
            ib = fb[key].range() if key in fb else None
            for have, lack, who, other in ((ia, ib, *self.names), (ib, ia, *self.names[::-1])):
                if have is None:
                    continue
                extra = have if lack is None else have.subtract(lack)
                if not extra.is_empty():
                    if has_amb(key):
                        raise Unsupported("a term reads one tensor twice and the term sets differ (factor order "
                                          "is not canonical)")
                    where = extra.unwrap().domain()
                    raise Mismatch(single_cell(where, dom), f"a term {shape_text(key)} of the {x.op} reduction is "
                                   f"added in {who} but not in {other}", term=shape_text(key), missing_in=other)
            if x.op in ("max", "min"):
                continue  # idempotent: how often a term is taken does not matter, only the set
            ja, jb = fa[key].is_injective(), fb[key].is_injective()
            if ja != jb:
                m = fb[key] if ja else fa[key]
                dup = m.apply_range(m.reverse()).subtract(m.domain().identity())
                cells = dup.domain().apply(m).unwrap().domain() if not dup.is_empty() else None
                who, other = self.names[::-1] if ja else self.names
                raise Mismatch(single_cell(cells, dom) if cells is not None else dom,
                               f"{who} adds a term {shape_text(key)} twice where {other} adds it once",
                               term=shape_text(key), extra_in=who)
            if not ja:
                bad = term_counts.excess(fa[key], fb[key])
                if bad is not None:
                    points, first = bad
                    who, other = self.names if first else self.names[::-1]
                    raise Mismatch(single_cell(points.unwrap().domain(), dom), f"{who} adds a term "
                                   f"{shape_text(key)} more times than {other}", term=shape_text(key),
                                   extra_in=who)
        if x.op in ("max", "min") or x.prec == "i32":
            return  # exact in any order (integers wrap: + and * are associative and commutative)
        if oa is None and ob is None and not (nest_a or nest_b):
            return
        if nest_a or nest_b or oa is None or ob is None or not oa.is_equal(ob):
            if self.profile == "reproducible":
                self.refused.append((dom, f"the kernels sum the terms of a {x.op} reduction in different orders; "
                                     "the reproducible profile refuses reassociation"))
            self.notes.add("reassociates")

    def families(self, red: Red, dom: isl.Set, side: Side):
        """(shape -> union map D -> [ctx -> F[leaves]], term order relation, nested?)."""
        fam, nested = {}, False
        pieces = []  # (term ctx set D, to_ctx map D -> ctx, body, chain ctx -> instance or None)
        for t in red.terms:
            chain = t.chain.intersect_domain(dom).coalesce()
            if chain.is_empty():
                continue
            pieces.append((chain.wrap(), chain.domain_map(), t.body, chain))  # chain: ctx -> instance
        order, placed = None, []  # placed: (term -> statement instance, term set, term -> ctx) to order by schedule
        # +0.0 terms leave a sum unchanged only when it is never -0.0 (-0 + +0 = +0): a sum from
        # +0.0 or a nonzero constant; -0.0 terms leave any sum unchanged
        skip_pos = red.op == "+" and finite_zero.never_negzero(red.init)
        drop = self.finite and skip_pos
        k = 0
        while k < len(pieces):
            d, to_ctx, body, ymap = pieces[k]
            k += 1
            inner = strip(body)
            if d.is_empty():
                continue
            if isinstance(inner, Pw) and red.op == "+" and (has_red(inner) or
                                                             any(is_zero(e) or (drop and finite_zero.zero_node(e, self.lim))
                                                                 for _, e in inner.pieces)):
                pieces += [(d.intersect(pd), to_ctx, e, ymap) for pd, e in inner.pieces]
                continue
            if isinstance(inner, Op) and inner.name == "+" and red.op == "+" and has_red(inner):
                nested = True  # a sum of partial sums: its summands are terms (reassociation)
                pieces += [(d, to_ctx, a, None) for a in inner.args]
                continue
            if isinstance(inner, Red) and inner.op == red.op and is_zero(inner.init):
                nested = True
                for t in inner.terms:
                    ch = t.chain.intersect_domain(d)
                    if not ch.is_empty():
                        pieces.append((ch.wrap(), ch.domain_map().apply_range(to_ctx), t.body, None))
                continue
            if red.op == "+" and (is_neg_zero(inner) or (skip_pos and is_zero(inner))):
                continue  # adding +0.0 (an empty partial sum, a predicated-off term) changes nothing
            if red.op in ("max", "min"):  # idempotent: a set of terms, the init among them
                def init(e, dd):
                    return same_init(e, red.init, to_ctx, dd, lambda at: self.rounds(side, at))
                if isinstance(inner, Pw) and (has_red(inner) or any(init(e, d.intersect(pd)) for pd, e in inner.pieces)):
                    pieces += [(d.intersect(pd), to_ctx, e, ymap) for pd, e in inner.pieces]
                    continue
                if isinstance(inner, Op) and inner.name == red.op and has_red(inner):
                    nested = True  # max(partial, partial): each a set of terms
                    pieces += [(d, to_ctx, a, None) for a in inner.args]
                    continue
                if isinstance(inner, Red) and inner.op == red.op and init(inner.init, d):
                    nested = True  # a partial max from the same init: its terms
                    for t in inner.terms:
                        ch = t.chain.intersect_domain(d)
                        if not ch.is_empty():
                            pieces.append((ch.wrap(), ch.domain_map().apply_range(to_ctx), t.body, None))
                    continue
                if init(inner, d):
                    continue  # max(init, init) is init
            for dd, shape, leaves in flat_terms(body, d):
                if drop and finite_zero.zero_shape(shape, self.lim):
                    self.dropped.terms += 1  # 0 * input: +-0 for finite inputs (finite_zero.py)
                    continue
                name = self.fams.setdefault(shape, f"F{len(self.fams)}")
                lv = leaf_map(leaves, dd, name)
                m = to_ctx.intersect_domain(dd).coalesce().range_product(lv.coalesce())
                u = isl.UnionMap.from_map(m)
                fam[shape] = fam[shape].union(u) if shape in fam else u
            if ymap is not None and not nested:
                placed.append((ymap, d, to_ctx))
        if nested or not placed or not fam:
            return fam, None, nested
        if term_counts.order_free(fam):
            return fam, None, nested  # nothing to order (the order relation can be costly to build)
        for chain, d, tc in placed:
            s = isl.UnionMap.from_map(chain.range_map().intersect_domain(d)).apply_range(side.flow.write_sched)
            s = ctx_first(tc.intersect_domain(d), s)
            order = s if order is None else order.union(s)
        allp = None
        for m in fam.values():
            allp = m if allp is None else allp.union(m)
        n = sched_dims(order)
        sp = isl.Set(f"{side.model.ptuple} -> {{ SCHED[{', '.join(f's{j}' for j in range(n))}] }}").get_space()
        lt = isl.Map.lex_lt(sp)
        for j in range(placed[0][2].dim(isl.dim_type.out)):  # terms of one cell only: equal context coordinates first
            lt = lt.equate(isl.dim_type.in_, j, isl.dim_type.out, j)
        before = order.apply_range(isl.UnionMap.from_map(lt)).apply_range(order.reverse())
        rel = before.apply_domain(allp).apply_range(allp)
        # keep pairs of one cell: [ctx -> L1] -> [ctx -> L2] with equal ctx
        rel = rel.intersect(same_ctx(rel))
        return fam, rel, nested

    # ------------------------------------------------------------ driver

    def _pairing(self, key) -> isl.Map:
        """Instance of one kernel -> instance of the other that the comparison paired (At nodes)."""
        out = None
        for xi, yi, dom in self.hyp[key]:
            rel = xi.intersect_domain(dom).reverse().apply_range(yi.intersect_domain(dom))
            out = rel if out is None else out.union(rel)
        return out

    def check_refs(self):
        for key, rel in self.refs:
            if key not in self.hyp or not rel.is_subset(self._pairing(key)):
                raise Unsupported("an in-place recurrence could not be matched instance by instance")


def equivalence(ma: KernelModel, mb: KernelModel, profile: str, timeout: float = DEFAULT_TIMEOUT) -> list:
    """[(kind, Decided)]: equivalence and, when equal, reassociation (data-dependent scatter
    rows lifted: polyhedral/claims_lift.py)."""
    return claims_lift.decide(ma, mb, profile, timeout, _equivalence)


def _equivalence(ma: KernelModel, mb: KernelModel, profile: str, timeout: float) -> list:
    na, nb = ma.kernel.name, mb.kernel.name
    from polyhedral import contraction
    if contraction.pure_sums(ma, mb):
        out = contraction.equivalence(ma, mb, profile)
        if out[0][1].status != "unknown":
            return out  # else (other groupings or constants, say) the value comparison decides
    try:
        compute = compute_type((ma, mb))  # (reads of other precisions convert alike)
        sa, sb = Side(ma), Side(mb)
        cmp = Compare(sa, sb, profile, compute or "f32", timeout)
        for t in sorted(sa.writes() | sb.writes()):
            tensor = ma.program.tensor(t)
            if tensor.memory != "global" or tensor.scratch:
                continue  # shared, local and scratch tensors are not observable
            box = tensor_box(ma, t, False).set_tuple_name(out_tuple(t))
            va = sa.exp.final(t, box) if t in sa.writes() else _input(t, box)
            vb = sb.exp.final(t, box) if t in sb.writes() else _input(t, box)
            try:
                cmp.cmp(va, vb, box)
            except Mismatch as mm:
                return [("equivalence", _refute(ma, t, mm, na, nb))]
        cmp.check_refs()
    except (Unsupported, isl.Error) as exc:
        return [("equivalence", Decided("unknown", f"not decided by value: {exc}", STATEMENT))]
    assumed = f"; {cmp.dropped.text(profile)}" if cmp.dropped else ""
    if cmp.by_z3:
        assumed += "; different expression trees proved bitwise equal by z3 (IEEE-754)"
    eq = Decided("proved", f"{na} and {nb} leave the same value in every observable cell{assumed}",
                 STATEMENT + (f"; {finite_zero.ASSUMPTION}" if cmp.dropped else ""))
    st_red = "every reduction sums its terms in the same order in both kernels (bitwise equal)"
    for dom, why in cmp.refused:
        pt = point_of(dom)
        if pt is None:
            continue
        p, tup = coords(pt)
        params = param_values(ma, p)
        t = tup[0][0][len("OUT_"):]
        cell = tup[0][1]
        red = Decided("refuted", f"{t}[{', '.join(map(str, cell))}] at {params_text(params)}: {why}", st_red,
                      Counterexample(Instance(sizes=params), cells=(Cell(t, cell),), profile=profile))
        return [("equivalence", eq), ("reassociation", red)]
    if not cmp.notes:
        red = Decided("proved", "same expression trees and summation orders (bitwise equal)", st_red)
    else:
        what = []
        if "reassociates" in cmp.notes:
            what.append("the kernels sum reductions in different orders")
        if "fma" in cmp.notes:
            what.append("one kernel contracts a*b + c into fma")
        red = Decided("proved", f"{'; '.join(what)} (allowed by the {profile} profile)", st_red, None,
                      reassociates=True)
    return [("equivalence", eq), ("reassociation", red)]


def _input(t: str, box: isl.Set) -> Leaf:
    return Leaf(t, identity(box).set_tuple_name(isl.dim_type.out, f"T_{safe_name(t)}"))


def _refute(model: KernelModel, t: str, mm: Mismatch, na: str, nb: str) -> Decided:
    pt = point_of(mm.where)
    if pt is None:
        return Decided("unknown", f"not decided by value: {mm.message} (no cell found)", STATEMENT)
    p, tup = coords(pt)
    params = param_values(model, p)
    cell = tup[0][1]
    text = f"{t}[{', '.join(map(str, cell))}]"
    msg = (f"{text} differs at {params_text(params)}: {mm.message}")
    values = value_smt.witness_inputs(mm.witness, pt) if mm.witness is not None else None
    # JSON keys in the order reports have always had: sizes, the cell, the mismatch's facts, the inputs
    cex = Counterexample(Instance(sizes=params, values=values or None), cells=(Cell(t, cell),),
                         extra=dict(mm.extra), key_order=("params", "cells", *mm.extra, "values"))
    return Decided("refuted", msg, STATEMENT, cex)
