"""Whether an op keeps the order of a relation's pairs, decided without mapping the relation.

The dependence obligation maps the before model's ordered conflicts through both provenances
onto after instances (`checks._mapped`: two compositions that project out the before and the
original instances, integer divisions wherever a split or a stride relates them) and then
subtracts the after order: most of its isl work, and all of it wasted when the answer is
"every pair keeps its order" or when only that answer is needed (the first pass over all
conflicts, before the pairs of equal stores are known). `order_kept` decides the same
question the other way round: the after order's complement, for each pair of after
statements, is pulled back onto before instances (a small relation: the order constraint of
one statement pair, without the domains' divisions) and intersected with each piece of the
relation, which stays as it is.

Formally, with P_b, P_a the provenances and M(b, a) iff P_b(b) = P_a(a) (both in their
effective domains): some pair (b1, b2) of `rel` is violated iff there are a1, a2 with
M(b1, a1), M(b2, a2), P_b(b1) != P_b(b2) and not before_A(a1, a2); per piece s -> t of `rel`
and after statements x, y of the same originals as s and t, that is
`rel_st ∩ M_sx^-1(¬C_xy) M_ty - {P_b(b1) = P_b(b2)}` non-empty, where C_xy is the order
constraint of x before y (`KernelModel.before_pair`; `before`'s piece is C_xy within both
domains, and M's after instances lie within them). Only the answer is computed here: the
violated pairs themselves (counterexamples) still come from the mapping and the subtraction.
"""
from __future__ import annotations

from .lazy_isl import isl

from .memo import isl_map
from .order import always
from .race import barrier_order

STATS = {"pulled_back": 0}  # after statement pairs whose order complement was pulled back (tests count work)


def order_kept(before, after, rel: isl.UnionMap) -> bool | None:
    """Whether every pair of `rel` (a relation between instances of `before`'s statements,
    like its ordered conflicts) has after instances that run in the same order: the answer of
    `checks._violated(before, after, rel).is_empty()` (module docstring). None when it cannot
    be decided this way (barriers order pairs, or a piece names no statement): the caller
    then builds the violated pairs."""
    if not barrier_order(after).is_empty():
        return None
    before.prov, after.prov  # noqa: B018 - raise where the mapping would (non-affine provenance)
    bst = {st.name: st for st in before.stmts}
    by_orig: dict = {}
    for x in after.stmts:
        by_orig.setdefault(x.orig_tuple, []).append(x)
    pieces = []
    rel.foreach_map(pieces.append)
    work = []
    for p in pieces:
        s = bst.get(p.get_tuple_name(isl.dim_type.in_))
        t = bst.get(p.get_tuple_name(isl.dim_type.out))
        if s is None or t is None:
            return None
        work.append((p, s, t))
    memo: dict = {}
    for p, s, t in work:
        if not _piece_kept(before, after, p, s, t, by_orig, memo):
            return False
    return True


def _piece_kept(before, after, p, s, t, by_orig: dict, memo: dict) -> bool:
    """Whether every pair of the piece `p` (s -> t) keeps its order: for each pair of after
    statements x, y of the same originals, the before pairs whose x and y instances do not
    run in order (the complement of x before y pulled back) meet no pair of `p`, counting
    only pairs of two original instances."""
    same = None
    for x in by_orig.get(s.orig_tuple, ()):
        for y in by_orig.get(t.orig_tuple, ()):
            c = after.before_pair(x, y)
            if c is not None and always(c):
                continue
            STATS["pulled_back"] += 1
            pair = f"{after.tup(x, 'a')} -> {after.tup(y, 'b')}"
            out = isl_map(after.space(pair))  # every pair: x never runs before y
            if c is not None:
                out = out.subtract(isl_map(after.space(f"{pair} : {c}")))
            out = out.apply_domain(_same(before, after, s, x, memo).reverse()).apply_range(
                _same(before, after, t, y, memo).reverse())
            q = p.intersect(out)
            if q.is_empty():
                continue
            if s.orig_tuple != t.orig_tuple:
                return False
            if same is None:  # pairs of one original instance are no dependence
                same = before.prov_map(s).apply_range(before.prov_map(t).reverse())
            if not q.subtract(same).is_empty():
                return False
    return True


def _same(before, after, s, x, memo: dict) -> isl.Map:
    """Before instances of s -> after instances of x of the same original instance."""
    key = (s.name, x.name)
    if key not in memo:
        memo[key] = before.prov_map(s).apply_range(after.prov_map(x).reverse())
    return memo[key]
