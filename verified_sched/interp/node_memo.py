"""Per-object memos of pure functions of IR values, for the runs that repeat them.

A fuzz example runs the same two kernels at two size sets (and a refutation's replay at up to
four sizes and four seeds), and every run asked the same questions of the same IR objects
again: which tensors a kernel uses, which loops of a launch are hardware loops, whether it
holds a barrier, which tensors a kernel writes or reads before writing. IR nodes are frozen
values, so the answer for one object never changes: `NodeMemo` keeps it per object identity
(the object is kept alive with its entry, so its id is not reused meanwhile), plus a hashable
`extra` compared by value. The memo starts afresh past `limit` entries.
"""
from __future__ import annotations


class NodeMemo:
    """`memo(obj, extra)` is `fn(obj, extra)`, computed once per (obj identity, extra value).
    Callers must not mutate what it returns (return immutable values, or copy)."""

    def __init__(self, fn, limit: int = 512):
        self.fn, self.limit = fn, limit
        self.entries: dict = {}
        self.misses = 0

    def __call__(self, obj, extra=None):
        key = (id(obj), extra)
        hit = self.entries.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        self.misses += 1
        value = self.fn(obj, extra)
        if len(self.entries) >= self.limit:
            self.entries.clear()
        self.entries[key] = (obj, value)
        return value
