"""Memoized KernelModel methods: the isl maps a model parses from text (access maps,
provenance maps) and the facts derived from its statements (index texts, exactness) are
asked for again and again by the obligations of one op (coverage asks for a statement's
provenance once per statement pair, in_bounds and the dependence relations for the same
access maps). A model is immutable once built, so each answer is computed once per model
and argument values: statements by their name (unique in a model), accesses by the fields
the maps depend on (tensor, index, evaluation context). isl objects are values (every
operation returns a new one), so handing out one object twice is safe. Exceptions are not
memoized (the next call raises again).
"""
from __future__ import annotations

import functools

MEMO_ATTR = "method_memo"  # the model's attribute holding its memo


def _key(a):
    if hasattr(a, "sched") and hasattr(a, "sid"):  # a Stmt: unique by name within its model
        return ("stmt", a.name)
    if hasattr(a, "accumulator") and hasattr(a, "index"):  # an Access: what the maps depend on
        return ("access", a.tensor, a.index, a.context)
    return a


def memoized(fn):
    """A KernelModel method memoized per model on its argument values (module docstring)."""
    name = fn.__name__

    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        key = (name, tuple(_key(a) for a in args), tuple(sorted((k, _key(v)) for k, v in kwargs.items())))
        memo = self.__dict__.setdefault(MEMO_ATTR, {})
        try:
            return memo[key]
        except KeyError:
            pass
        out = memo[key] = fn(self, *args, **kwargs)
        return out
    return method


# ---------------------------------------------------------------- isl objects parsed from text

_PARSED: dict = {}  # (kind, text) -> isl object: shared by every model (isl objects are values)
PARSED_LIMIT = 20_000  # entries (a few KB each); the cache starts afresh past it
PARSE_STATS = {"hits": 0, "misses": 0}


def _parsed(kind: str, text: str):
    key = (kind, text)
    hit = _PARSED.get(key)
    if hit is not None:
        PARSE_STATS["hits"] += 1
        return hit
    import islpy as isl

    out = (isl.Set if kind == "set" else isl.Map)(text)  # raises on bad text (not memoized)
    PARSE_STATS["misses"] += 1
    if len(_PARSED) >= PARSED_LIMIT:
        _PARSED.clear()
    _PARSED[key] = out
    return out


def isl_set(text: str):
    """`isl.Set(text)`, parsed once per text in this process: the models of one schedule's
    steps, of the program before and after it and of the fuzzer's examples state the same
    domains and access maps again and again, and parsing is most of their cost."""
    return _parsed("set", text)


def isl_map(text: str):
    """`isl.Map(text)`, parsed once per text in this process (see `isl_set`)."""
    return _parsed("map", text)
