"""The loop-nest IR (README: Semantics): its node vocabulary (defined in `ir_nodes.py`,
re-exported here; import it from this module) and the generic traversals.

- `rewrite(node, fn, descend=None)` rebuilds bottom-up and returns the very same object when
  nothing changed, so callers can test `new is old`; `descend(node) -> False` stops it from
  going below a node (a pre-order hook).
- `walk(node)` visits every node below, pre-order.
- `walk_scoped(body)` visits every statement with its path, enclosing loops and guards: the
  one "walk with enclosing loops and guards" (one `TensorCore` policy: its fallback is
  descended, each statement there marked with the TensorCore that holds it).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterator, NamedTuple, Optional

from .ir_nodes import (  # noqa: F401  (the IR's vocabulary, re-exported: import it from here)
    PRECISIONS, FLOAT_PRECISIONS, MEMORIES, HW_AXES, AXES, PARALLEL_AXES, BINOPS, CMPOPS, FUNCS,
    PROFILES, Node, Int, Float, Var, BinOp, FloorDiv, Mod, Call, Where, Cast, Load, Expr, Cmp,
    And, Or, Not, BoolConst, Cond, For, Assign, Zero, If, Barrier, TensorCore, Stmt, Tensor,
    Kernel, Schedule, Claim, InputRange, Program,
)
# ---------------------------------------------------------------- generic traversal


_FIELD_NAMES: dict = {}  # node class -> its field names but `loc` (dataclasses.fields is slow)


def _field_names(cls) -> tuple:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.name != "loc")
    return names


def _child_fields(node: Node):
    return [(name, getattr(node, name)) for name in _field_names(type(node))]


def _map_tuple(value: tuple, fn, descend) -> tuple:
    """`value` with its nodes (and nested tuples) rewritten: the same tuple when none changed."""
    new = None
    for k, v in enumerate(value):
        if isinstance(v, Node):
            nv = rewrite(v, fn, descend)
        elif isinstance(v, tuple):
            nv = _map_tuple(v, fn, descend)
        else:
            continue
        if nv is not v:
            if new is None:
                new = list(value)
            new[k] = nv
    return value if new is None else tuple(new)


_LEAVES = frozenset((Int, Float, Var, BoolConst))  # nodes with no node below them
_INIT_NAMES: dict = {}  # node class -> the names of its init fields (None: some field is not init)


def _replace(node: Node, changes: dict) -> Node:
    """`dataclasses.replace(node, **changes)` without looking the fields up on every call."""
    cls = type(node)
    names = _INIT_NAMES.get(cls, False)
    if names is False:
        fields = dataclasses.fields(cls)
        names = _INIT_NAMES[cls] = (tuple(f.name for f in fields) if all(f.init for f in fields) else None)
    if names is None:
        return dataclasses.replace(node, **changes)
    kwargs = {n: changes[n] if n in changes else getattr(node, n) for n in names}
    return cls(**kwargs)


def rewrite(node: Node, fn: Callable[[Node], Optional[Node]],
            descend: Optional[Callable[[Node], bool]] = None) -> Node:
    """Rebuild `node` bottom-up, applying `fn` to every rebuilt node.

    `fn` returns a replacement node, or None to keep it. The same object comes back when
    nothing changed anywhere below. Op records (schedule) and declarations are traversed too.
    `descend` (a pre-order hook, asked before any child is visited) returns False to leave
    everything below a node as it is; `fn` is still applied to the node itself.
    """
    cls = type(node)
    if cls in _LEAVES:  # nothing below them: only `fn` (and the hook) to ask
        if descend is not None:
            descend(node)
        out = fn(node)
        return node if out is None else out
    if cls is BinOp and (descend is None or descend(node)):  # the commonest inner node
        a, b = node.a, node.b
        a2 = rewrite(a, fn, descend) if isinstance(a, Node) else a
        b2 = rewrite(b, fn, descend) if isinstance(b, Node) else b
        if a2 is not a or b2 is not b:
            node = BinOp(node.op, a2, b2, loc=node.loc)
        out = fn(node)
        return node if out is None else out
    if descend is None or descend(node):
        changes = None
        for name in _FIELD_NAMES.get(cls) or _field_names(cls):
            value = getattr(node, name)
            if isinstance(value, Node):
                new = rewrite(value, fn, descend)
            elif isinstance(value, tuple):
                new = _map_tuple(value, fn, descend)
            else:
                continue
            if new is not value:
                if changes is None:
                    changes = {}
                changes[name] = new
        if changes:
            node = _replace(node, changes)
    out = fn(node)
    return node if out is None else out


def walk(node) -> Iterator[Node]:
    """Pre-order iteration over `node` and every node below it (tuples are descended)."""
    # iterative (a stack of pending values, last pushed first): the same order as recursion
    stack = [node]
    pop, push, names = stack.pop, stack.append, _FIELD_NAMES
    while stack:
        value = pop()
        if isinstance(value, tuple):
            for v in reversed(value):
                if isinstance(v, (Node, tuple)):
                    push(v)
            continue
        if not isinstance(value, Node):
            continue
        yield value
        fields = names.get(type(value)) or _field_names(type(value))
        for name in reversed(fields):
            v = getattr(value, name)
            if isinstance(v, (Node, tuple)):
                push(v)


# ---------------------------------------------------------------- facts kept on a node

# IR nodes are immutable, so what a walk finds below one (its variables, its loads, its loops)
# is the same every time it is asked: `nodes_of` walks a node once per class asked for and
# keeps the answer on the node, in its `__dict__` beside the cached hash (`_facts`: never
# pickled nor copied, see `Node.__getstate__`). Statement lists are tuples, which hold no
# attributes: their facts are kept by identity (the tuple itself held, so its id is not reused).
_FACTS = "_facts"
_TUPLE_FACTS: dict = {}  # id(tuple) -> (the tuple, its facts)
TUPLE_FACTS_LIMIT = 4096  # tuples; the table starts afresh past it
FACT_STATS = {"walks": 0, "reused": 0}


def _facts_of(x) -> dict:
    if isinstance(x, Node):
        d = x.__dict__
        facts = d.get(_FACTS)
        if facts is None:
            facts = d[_FACTS] = {}
        return facts
    hit = _TUPLE_FACTS.get(id(x))
    if hit is not None and hit[0] is x:
        return hit[1]
    if len(_TUPLE_FACTS) >= TUPLE_FACTS_LIMIT:
        _TUPLE_FACTS.clear()
    facts = {}
    _TUPLE_FACTS[id(x)] = (x, facts)
    return facts


def fact(node, fn):
    """`fn(node)` for a function of the node alone, computed once per node and kept on it (the
    same object on every call: an answer the callers do not change)."""
    if not isinstance(node, (Node, tuple)):
        return fn(node)
    facts = _facts_of(node)
    try:
        return facts[fn]
    except KeyError:
        out = facts[fn] = fn(node)
        return out


def nodes_of(x, cls) -> tuple:
    """The nodes `walk(x)` yields that are instances of `cls` (a class or a tuple of classes),
    in its order: walked once per node (or tuple of nodes) and class, then kept (above)."""
    if not isinstance(x, (Node, tuple)):
        return ()  # walk yields nothing below anything else
    facts = _facts_of(x)
    hit = facts.get(cls)
    if hit is None:
        FACT_STATS["walks"] += 1
        hit = facts[cls] = _collect(x, cls)
    else:
        FACT_STATS["reused"] += 1
    return hit


_KEPT_BELOW = frozenset((For, If, Assign, TensorCore))  # statements whose facts a walk above reuses


def _collect(x, cls) -> tuple:
    """`walk(x)`'s nodes of `cls`, in its order; a statement below `x` contributes its own kept
    answer (computed and kept now if it has none), so a node rebuilt above unchanged statements
    (an op rewrites one path of a nest) walks only what is new. A statement's nodes come
    contiguously in pre-order, so the order is walk's."""
    out: list = []
    stack = [x]
    pop, push, names, kept = stack.pop, stack.append, _FIELD_NAMES, _KEPT_BELOW
    while stack:
        value = pop()
        if isinstance(value, tuple):
            for v in reversed(value):
                if isinstance(v, (Node, tuple)):
                    push(v)
            continue
        if not isinstance(value, Node):
            continue
        if value is not x and type(value) in kept:
            out.extend(nodes_of(value, cls))
            continue
        if isinstance(value, cls):
            out.append(value)
        for name in reversed(names.get(type(value)) or _field_names(type(value))):
            v = getattr(value, name)
            if isinstance(v, (Node, tuple)):
                push(v)
    return tuple(out)


