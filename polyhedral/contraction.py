"""Contraction equivalence of two kernels, with multiplicities.

Supported shape, per observable (global) tensor T a kernel writes: either `zero T` (or a
constant-zero nest covering T) in an earlier top-level statement followed only by
accumulations `T[f] += c * x1[g1] * ... * xn[gn]`, or accumulations only, or plain stores
`T[f] = c * x1[g1] * ...` writing each cell once. A term family is its product's tree (its
grouping and its constants' bits; the operands of one `*` commute), never a set of factors:
`(a*b)*w` and `a*(b*w)` round differently. Every factor reads a tensor the kernel does
not write, every index is affine, no data-dependent guard. Then

    final(T[cell]) = init(cell) + sum over instances s with f(s) = cell of term(s),

so two kernels agree iff, per term family (target, coefficient, factor tensors), their
relations {cell -> factor cells} are equal AS MULTISETS: equal images and both term maps
injective. Anything outside this shape is "unknown" with the reason, never proved.
Summation order is compared too: equal per-cell term orders mean bitwise-equal results;
otherwise the claim reassociates (refused for + under the reproducible profile).
"""
from __future__ import annotations

import struct

from .lazy_isl import isl

from verified_sched.core import ir
from verified_sched.core.ir import BinOp, Float, Int, Load
from .affine import NonAffine, aff
from .isltools import tensor_box, params_text, point_of
from verified_sched.core.counterexample import Cell, Counterexample, Instance
from verified_sched.core.obligations import Decided
from .describe import coords, instance, param_values, sets_of
from .model import KernelModel, safe_name


class Unsupported(Exception):
    pass


def _bits(v: float) -> str:
    return struct.pack("<d", float(v)).hex()


def _term(e, names):
    """(shape, loads) of a product of reads and constants: the shape is the product's tree with
    each read replaced by its tensor and each constant by its bits (`(a*b)*w` is not
    `a*(b*w)`, -0.0 is not 0.0); the two operands of one `*` are put in a canonical order
    (commuting them is exact), the loads in the order of the shape's leaves."""
    match e:
        case BinOp(op="*", a=a, b=b):
            (sa, la), (sb, lb) = _term(a, names), _term(b, names)
            if repr(sb) < repr(sa):
                (sa, la), (sb, lb) = (sb, lb), (sa, la)
            return ("*", sa, sb), la + lb
        case Int(value=v) | Float(value=v):
            return ("c", _bits(v)), []
        case Load(index=idx):
            try:
                [aff(x, names) for x in idx]
            except NonAffine:
                raise Unsupported("a factor has a dynamic index") from None
            return ("l", e.tensor), [e]
    raise Unsupported("a term is not a product of tensor reads and constants")


def _shape_text(shape, parts: list, top: bool = True) -> str:
    """The term's text, its reads filled in from `parts` (consumed in leaf order)."""
    match shape:
        case ("*", a, b):
            text = f"{_shape_text(a, parts, False)} * {_shape_text(b, parts, False)}"
            return text if top else f"({text})"
        case ("c", bits):
            return f"{struct.unpack('<d', bytes.fromhex(bits))[0]:g}"
    return parts.pop(0)


