"""How often each value is added to a cell, for claims decided by value (verified_sched/values/claims_value.py).

A reduction's terms are grouped in families (claims_value.Compare.families): each maps term
points D (wrapped [cell -> statement instance]) to value points [cell -> F[leaf cells]]. Two
kernels add the same multiset of values when every value point has as many preimages on both
sides. islpy has no barvinok to count points, so `excess` peels: one term point per value
point per round (the lexicographic minimum); the value points still present after r rounds
are those added more than r times, and they must agree in every round. The term points of
all statements are first put in one space: a union map's lexmin is taken per space, so
peeling per statement would count a value added by two statements once (2 + 1 additions
would then equal 2).
"""
from __future__ import annotations

import islpy as isl

from .describe import maps_of
from .valueflow import Unsupported

MAX_MULTIPLICITY = 64  # additions of one value to one cell compared by peeling


def one_space(u: isl.UnionMap) -> isl.UnionMap:
    """value point -> D as value point -> TERM[k, instance dims, 0 ...], k numbering the
    statements: one value point (its cell included) has distinct terms exactly at distinct
    statement instances, now all in one space."""
    maps = [m.range_factor_range() for m in maps_of(u)]
    if not maps:
        return u
    width = max(m.dim(isl.dim_type.out) for m in maps)
    names = sorted({m.get_tuple_name(isl.dim_type.out) for m in maps})
    out = None
    for m in maps:
        name, n = m.get_tuple_name(isl.dim_type.out), m.dim(isl.dim_type.out)
        dims = [f"i{j}" for j in range(n)]
        point = [str(names.index(name))] + dims + ["0"] * (width - n)
        tag = isl.Map(f"{{ {name}[{', '.join(dims)}] -> TERM[{', '.join(point)}] }}").align_params(m.get_space())
        mm = isl.UnionMap.from_map(m.apply_range(tag))
        out = mm if out is None else out.union(mm)
    return out


def excess(fa: isl.UnionMap, fb: isl.UnionMap):
    """None when both families (term points -> value points, the same value points) add every
    value equally often; else (value points, first): points the first kernel (first=True) or
    the second adds more often. Unsupported past MAX_MULTIPLICITY additions."""
    ra, rb = one_space(fa.reverse()), one_space(fb.reverse())
    for _ in range(MAX_MULTIPLICITY + 1):
        da, db = ra.domain(), rb.domain()
        if da.is_empty() and db.is_empty():
            return None
        more_a, more_b = da.subtract(db), db.subtract(da)
        if not more_a.is_empty():
            return more_a, True
        if not more_b.is_empty():
            return more_b, False
        ra, rb = ra.subtract(ra.lexmin()), rb.subtract(rb.lexmin())
    raise Unsupported(f"a term is added more than {MAX_MULTIPLICITY} times to one cell in both kernels "
                      "(compared by counting up to that)")


def order_free(fam: dict) -> bool:
    """Whether the order of a reduction's terms cannot matter: every cell receives one value
    only, either because its terms all come from one family and read the same leaves (`+= 1`
    three times: adding equal values in any order gives the same bits), or because it receives
    at most one term. `fam`: shape -> term points D -> [cell -> F[leaf cells]]."""
    if len(fam) == 1:
        (m,) = fam.values()
        if m.range().unwrap().is_single_valued():
            return True
    to_cell = None
    for m in fam.values():
        d = m.range_factor_domain()
        to_cell = d if to_cell is None else to_cell.union(d)
    return to_cell is not None and to_cell.is_injective()
