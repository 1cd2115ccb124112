"""Closure builders shared by the interpreter's two compilers: the scalar one (interpreter.py) and
the numpy-lane one (vector.py).

A closure is `f(env, st)` (env: iterators and sizes; st: the executing instance's memory).
The two compilers differ in their arithmetic (a compute type's scalar operations or numpy
lanes), not in how an integer index, a boolean connective or a tensor cell access is put
together; that part lives here once. `rec` is the calling compiler's own method for the
operands.
"""
from __future__ import annotations

import operator

from ..core import ir
from ..core.semantics import row_of

__all__ = ["ARITH", "binary", "connective", "integer", "lazy_and", "lazy_or", "reader", "unary",
           "writer"]

ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def unary(op, fa):
    return lambda env, st: op(fa(env, st))


def binary(op, fa, fb):
    return lambda env, st: op(fa(env, st), fb(env, st))


def lazy_and(fa, fb):
    """`a and b`, the right operand evaluated only when the left holds (as C's `&&`)."""
    return lambda env, st: fa(env, st) and fb(env, st)


def lazy_or(fa, fb):
    """`a or b`, the right operand evaluated only when the left fails (as C's `||`)."""
    return lambda env, st: fa(env, st) or fb(env, st)


def integer(e, rec, pick):
    """The closure of an exact integer node: a literal, a variable, `+ - *`, floor division,
    modulo, or min/max through `pick["min" | "max"]`; None for any other node."""
    match e:
        case ir.Int(value=v):
            return lambda env, st: v
        case ir.Var(name=n):
            return lambda env, st: env[n]
        case ir.BinOp(op=("+" | "-" | "*") as op, a=a, b=b):
            return binary(ARITH[op], rec(a), rec(b))
        case ir.FloorDiv(a=a, divisor=c):
            fa = rec(a)
            return lambda env, st: fa(env, st) // c
        case ir.Mod(a=a, divisor=c):
            fa = rec(a)
            return lambda env, st: fa(env, st) % c
        case ir.Call(fn=("min" | "max") as fn, args=(a, b)):
            return binary(pick[fn], rec(a), rec(b))
    return None


def connective(c, rec, not_, and_, or_):
    """The closure of a boolean constant or connective: `not_` applies to a value, `and_` and
    `or_` combine two closures (so a scalar `and` can stay lazy); None for any other node."""
    match c:
        case ir.BoolConst(value=v):
            return lambda env, st: v
        case ir.Not(a=a):
            return unary(not_, rec(a))
        case ir.And(a=a, b=b):
            return and_(rec(a), rec(b))
        case ir.Or(a=a, b=b):
            return or_(rec(a), rec(b))
    return None


def cell_of(idx: list):
    """The closure of an index tuple: its components' closures evaluated left to right (spelled
    out for up to 3 components, the common case: no list built per access)."""
    match len(idx):
        case 1:
            (g0,) = idx
            return lambda env, st: (g0(env, st),)
        case 2:
            g0, g1 = idx
            return lambda env, st: (g0(env, st), g1(env, st))
        case 3:
            g0, g1, g2 = idx
            return lambda env, st: (g0(env, st), g1(env, st), g2(env, st))
    return lambda env, st: tuple([g(env, st) for g in idx])


def reader(name: str, idx: list, bounds, loc, read):
    """The closure reading tensor `name` at the index closures `idx`: the cell is checked by
    `bounds(name, cell, shape, env, st, loc)`, its raw element converted by `read`."""
    cell_at = cell_of(idx)

    def load(env, st):
        arr = st.mem[name]
        cell = cell_at(env, st)
        bounds(name, cell, arr.shape, env, st, loc)
        return read(arr[cell])
    return load


def writer(name: str, idx: list, bounds, loc, fv, store):
    """The closure storing `store(fv(...))` into tensor `name` at the index closures `idx`
    (the value first, then the cell, checked by `bounds` as in `reader`)."""
    cell_at = cell_of(idx)

    def run(env, st):
        value = fv(env, st)
        arr = st.mem[name]
        cell = cell_at(env, st)
        bounds(name, cell, arr.shape, env, st, loc)
        arr[cell] = store(value)
    return run


# ---------------------------------------------------------------- fused accesses
# A closure tree spends a Python call per node: an index `i * 4 + j` is five calls, and its
# bounds check one more, for every cell a run reads or writes. The scalar compiler instead
# spells an access (its index components, the bounds check, the read or store) as the source
# of one Python function. Only exact integer nodes are spelled out (literals, variables,
# `+ - *` where the semantics table evaluates them as Python's operators, else a call of the
# table's function; floor division and modulo by a constant: the same Python int operations,
# operands left to right, as the interpreter's closures); any other node is a call of its
# closure (`leaf`), made at the same place in the same order. The bounds check is the same predicate, and a
# cell outside storage goes to the same `bounds` function, so the error is the same.