class Shape:
    """The sum-of-terms form of one kernel (raises Unsupported)."""

    def __init__(self, model: KernelModel, families: dict):
        self.model = model
        self.pattern = {}  # T -> "zero+acc" | "acc" | "set"
        self.terms = {}  # family key -> isl.UnionMap instance -> F_k[cell, factor cells]
        self.ambiguous = set()
        prog = model.program
        model.domains  # builds the domains, which records over-approximated statements
        written = {a.tensor for st in model.stmts for a in st.accesses if a.write}
        by_t = {}
        for st in model.stmts:
            if st.data_guards(model.pnames) or st.name in model.approximate:
                raise Unsupported(f"statement {st.sid} has data-dependent control")
            w = next(a for a in st.accesses if a.write)
            if prog.tensor(w.tensor).memory != "global" or prog.tensor(w.tensor).scratch:
                raise Unsupported(f"statement {st.sid} writes a non-observable tensor {w.tensor}")
            by_t.setdefault(w.tensor, []).append(st)
            for a in st.accesses:
                if not a.write and not a.accumulator and a.tensor in written:
                    raise Unsupported(f"statement {st.sid} reads {a.tensor}, which the kernel writes")
        for t, sts in by_t.items():
            zeros = [s for s in sts if s.zero_like]
            accs = [s for s in sts if not s.zero_like and s.acc_op is not None]
            sets = [s for s in sts if not s.zero_like and s.acc_op is None]
            if accs and any(s.acc_op != "+" for s in accs):
                raise Unsupported(f"only + accumulations are compared (tensor {t})")
            if accs and sets:
                raise Unsupported(f"tensor {t} mixes plain stores and accumulations")
            if accs and zeros:
                if max(z.top for z in zeros) >= min(a.top for a in accs):
                    raise Unsupported(f"the zeroing of {t} is not a separate earlier statement")
                cells = model.union_map(model.access_map(z, z.accesses[0], storage_view=True) for z in zeros).range()
                if not tensor_box(model, t, False).subtract(_as_set(cells, t)).is_empty():
                    raise Unsupported(f"the zeroing of {t} does not cover the tensor")
                self.pattern[t] = "zero+acc"
            elif accs:
                self.pattern[t] = "acc"
            elif zeros and sets:
                raise Unsupported(f"tensor {t} mixes zeroing and plain stores")
            else:
                self.pattern[t] = "set"
            kind = "set" if self.pattern[t] == "set" else "acc"
            for s in (sets + zeros if kind == "set" else accs):
                self._add(s, t, kind, families)

    def _add(self, st, t, kind, families):
        names = st.names(self.model.pnames)
        if st.zero_like:
            shape, loads = ("c", _bits(0.0)), []
        else:
            shape, loads = _term(st.node.value if kind == "set" else _acc_term(st), names)
        key = (t, kind, shape, tuple(l.tensor for l in loads))
        fam = families.setdefault(key, f"F{len(families)}")
        if len({l.tensor for l in loads}) != len(loads):
            self.ambiguous.add(key)
        w = next(a for a in st.accesses if a.write)
        outs = [aff(e, names) for e in w.index] + [aff(e, names) for l in loads for e in l.index]
        m = isl.Map(self.model.space(f"{self.model.tup(st)} -> {fam}[{', '.join(outs)}]")).intersect_domain(
            self.model.domains[st.name])
        u = isl.UnionMap.from_map(m)
        self.terms[key] = self.terms[key].union(u) if key in self.terms else u


def _acc_term(st):
    from verified_sched.core.ir import accumulation
    return accumulation(st.node)[1]


def _as_set(u: isl.UnionSet, t: str) -> isl.Set:
    for s in sets_of(u):
        if s.get_tuple_name() == f"T_{safe_name(t)}":
            return s
    raise Unsupported(f"no cells of {t}")


def _term_text(key, vals, prog) -> tuple:
    t = key[0]
    r = prog.tensor(t).rank
    cell, rest = vals[:r], vals[r:]
    parts = []
    for name in key[3]:
        k = prog.tensor(name).rank
        parts.append(f"{name}[{', '.join(map(str, rest[:k]))}]")
        rest = rest[k:]
    return cell, _shape_text(key[2], parts)