class Scoped(NamedTuple):
    """A statement with its path and what encloses it (outermost first).

    The path is a tuple of (field, index) steps from the walked body, field being "body"
    (kernel or For), "then"/"orelse" (If) or "fallback" (TensorCore).
    """

    stmt: Node
    path: tuple
    loops: tuple  # enclosing For nodes
    guards: tuple  # enclosing conditions (negated, Not(c), for else branches)
    core: Optional[TensorCore] = None  # the innermost TensorCore whose fallback holds it


def walk_scoped(body: tuple, descend: Optional[Callable[[Scoped], bool]] = None, *,
                path: tuple = (), loops: tuple = (), guards: tuple = (), core=None,
                field: str = "body") -> Iterator[Scoped]:
    """Every statement below the statement list `body`, pre-order, as `Scoped` records.

    A For adds itself to `loops`; an If adds its condition to the then branch's `guards`
    and `Not(cond)` to the else branch's; a TensorCore adds nothing but marks the statements
    of its fallback (`core`). `descend(scoped) -> False` skips what is below a statement (it
    is asked after the statement was yielded, so a consumer may decide it there).
    """
    # iterative (a stack of statement lists with the next index in each): a statement d loops
    # deep costs O(1), not d generator resumptions as nested `yield from` did
    stack = [(body, 0, path, loops, guards, core, field)]
    pop, push = stack.pop, stack.append
    while stack:
        stmts, i, path, loops, guards, core, field = pop()
        if i >= len(stmts):
            continue
        push((stmts, i + 1, path, loops, guards, core, field))  # the statements after this one
        s = stmts[i]
        p = path + ((field, i),)
        here = Scoped(s, p, loops, guards, core)
        yield here
        if descend is not None and not descend(here):
            continue
        match s:  # pushed last, walked first: then before orelse
            case For():
                push((s.body, 0, p, loops + (s,), guards, core, "body"))
            case If(cond=c):
                push((s.orelse, 0, p, loops, guards + (Not(c),), core, "orelse"))
                push((s.then, 0, p, loops, guards + (c,), core, "then"))
            case TensorCore():
                push((s.fallback, 0, p, loops, guards, s, "fallback"))


