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
    memo = _memo(before, after)
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
    for x, sx in _targets(before, after, s, by_orig, memo):
        for y, ty in _targets(before, after, t, by_orig, memo):
            out = _pulled_back(after, s, t, x, y, sx, ty, memo)
            if out is None:
                continue
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


def _targets(before, after, s, by_orig: dict, memo: dict) -> list:
    """(x, s -> x instances of the same original instance) for the after statements x of
    s's original that stand for some instance of s (the others relate no pair of s)."""
    key = ("targets", s.name)
    if key not in memo:
        memo[key] = [(x, m) for x in by_orig.get(s.orig_tuple, ()) for m in [_same(before, after, s, x)]
                     if m is not None]
    return memo[key]


def _memo(before, after) -> dict:
    """The pulled-back pieces of one (before, after) pair of models, kept on the after model
    (the obligation asks up to three relations of the same models: the conflicts, without
    the pairs of equal stores, without the separated pairs)."""
    memos = after.__dict__.setdefault("_kept_memos", [])
    for b, m in memos:
        if b is before:
            return m
    m = {}
    memos.append((before, m))
    return m


_SHAPES: dict = {}  # (parameter tuple, arities, constraint text or None) -> complement, placeholder names
SHAPES_LIMIT = 20_000  # entries; the cache starts afresh past it


def _complement(after, x, y):
    """The pairs of x and y instances (universe) where the x instance does not run before the
    y instance, or None when every x instance runs before every y instance; once per after
    model and statement pair (the pieces of many before statement pairs ask for the same).
    Built once per shape (the order constraint and the two tuples' arities, in this process:
    the models of every op of a schedule share them) with placeholder tuple names, then
    named (only its emptiness with other sets is asked: no sample depends on it)."""
    memo = after.__dict__.setdefault("_kept_complements", {})
    key = (x.name, y.name)
    if key not in memo:
        c = after.before_pair(x, y)
        out = None
        if c is None or not always(c):
            shape = (after.ptuple, x.depth, y.depth, c)
            if shape not in _SHAPES:
                if len(_SHAPES) >= SHAPES_LIMIT:
                    _SHAPES.clear()
                pair = f"KA[{', '.join(x.dims('a'))}] -> KB[{', '.join(y.dims('b'))}]"
                m = isl.Map(after.space(pair))  # every pair: x never runs before y
                if c is not None:
                    m = m.subtract(isl.Map(after.space(f"{pair} : {c}")))
                _SHAPES[shape] = m
            out = _SHAPES[shape].set_tuple_name(isl.dim_type.in_, x.name).set_tuple_name(isl.dim_type.out, y.name)
        memo[key] = out
    return memo[key]


def _pulled_back(after, s, t, x, y, sx, ty, memo: dict):
    """The complement of x before y pulled back onto (s, t) pairs of before instances through
    `sx` (s -> x instances of one original) and `ty`, or None when x always runs before y.
    Once per (models, s, t, x, y)."""
    key = (s.name, t.name, x.name, y.name)
    if key not in memo:
        out = None
        comp = _complement(after, x, y)
        if comp is not None:
            STATS["pulled_back"] += 1
            out = comp.apply_domain(sx.reverse()).apply_range(ty.reverse())
        memo[key] = out
    return memo[key]


def _same(before, after, s, x) -> isl.Map | None:
    """Before instances of s -> after instances of x of the same original instance (None
    when there are none: x stands for other instances of the original statement than s)."""
    m = before.prov_map(s).apply_range(after.prov_map(x).reverse())
    return None if m.is_empty() else m
