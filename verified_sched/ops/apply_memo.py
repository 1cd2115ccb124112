"""A small memo of `ops.apply_op` results, keyed by value, active inside `active()` scopes.

One fuzz example applies the same ops to the same programs several times: the strategy draws
the schedule by applying each op, the verifier applies them again, refutation by running and
the campaign's checks apply prefixes of the schedule again. `apply_op` is a pure function of
(program, kernel name, op record) and the op's `apply` function, so its result for an equal
key is an equal program: the memo hands back the one computed first.

The key is the program without its `schedules` (no op reads or changes them; the result gets
the caller's schedules back), the kernel name, the op record and the op module's `apply`
function itself (a monkeypatched or mutated `apply` never sees another function's results).
Programs and op records are frozen dataclasses compared by value (source locations excluded),
so only an equal program hits. Failures (ScheduleError) are not memoized: they are raised
again by running the op again. The memo is used only inside `active()` (one verify_kernel
call, one fuzz batch) and emptied when the outermost scope ends, so nothing outlives the
code that asked for it; it holds at most `SIZE` entries, least recently used out first.
"""
from __future__ import annotations

import contextlib
import dataclasses
from collections import OrderedDict

SIZE = 512

_memo: OrderedDict = OrderedDict()
_state = {"depth": 0, "hits": 0, "misses": 0}
_SAME = object()  # the op returned its input unchanged


@contextlib.contextmanager
def active():
    """Memoize apply_op inside this scope (scopes nest; the outermost one empties the memo)."""
    _state["depth"] += 1
    try:
        yield
    finally:
        _state["depth"] -= 1
        if _state["depth"] == 0:
            _memo.clear()


def cached(program, kernel_name: str, op, apply_fn, compute):
    """`compute()` (applying `op` to `program` with `apply_fn`), or inside `active()` the result
    of an earlier call with an equal key, carrying `program`'s schedules."""
    if not _state["depth"]:
        return compute()
    bare = dataclasses.replace(program, schedules=()) if program.schedules else program
    try:
        key = (apply_fn, bare, kernel_name, op)
        hit = _memo.get(key)
    except TypeError:  # an unhashable field somewhere: no memo
        return compute()
    if hit is None:
        _state["misses"] += 1
        after = compute()
        if after is program:
            _memo[key] = _SAME
        elif after.schedules == program.schedules:  # (else not the contract above: not memoized)
            _memo[key] = dataclasses.replace(after, schedules=()) if after.schedules else after
        if len(_memo) > SIZE:
            _memo.popitem(last=False)
        return after
    _memo.move_to_end(key)
    _state["hits"] += 1
    if hit is _SAME:
        return program
    return dataclasses.replace(hit, schedules=program.schedules) if program.schedules else hit


def stats() -> dict:
    return {"hits": _state["hits"], "misses": _state["misses"], "entries": len(_memo)}
