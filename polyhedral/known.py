"""Large flow analyses kept by their inputs' text, with what isl answered: the dependences, or
that it ran out of operations.

A fuzz campaign's hypothesis mutator draws near copies of one program (a cast changed, a
constant), whose kernels have the same accesses and schedule, hence the same flow analysis:
fuzz seed 777777 ran one of hundreds of pieces, out of isl's operations after 1.9 s, for five
such copies. `known_flow` runs a large one (`ValueFlow._flow`, past FORK_PAIRS) in a forked
child (`bounded`) with isl's whole operation budget of an obligation (the cap `budget.scope`
set), counted from zero, so its answer is a function of its inputs and that budget alone: the key is
the texts of the sinks, the stores, the schedule and the exact domain, and the budget. The
answer kept is either the dependences' texts (read back on a hit, as `bounded_isl` reads a long
computation's) or "out of operations" (raised again on a hit: the same `unknown`, never a
verdict). Never kept: a deadline hit (wall-clock, not a function of the inputs), memory, a
crash, nor a quick answer (under QUICK_CPU in the child: computed again here, as `bounded_isl`
does, so that the objects are the ones a run without the child makes). Without a finite
deadline or `fork` the flow runs here, unkept.
"""
from __future__ import annotations

import math
import os
import time

import islpy as isl

from verified_sched.core import budget

from . import bounded as forked

_FLOWS: dict = {}
FLOWS_LIMIT = 64  # entries (each the text of two relations); the store starts afresh past it
FLOW_STATS = {"computed": 0, "known": 0}  # tests count the work


def known_flow(key: tuple, compute, ctx: isl.Context) -> tuple:
    """compute() -> (dependence, no source) union maps, or the kept answer of the same key."""
    if not math.isfinite(budget.remaining()) or not hasattr(os, "fork"):
        return compute()
    ops = ctx.get_max_operations()  # the obligation's cap (budget.scope), not what is left of it
    key = key + (ops,)
    hit = _FLOWS.get(key)
    if hit is None:
        parent = os.getpid()

        def child():
            if os.getpid() != parent:  # a fresh count: the answer depends on the key alone
                ctx.reset_operations()
                ctx.set_max_operations(ops)
            t0 = time.process_time()
            try:
                texts = tuple(str(u) for u in compute())
            except isl.Error as exc:
                if not ctx.aborted() and budget.quota_exhausted():  # not a deadline's abort
                    return "quota", str(exc)
                raise
            return ("ok", texts) if time.process_time() - t0 >= forked.QUICK_CPU else ("quick", None)

        hit = forked.bounded(child)
        FLOW_STATS["computed"] += 1
        if hit[0] == "quick":  # computed again here, as bounded_isl does: the very objects, not kept
            return compute()
        if len(_FLOWS) >= FLOWS_LIMIT:
            _FLOWS.clear()
        _FLOWS[key] = hit
    else:
        FLOW_STATS["known"] += 1
    kind, value = hit
    if kind == "quota":
        raise isl.Error(f"{budget.ISL_QUOTA_TEXT} (value flow: {value})")
    return tuple(isl.UnionMap.read_from_str(ctx, text) for text in value)