def equivalence(ma: KernelModel, mb: KernelModel, profile: str):
    """Returns [(kind, Decided)]: equivalence, and (when equal) reassociation."""
    statement = ("forall params and every observable cell: the multiset of product terms added "
                 f"to it (and its initial value) is the same in {ma.kernel.name} and {mb.kernel.name}")
    fams = {}
    try:
        sa, sb = Shape(ma, fams), Shape(mb, fams)
    except (Unsupported, NonAffine) as exc:
        return [("equivalence", Decided("unknown", f"outside the supported contraction shape: {exc}", statement))]
    na, nb = ma.kernel.name, mb.kernel.name
    prog = ma.program
    for t in sorted(set(sa.pattern) | set(sb.pattern)):
        if t not in sa.pattern or t not in sb.pattern:
            who, other, m = (na, nb, ma) if t in sa.pattern else (nb, na, mb)
            cells = m.writes.range()
            pt = point_of(_as_set(cells, t).intersect(tensor_box(m, t, False)))
            if pt is None:
                continue
            p, tup = coords(pt)
            params = param_values(m, p)
            return [("equivalence", Decided("refuted", f"{who} writes {t}[{', '.join(map(str, tup[0][1]))}] and "
                                            f"{other} never writes {t}, at {params_text(params)}", statement,
                                            Counterexample(Instance(params), cells=(Cell(t, tup[0][1]),))))]
        if sa.pattern[t] != sb.pattern[t]:
            pair = {sa.pattern[t], sb.pattern[t]}
            if pair == {"zero+acc", "acc"}:
                pt = point_of(tensor_box(ma, t, False))
                p, tup = coords(pt)
                params = param_values(ma, p)
                zk = na if sa.pattern[t] == "zero+acc" else nb
                return [("equivalence", Decided("refuted", f"{zk} zeroes {t} before accumulating and the other "
                                                f"kernel accumulates onto its input values", statement,
                                                Counterexample(Instance(params), cells=(Cell(t, tup[0][1]),))))]
            return [("equivalence", Decided("unknown", f"{t} is built differently ({sa.pattern[t]} vs {sb.pattern[t]})",
                                            statement))]
    groups = {}
    for key in set(sa.terms) | set(sb.terms):
        groups.setdefault((key[0], key[1], tuple(sorted(key[3]))), set()).add(key)
    for g, keys in groups.items():
        if len(keys) > 1:
            return [("equivalence", Decided("unknown", f"terms of {g[0]} with factors {g[2]} appear with different "
                                            "constants or groupings", statement))]
    for key in sorted(set(sa.terms) | set(sb.terms), key=str):
        ta, tb = sa.terms.get(key), sb.terms.get(key)
        empty = (ta or tb).range().empty((ta or tb).range().get_space())
        ia = ta.range() if ta is not None else empty
        ib = tb.range() if tb is not None else empty
        for missing, have, lack, tm, m in ((ia.subtract(ib), na, nb, ta, ma), (ib.subtract(ia), nb, na, tb, mb)):
            pt = point_of(missing)
            if pt is None:
                continue
            if key in sa.ambiguous or key in sb.ambiguous:
                return [("equivalence", Decided("unknown", "a term reads one tensor twice and the term sets differ "
                                                "(factor order is not canonical)", statement))]
            p, tup = coords(pt)
            params = param_values(m, p)
            cell, term = _term_text(key, tup[0][1], prog)
            src = point_of(tm.intersect_range(isl.UnionSet.from_set(isl.Set.from_point(pt))).domain())
            insts = []
            if src is not None:
                _, st = coords(src)
                insts.append(instance(m, st[0][0], st[0][1], params, have))
            return [("equivalence", Decided(
                "refuted", f"{key[0]}[{', '.join(map(str, cell))}] gets the term {term} in {have} but not in {lack}, "
                f"at {params_text(params)}", statement,
                Counterexample(Instance(params), insts, cells=(Cell(key[0], cell),),
                               extra={"term": term, "missing_in": lack},
                               key_order=("params", "cells", "term", "missing_in", "instances"))))]
        if ta is None or tb is None:
            continue
        inj_a, inj_b = ta.is_injective(), tb.is_injective()
        if inj_a != inj_b:
            tm, m, who, other = (tb, mb, nb, na) if inj_a else (ta, ma, na, nb)
            dup = tm.apply_range(tm.reverse()).subtract(tm.domain().identity())
            pt = point_of(dup)
            p, tup = coords(pt)
            params = param_values(m, p)
            i1 = instance(m, tup[0][0], tup[0][1], params, who)
            i2 = instance(m, tup[1][0], tup[1][1], params, who)
            term_pt = point_of(tm.intersect_domain(isl.UnionSet.from_set(
                isl.Set.from_point(pt).unwrap().domain())).range())
            _, tt = coords(term_pt)
            cell, term = _term_text(key, tt[0][1], prog)
            return [("equivalence", Decided(
                "refuted", f"{who} adds the term {term} to {key[0]}[{', '.join(map(str, cell))}] twice, {other} once, "
                f"at {params_text(params)}", statement,
                Counterexample(Instance(params), [i1, i2], cells=(Cell(key[0], cell),),
                               extra={"term": term, "extra_in": who},
                               key_order=("params", "cells", "term", "extra_in", "instances"))))]
        if not inj_a:
            return [("equivalence", Decided("unknown", "terms with multiplicity above one in both kernels "
                                            "(counting is not implemented)", statement))]
    eq = Decided("proved", f"{na} and {nb} add the same terms to every cell, each exactly once", statement)
    return [("equivalence", eq), ("reassociation", _order(sa, sb, profile))]


