"""The pieces of a model's execution order (`KernelModel.before`), one isl map per ordered
pair of statements, each built once and only when asked for.

`before` over every pair of statements is quadratic in them (a parsed isl map per pair), and
the dependence obligation needs only the pairs its dependences relate: `before_on(model, rel)`
gives the union of the pieces of those pairs, in either order. A relation between instances
of those statements intersected with, or subtracted by, `before_on` is the same as with the
whole `before` (isl works piece by piece, per pair of statement spaces, and the pieces are
the same maps), so the results do not depend on which one was used.
"""
from __future__ import annotations

import weakref

from .lazy_isl import isl

from .memo import isl_map


def always(c: str) -> bool:
    """Whether the constraint text is `1 = 1` in parentheses (what `lex_before` gives two
    statements of one nest level at different positions, e.g. two top-level statements)."""
    return c.replace("(", "").replace(")", "").replace(" ", "") == "1=1"

_PIECES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # model -> {(s, t): map or None}


def piece(model, s, t) -> isl.Map | None:
    """Instances of `s` that run before instances of `t` (within both domains), or None when
    no instance of s runs before one of t."""
    cache = _PIECES.setdefault(model, {})
    key = (s.name, t.name)
    if key not in cache:
        c = model.before_pair(s, t)
        m = None
        if c is not None and always(c):  # every pair of instances: no map parsed per pair
            m = isl.Map.from_domain_and_range(model.domains[s.name], model.domains[t.name])
        elif c is not None:
            m = isl_map(model.space(f"{model.tup(s, 'a')} -> {model.tup(t, 'b')} : {c}"))
            m = m.intersect_domain(model.domains[s.name]).intersect_range(model.domains[t.name])
        cache[key] = m
    return cache[key]


def before_on(model, *rels: isl.UnionMap) -> isl.UnionMap:
    """`model.before` restricted to the statement pairs (in either order) that the relations
    `rels` relate; the whole `before` when it is built already or they relate something else."""
    if "before" in model.__dict__:
        return model.before
    names = {st.name for st in model.stmts}
    want = set()
    pieces = []
    for rel in rels:
        rel.foreach_map(pieces.append)
    for p in pieces:
        a, b = p.get_tuple_name(isl.dim_type.in_), p.get_tuple_name(isl.dim_type.out)
        if a not in names or b not in names:
            return model.before
        want |= {(a, b), (b, a)}
    maps = [m for s in model.stmts for t in model.stmts if (s.name, t.name) in want
            for m in [piece(model, s, t)] if m is not None]
    return model.union_map(maps)
