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
import re

MEMO_ATTR = "method_memo"  # the model's attribute holding its memo


_KINDS: dict = {}  # dataclass -> "stmt", "access" or None, read off its fields once per class
_BUILTIN = frozenset((str, int, bool, float, tuple, frozenset, type(None)))  # no attributes of their own


def _key(a):
    cls = type(a)
    kind = _KINDS.get(cls, False)
    if kind is False:
        fields = getattr(cls, "__dataclass_fields__", None)
        if fields is None:
            return a if cls in _BUILTIN else _plain_key(a)
        kind = _KINDS[cls] = ("stmt" if "sched" in fields and "sid" in fields else
                              "access" if "accumulator" in fields and "index" in fields else None)
    if kind is None:
        return a
    if kind == "stmt":  # a Stmt: unique by name within its model
        return ("stmt", a.name)
    return ("access", a.tensor, a.index, a.context)  # an Access: what the maps depend on


def _plain_key(a):
    if hasattr(a, "sched") and hasattr(a, "sid"):
        return ("stmt", a.name)
    if hasattr(a, "accumulator") and hasattr(a, "index"):
        return ("access", a.tensor, a.index, a.context)
    return a


def memoized(fn):
    """A KernelModel method memoized per model on its argument values (module docstring)."""
    name = fn.__name__

    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        key = (name, tuple(map(_key, args)), tuple(sorted([(k, _key(v)) for k, v in kwargs.items()])) if kwargs else ())
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
PARSE_STATS = {"hits": 0, "misses": 0}  # misses: entries added ("derived": those made by renaming)

# Texts that differ only in their tuple names are common: the models of one check name their
# statements `<tag>_<sid>_<n>` with the model's tag (K, A, B: model_build.py), so the before and
# after models and the kernel's own model state the same maps under other tuple names (a third
# of the parses of a fuzz campaign), and the pairwise relations (universe and program-order maps
# between two statements, one per statement pair) differ only in the statements' names. A text
# whose tuple names are all top-level tuple names of the parsed object is also kept as a
# template, its names replaced by placeholders; its shape is the text with the k-th distinct
# name replaced by `@k` (so two texts of one shape name the same tuples alike: a name used
# twice in one is used twice in the other). A text of a known shape is that template with its
# tuple names set (microseconds, against a parse's hundreds). The template is never handed out
# nor used, so it keeps the representation of a fresh parse (isl simplifies objects in place
# when they are used: renaming a used object could give another representation, and so another
# sampled counterexample); renaming copies every basic map of an object whose basic maps are
# shared, so what is handed out shares nothing with it. Tuple names take no part in how isl
# parses the constraints, so the renamed template is what parsing the text gives.
_TEMPLATES: dict = {}  # shape -> (template, slots: (dim_type or None, index of the name in the shape))
_NAMED = re.compile(r"(?<![\w.@])([A-Za-z_]\w*)(?=\[)")  # a tuple name (an identifier right before `[`)
_NESTED = re.compile(r"\[[^\]]*\[")  # a tuple inside a tuple (wrapped maps): texts parsed as they come
_TEMPLATE_NAMES = ("vs_tpl_0", "vs_tpl_1")


def _shape(kind: str, text: str):
    """(shape, the distinct tuple names in order of first use) of a text, or (None, ())."""
    if _NESTED.search(text):
        return None, ()
    order: dict = {}
    for name in _NAMED.findall(text):
        order.setdefault(name, len(order))
    if not order:
        return None, ()
    return (kind, _NAMED.sub(lambda m: f"@{order[m.group(1)]}", text)), tuple(order)


def _parsed(kind: str, text: str):
    key = (kind, text)
    hit = _PARSED.get(key)
    if hit is not None:
        PARSE_STATS["hits"] += 1
        return hit
    import islpy as isl

    shape, names = _shape(kind, text)
    out = _derived(shape, names) if shape else None
    if out is None:
        out = (isl.Set if kind == "set" else isl.Map)(text)  # raises on bad text (not memoized)
        if shape and shape not in _TEMPLATES:
            _keep_template(shape, names, out)
    else:
        PARSE_STATS["derived"] = PARSE_STATS.get("derived", 0) + 1
    PARSE_STATS["misses"] += 1
    if len(_PARSED) >= PARSED_LIMIT:
        _PARSED.clear()
        _TEMPLATES.clear()
    _PARSED[key] = out
    return out


def _positions(obj) -> list:
    """(dim_type or None for a set, name) of the object's top-level tuples."""
    import islpy as isl

    if isinstance(obj, isl.Set):
        return [(None, obj.get_tuple_name())]
    return [(isl.dim_type.in_, obj.get_tuple_name(isl.dim_type.in_)),
            (isl.dim_type.out, obj.get_tuple_name(isl.dim_type.out))]


def _renamed(obj, dt, name: str):
    return obj.set_tuple_name(name) if dt is None else obj.set_tuple_name(dt, name)