_CODE: dict = {}  # source -> code object: the same access shapes recur in every example
CODE_LIMIT = 4096  # entries; the cache starts afresh past it


def _bind(ns: dict, value) -> str:
    """A fresh name in `ns` bound to `value` (names by position only: the generated source
    depends on the expression's shape, not on its names and constants, so it is compiled once
    for every access of that shape)."""
    name = f"_a{len(ns)}"
    ns[name] = value
    return name


def int_source(e, ns: dict, leaf) -> str:
    """Python source evaluating the exact integer expression `e` (`env`, `st` in scope);
    closures of the nodes it does not spell out are bound in `ns` (`leaf(node)` builds one)."""
    match e:
        case ir.Int(value=v) if type(v) is int:
            return _bind(ns, v)
        case ir.Var(name=n):
            return f"env[{_bind(ns, n)}]"
        case ir.BinOp(op=("+" | "-" | "*") as op, a=a, b=b):
            fa, fb = int_source(a, ns, leaf), int_source(b, ns, leaf)
            fn = row_of(e).ev["index"]  # the semantics table's evaluation, as IntClosure's
            return f"({fa} {op} {fb})" if fn is ARITH[op] else f"{_bind(ns, fn)}({fa}, {fb})"
        case ir.FloorDiv(a=a, divisor=c) if type(c) is int:
            return f"({int_source(a, ns, leaf)} // {_bind(ns, c)})"
        case ir.Mod(a=a, divisor=c) if type(c) is int:
            return f"({int_source(a, ns, leaf)} % {_bind(ns, c)})"
    return f"{_bind(ns, leaf(e))}(env, st)"


def _define(src: str, ns: dict):
    code = _CODE.get(src)
    if code is None:
        if len(_CODE) >= CODE_LIMIT:
            _CODE.clear()
        code = _CODE[src] = compile(src, "<interp access>", "exec")
    exec(code, ns)  # noqa: S102 - our own source: integer arithmetic on `env` and bound closures
    return ns["_access"]


def _cell_lines(name: str, index, ns: dict, leaf) -> tuple:
    """(lines computing c0, c1, ... and checking them against `arr`'s shape, the cell text)."""
    lines = [f"    c{k} = {int_source(e, ns, leaf)}" for k, e in enumerate(index)]
    cell = "".join(f"c{k}, " for k in range(len(index)))
    if index:
        inside = " and ".join(f"0 <= c{k} < sh[{k}]" for k in range(len(index)))
        lines += ["    sh = arr.shape", f"    if not ({inside}):",
                  f"        _bounds(_name, ({cell}), sh, env, st, _loc)"]
    return lines, f"({cell})"


def fused_reader(name: str, index, leaf, bounds, loc, read):
    """`reader(name, [leaf(x) for x in index], bounds, loc, read)` as one function (above)."""
    ns = {"_name": name, "_bounds": bounds, "_loc": loc, "_read": read}
    lines, cell = _cell_lines(name, index, ns, leaf)
    src = "\n".join(["def _access(env, st):", "    arr = st.mem[_name]", *lines,
                     f"    return _read(arr[{cell}])", ""])
    return _define(src, ns)


def fused_writer(name: str, index, leaf, bounds, loc, fv, store):
    """`writer(name, [leaf(x) for x in index], bounds, loc, fv, store)` as one function (above)."""
    ns = {"_name": name, "_bounds": bounds, "_loc": loc, "_fv": fv, "_store": store}
    lines, cell = _cell_lines(name, index, ns, leaf)
    src = "\n".join(["def _access(env, st):", "    value = _fv(env, st)", "    arr = st.mem[_name]", *lines,
                     f"    arr[{cell}] = _store(value)", ""])
    return _define(src, ns)


def fused_int(e, leaf):
    """The closure of the exact integer expression `e` as one function (`int_source`); a
    literal or a variable stays the plain closure `leaf(e)`, which is as fast."""
    if isinstance(e, (ir.Int, ir.Var)):
        return leaf(e)
    ns: dict = {}
    src = int_source(e, ns, leaf)
    if src == "_a0(env, st)":  # nothing spelled out
        return ns["_a0"]
    return _define(f"def _access(env, st):\n    return {src}\n", ns)
