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
_SHAPES: dict = {}  # (parameter tuple, arities, constraint text) -> a parsed map with placeholder tuple names
SHAPES_LIMIT = 20_000  # entries; the cache starts afresh past it
SHAPE_STATS = {"parsed": 0, "named": 0}  # tests count parses


def pair_map(model, s, t, c: str) -> isl.Map:
    """The map `s[a..] -> t[b..] : c` of the model's parameter space, as parsing that text
    gives it: parsed once per shape (the arities of the two tuples and the constraint text:
    the statements of one nest, and the same statements in the models of every op of a
    schedule, share a few) under placeholder tuple names (memo.isl_map), then named. The
    placeholder map is never used itself, so every map handed out is a fresh parse's
    constraints, renamed (renaming copies the basic maps of an object whose basic maps are
    shared)."""
    key = (model.ptuple, len(s.dims()), len(t.dims()), c)
    shape = _SHAPES.get(key)
    if shape is None:
        if len(_SHAPES) >= SHAPES_LIMIT:
            _SHAPES.clear()
        text = f"vs_pair_a[{', '.join(s.dims('a'))}] -> vs_pair_b[{', '.join(t.dims('b'))}] : {c}"
        shape = _SHAPES[key] = isl_map(model.space(text))
        SHAPE_STATS["parsed"] += 1
    SHAPE_STATS["named"] += 1
    return shape.set_tuple_name(isl.dim_type.in_, s.name).set_tuple_name(isl.dim_type.out, t.name)


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
            m = pair_map(model, s, t, c).intersect_domain(model.domains[s.name]).intersect_range(
                model.domains[t.name])
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