def _keep_template(shape, names: tuple, fresh) -> None:
    """Keep `fresh` (just parsed, not yet handed out) as the template of `shape`, its tuple
    names replaced by placeholders, when every name of the text is a top-level tuple name."""
    positions = _positions(fresh)
    if not set(names) <= {n for _, n in positions}:
        return  # a name isl does not hold as a top-level tuple name: texts of this shape are parsed
    template, slots = fresh, []
    for k, (dt, name) in enumerate(positions):
        if name in names:
            template = _renamed(template, dt, _TEMPLATE_NAMES[k])
            slots.append((dt, names.index(name)))
    _TEMPLATES[shape] = (template, tuple(slots))


def _derived(shape, names: tuple):
    """The object of a text of `shape` with tuple names `names`, from the shape's template
    (None when there is none)."""
    entry = _TEMPLATES.get(shape)
    if entry is None:
        return None
    out, slots = entry
    for dt, k in slots:
        out = _renamed(out, dt, names[k])
    return out


def isl_set(text: str):
    """`isl.Set(text)`, parsed once per text in this process: the models of one schedule's
    steps, of the program before and after it and of the fuzzer's examples state the same
    domains and access maps again and again, and parsing is most of their cost."""
    return _parsed("set", text)


def isl_map(text: str):
    """`isl.Map(text)`, parsed once per text in this process (see `isl_set`)."""
    return _parsed("map", text)


# ---------------------------------------------------------------- texts with a statement's name left out

_OWN: dict = {}  # tuple name -> the pattern of that name as a tuple name in a text
OWN_LIMIT = 20_000  # entries; the cache starts afresh past it


def anonymous(text: str, name: str) -> str:
    """`text` with the tuple name `name` replaced by `@` (which no isl text holds): two texts
    of one statement in two models (`<tag>_<sid>_<n>`, model_build.py) that state the same
    set or map up to that name give the same answer. Only a tuple name is replaced (an
    identifier right before `[`), not a longer name ending in it (a tensor's `T_...`)."""
    own = _OWN.get(name)
    if own is None:
        if len(_OWN) >= OWN_LIMIT:
            _OWN.clear()
        own = _OWN[name] = re.compile(rf"(?<![\w@]){re.escape(name)}(?=\[)")
    return own.sub("@", text)


# ---------------------------------------------------------------- decided answers kept by the models' IR


def model_key(model) -> tuple:
    """What a KernelModel is a function of: its program, kernel, parameter constraints and tag
    (IR values: equal programs state equal models), once per model, the IR `canonical`."""
    d = model.__dict__
    key = d.get("_model_key")
    if key is None:
        key = d["_model_key"] = (canonical(model.program), canonical(model.kernel), model.param_text, model.tag)
    return key


_CANON: dict = {}  # IR value -> the first node of that value seen (`canonical`)
CANON_LIMIT = 2_000  # entries; the table starts afresh past it


def canonical(node):
    """The first IR node equal to `node` seen in this process (kept on `node` too): keys built
    from canonical nodes compare by identity, so looking one up in the answer stores does not
    compare two equal trees node by node every time (a deep tree's `==` walks all of it: a
    verification that looked its models up by their IR that way did work quadratic in the
    nest's depth, tests/test_verify_scaling.py). Each node object is compared once, here."""
    d = node.__dict__
    out = d.get("_canon")
    if out is None:
        try:
            out = _CANON.get(node)
        except TypeError:  # an unhashable part: the node is its own key
            out = node
        if out is None:
            if len(_CANON) >= CANON_LIMIT:
                _CANON.clear()
            out = _CANON[node] = node
        d["_canon"] = out
    return out


class Answers:
    """The decided answers (a Decided or a tuple of them) of one obligation in this process, by
    key (built from `model_key`s). A fuzz campaign verifies one program many times (85 of 240
    verifications at seed 777 repeat an earlier program), each time every op of its schedule
    again. Only decided answers are kept: an `unknown` one is decided again (running out of a
    budget or the deadline raises: nothing is kept). Copies are handed out (callers refine a
    Decided's statement)."""

    def __init__(self, limit: int = 2_000):
        self.store: dict = {}
        self.limit = limit  # entries; the store starts afresh past it
        self.stats = {"decided": 0, "known": 0}  # tests count the work

    def __call__(self, key, decide):
        try:
            hit = self.store.get(key)
        except TypeError:  # an unhashable part of the IR: decided, not kept
            return decide()
        if hit is not None:
            self.stats["known"] += 1
            return _copies(hit)
        out = decide()
        self.stats["decided"] += 1
        if all(d.status != "unknown" for d in (out if isinstance(out, tuple) else (out,))):
            if len(self.store) >= self.limit:
                self.store.clear()
            self.store[key] = _copies(out)
        return out


def _copies(out):
    import dataclasses

    return tuple(map(dataclasses.replace, out)) if isinstance(out, tuple) else dataclasses.replace(out)
