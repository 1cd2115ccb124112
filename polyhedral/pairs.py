"""A relation between statement instances intersected with a per-statement-pair relation,
built only for the statement pairs the first relation relates.

`conflicts ∩ before` (dependences) and `xconflicts ∩ same block / other block` (races) used to
build the second relation for every ordered pair of statements (a parsed isl map each, then a
union of them all): quadratic in the statements, most of it for pairs that never conflict.
Intersecting each piece of the first relation (one isl map per pair of statement spaces) with
the constraint of its own pair gives the same set when every piece already lies within its
statements' domains, which holds for relations built from the model's access maps.
"""
from __future__ import annotations

from .lazy_isl import isl


def restrict(rel: isl.UnionMap, stmts: dict, constraint, union):
    """`rel` with each piece (statement s -> statement t, `stmts` mapping tuple names to
    statements) intersected with `constraint(s, t)` (an isl.Map in that piece's space; None
    when no pair of those statements qualifies, True when every pair does: the piece as it
    is); `union(maps)` builds the result. None when a piece's tuple names no statement (the
    caller then intersects the general way)."""
    pieces, maps = [], []
    rel.foreach_map(pieces.append)
    for piece in pieces:
        s = stmts.get(piece.get_tuple_name(isl.dim_type.in_))
        t = stmts.get(piece.get_tuple_name(isl.dim_type.out))
        if s is None or t is None:
            return None
        c = constraint(s, t)
        if c is True:
            maps.append(piece)
        elif c is not None:
            maps.append(piece.intersect(c))
    return union(maps) if maps else rel.subtract(rel)