def substitute(node: Node, mapping: dict) -> Node:
    """Replace Var(name) by mapping[name] everywhere below `node` (loop-bound names included
    only where they appear as Var). `rewrite` with a function that replaces the variables,
    without calling it at every other node."""
    if not mapping:
        return node

    def go(n):
        cls = type(n)
        if cls is Var:
            return mapping.get(n.name, n)
        if cls in _LEAVES:
            return n
        if cls is BinOp:
            a, b = go(n.a), go(n.b)
            return n if (a is n.a and b is n.b) else BinOp(n.op, a, b, loc=n.loc)
        changes = None
        for name in _FIELD_NAMES.get(cls) or _field_names(cls):
            value = getattr(n, name)
            if isinstance(value, Node):
                new = go(value)
            elif isinstance(value, tuple):
                new = tup(value)
            else:
                continue
            if new is not value:
                if changes is None:
                    changes = {}
                changes[name] = new
        return _replace(n, changes) if changes else n

    def tup(value: tuple) -> tuple:
        new = None
        for k, v in enumerate(value):
            if isinstance(v, Node):
                nv = go(v)
            elif isinstance(v, tuple):
                nv = tup(v)
            else:
                continue
            if nv is not v:
                if new is None:
                    new = list(value)
                new[k] = nv
        return value if new is None else tuple(new)

    return go(node)


def replaced(node: Node, **changes) -> Node:
    """`dataclasses.replace(node, **changes)` for IR nodes, without looking their fields up on
    every call (the simplifier and the coalescing rebuild a node per loop level of a nest)."""
    return _replace(node, changes)


def free_vars(node) -> set:
    """The names of the variables below `node` (a new set: the caller may change it)."""
    return {n.name for n in nodes_of(node, Var)}


def reads(node) -> list:
    """Every Load below `node`, in pre-order (a new list)."""
    return list(nodes_of(node, Load))


# ---------------------------------------------------------------- accumulations



def accumulation(stmt: Assign) -> Optional[tuple]:
    """If `stmt` is `t[I] = t[I] op e` (op in + * max min; fma(a, b, t[I]) counts as +) with e
    not reading t[I], return (op, e); else None."""
    if not isinstance(stmt, Node):
        return _accumulation(stmt)
    facts = _facts_of(stmt)
    if "accumulation" not in facts:
        facts["accumulation"] = _accumulation(stmt)
    return facts["accumulation"]


def _accumulation(stmt: Assign) -> Optional[tuple]:
    target = Load(stmt.tensor, stmt.index)
    v = stmt.value

    def clean(e):
        return target not in nodes_of(e, Load)

    match v:
        case BinOp(op=("+" | "*") as op, a=a, b=b):
            if a == target and clean(b):
                return op, b
            if b == target and clean(a):
                return op, a
        case Call(fn=("max" | "min") as fn, args=(a, b)):
            if a == target and clean(b):
                return fn, b
            if b == target and clean(a):
                return fn, a
        case Call(fn="fma", args=(a, b, c)):
            if c == target and clean(a) and clean(b):
                return "+", BinOp("*", a, b)
    return None


def is_hardware(axis: str) -> bool:
    return axis in HW_AXES


def is_parallel(axis: str) -> bool:
    return axis in PARALLEL_AXES


child_fields = _child_fields  # the public name (polyhedral.coverage, polyhedral.lazy, ops.split_reduction.proofs_dynamic)
