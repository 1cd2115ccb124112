"""Races between hardware threads of one kernel (the phase-free part).

Formal statement: no two distinct instances that are unordered (DESIGN section 2: different
hardware indices, or different iterations of a vectorized loop) conflict. Without barriers an
unordered conflicting pair is a race. With barriers, threads are ordered by barrier phases,
which this check does not model yet: a conflict there is "unknown", never proved.
"""
from __future__ import annotations

import islpy as isl

from .isltools import _params_text, _sample
from .describe import Finding, coords, fmt_instance, instance, param_values, shared_cells
from .model import HW_AXES, KernelModel


def _other_block(model: KernelModel):
    """Pairs of instances whose block indices differ on an axis both are bound to."""
    maps = []
    for s in model.stmts:
        for t in model.stmts:
            hs, ht = s.hw(), t.hw()
            axes = [a for a in ("block.x", "block.y", "block.z") if a in hs and a in ht]
            if axes:
                c = " or ".join(f"a{hs[a]} != b{ht[a]}" for a in axes)
                maps.append(isl.Map(model.space(f"{model.tup(s, 'a')} -> {model.tup(t, 'b')} : {c}")))
    return model._union(maps)


def race(model: KernelModel, label="kernel") -> Finding:
    statement = ("forall params: no two distinct unordered instances (different hardware indices) "
                 "conflict on a cell, one of them writing")
    bef = model.before
    dom = model.domain
    hw = dom.empty(dom.get_space())
    for st in model.stmts:
        if st.hw():
            hw = hw.add_set(model.domains[st.name])
    unordered = model.conflicts.intersect_domain(hw).intersect_range(hw)
    unordered = unordered.subtract(bef).subtract(bef.reverse()).subtract(dom.identity())
    sure, may = model.split_exact(unordered)
    pt = _sample(sure)
    if pt is None and not may.is_empty():
        return Finding("unknown", "threads may conflict through a data-dependent guard or index", statement)
    if pt is None:
        return Finding("proved", "no two hardware threads conflict", statement)
    if model.barriers:
        # barriers order threads of one block only: a conflict across blocks is a race anyway
        pt = _sample(sure.intersect(_other_block(model)))
    if pt is None:
        return Finding("unknown", "threads conflict on a cell outside the order of their own loops; "
                       "deciding whether barriers separate them needs the barrier-phase analysis "
                       "(not built yet)", statement)
    p, tup = coords(pt)
    params = param_values(model, p)
    (n1, v1), (n2, v2) = tup
    i1 = instance(model, n1, v1, params, label)
    i2 = instance(model, n2, v2, params, label)
    cells = shared_cells(model, v1, model, v2, n1, n2, params)
    ctext = ", ".join(f"{c['tensor']}[{', '.join(map(str, c['index']))}]" for c in cells)
    return Finding("refuted", f"race on {ctext} at {_params_text(params)}: {fmt_instance(i1)} and "
                   f"{fmt_instance(i2)} " + ("run in different blocks, which no barrier orders" if model.barriers
                                              else "run in different threads with no barrier between them"), statement,
                   {"params": params, "instances": [i1, i2], "cells": cells,
                    "order": {"before": "unordered (different threads)", "after": "unordered"}})