def _order(sa: Shape, sb: Shape, profile: str) -> Decided:
    statement = "every cell receives its terms in the same order in both kernels"

    def rel(s: Shape):
        acc = [u for k, u in s.terms.items() if k[1] == "acc"]
        if not acc:
            return None
        tm = acc[0]
        for u in acc[1:]:
            tm = tm.union(u)
        same = s.model.acc_writes.apply_range(s.model.acc_writes.reverse())
        return s.model.before.intersect(same).apply_domain(tm).apply_range(tm)

    ra, rb = rel(sa), rel(sb)
    if ra is None or rb is None or ra.is_equal(rb):
        return Decided("proved", "same summation order per cell (bitwise equal)", statement)
    diff = ra.subtract(rb).union(rb.subtract(ra))
    pt = point_of(diff)
    p, tup = coords(pt)
    params = param_values(sa.model, p)
    ints = all(sa.model.program.tensor(k[0]).prec == "i32" for k in list(sa.terms) + list(sb.terms) if k[1] == "acc")
    if ints:  # wrapping integer + is associative and commutative: any order is exact
        return Decided("proved", "the kernels sum integers in different orders (exact)", statement)
    if profile == "reproducible":
        return Decided("refuted", f"the kernels add terms to a cell in different orders at {params_text(params)}; "
                       "the reproducible profile refuses reassociation", statement,
                       Counterexample(Instance(params), extra={"points": [list(tup[0][1]), list(tup[1][1])]}))
    return Decided("proved", f"the kernels sum in different orders (reassociation allowed by the {profile} profile)",
                   statement, None, reassociates=True)


def pure_sums(ma: KernelModel, mb: KernelModel) -> bool:
    """Both kernels only accumulate (+, no fma) products of inputs into tensors they zeroed first
    or that start from their inputs: then each cell's value is its initial value plus the sum of
    its terms, which contraction.py compares as multisets (much cheaper than the value flow)."""
    if any(st.blend is not None or (isinstance(st.node, ir.Assign) and isinstance(st.node.value, ir.Call)
                                    and st.node.value.fn == "fma") for m in (ma, mb) for st in m.stmts):
        return False
    try:
        fams = {}
        shapes = [Shape(ma, fams), Shape(mb, fams)]
    except (Unsupported, NonAffine, isl.Error):
        return False
    if any(p == "set" for s in shapes for p in s.pattern.values()):
        return False
    for m in (ma, mb):  # padding is not observable: the sum form would compare it
        for st in m.stmts:
            if not st.zero_like:
                w = st.accesses[0]
                cells = m.access_map(st, w, storage_view=True).range()
                if not cells.is_subset(tensor_box(m, w.tensor, False)):
                    return False
    return True
