"""The generic obligations of one op decided first on coalesced models (issue 25 item 4).

`analysis/coalesce.py` turns chains of perfectly nested ordered loops that the body uses only
through one mixed-radix combination into one loop (the inverse of a split); the coalesced
kernel has the statement instances, accesses, original instances and execution order of the
original one up to an order-keeping bijection, so a proof of a generic obligation on it is a
proof on the original (n nested splits: polyhedral problems of one dimension instead of
n + 1). Only proofs are taken from it: when any obligation is not proved there (refuted,
unknown), or the kernel has hardware loops or barriers (race, barrier and launch goals look
at the IR too), the caller decides everything on the original models as before, so every
refutation, counterexample and unknown is the one the original models give.

The int64 part of in_bounds reads `model.program` (the original program: the coalesced
kernel is handed to the model as a Kernel object), so it judges the original arithmetic.
"""
from __future__ import annotations

import dataclasses

from polyhedral.model import KernelModel
from ..analysis.coalesce import coalesce_kernel
from ..core import ir

STATS = {"tried": 0, "proved": 0}  # ops decided on coalesced models, and how many held (tests count work)
_MEMO: dict = {}  # id(kernel) -> (kernel, coalesced): the after kernel of op k is the before of op k+1
_MEMO_SIZE = 64


def coalesced(kernel: ir.Kernel) -> ir.Kernel:
    """`coalesce_kernel(kernel)`, computed once per kernel object while it is recent."""
    hit = _MEMO.get(id(kernel))
    if hit is not None and hit[0] is kernel:
        return hit[1]
    out = coalesce_kernel(kernel, serial_only=True)
    if len(_MEMO) >= _MEMO_SIZE:
        _MEMO.pop(next(iter(_MEMO)))
    _MEMO[id(kernel)] = (kernel, out)
    return out


def coalesced_obligations(ctx, decide):
    """`decide(ctx', True)` (a list of Obligations) on a copy of `ctx` whose models are built
    from the coalesced kernels, when coalescing changes either kernel and every answer is
    `proved`; else None (the caller decides on `ctx`). The second argument asks `decide` to
    stop at the first answer that is not `proved` (`discharge`'s `proofs_only`): the rest would
    be thrown away with it (at seed 4242, 48 of 199 attempts fell back after deciding every
    goal: 3.3 of the batches' 27 CPU s, most of it in examples that then ran into the timeout)."""
    kb = ctx.program_before.kernel(ctx.kernel_name)
    ka = ctx.program_after.kernel(ctx.kernel_name)
    cb, ca = coalesced(kb), coalesced(ka)
    if cb is kb and ca is ka:
        return None
    fast = dataclasses.replace(ctx)
    fast.__dict__["model_before"] = KernelModel(ctx.program_before, cb, tag="B")
    fast.__dict__["model_after"] = KernelModel(ctx.program_after, ca, tag="A")
    STATS["tried"] += 1
    out = decide(fast, True)
    if not all(o.status == "proved" for o in out):
        return None
    STATS["proved"] += 1
    return out
