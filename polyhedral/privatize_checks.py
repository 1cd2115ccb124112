"""isl checks of an accumulator privatization (verified_sched/ops/privatize.py).

The after kernel holds three kinds of statements around the privatized loop L: the
init-load `ACC[a] = T[c]` (before L), the users under L whose accesses of T were redirected
to `ACC[tile(I)]`, and the store-back `T[c] = ACC[a]` (after L). For a user the op supplies a
witness: the original index vector I of T (over the user's own loop variables). `o` is the
iteration of the loops enclosing L (the first `n_outer` dimensions of every instance involved;
hardware loops enclosing L are among them, so `o` names the thread too).
"""
from __future__ import annotations

import islpy as isl

from .affine import aff
from verified_sched.obligations import Decided
from .describe import coords, instance, param_values, shared_cells
from .isltools import params_text, point_of
from .model import HW_AXES, Access, KernelModel


def _oc_map(model: KernelModel, st, index, n_outer: int, tag: str) -> isl.Map:
    """instance -> tag[o..., cells of `index`] (T cells; `tag` names the tuple)."""
    names = st.names(model.pnames)
    outs = [f"i{d}" for d in range(n_outer)] + [aff(e, names) for e in index]
    return isl.Map(model.space(f"{model.tup(st)} -> {tag}[{', '.join(outs)}]")).intersect_domain(
        model.domains[st.name])


def _union(model, maps):
    return model.union_map(maps)


def _acc_index(st, acc: str, write: bool):
    for a in st.accesses:
        if a.tensor == acc and a.write == write:
            return a.index
    return None


def _t_index(st, tensor: str, write: bool):
    for a in st.accesses:
        if a.tensor == tensor and a.write == write and not a.accumulator:
            return a.index
    return None


def cells_of(model, sts, witness, n_outer, acc=None):
    """The set OC[o, c] of T cells the users access (with `acc`: write it) at each o."""
    maps = []
    for st in sts:
        if acc is not None and not any(a.write and a.tensor == acc for a in st.accesses):
            continue
        maps.append(_oc_map(model, st, witness[st.name], n_outer, "OC"))
    return _union(model, maps).range()


def dataflow(model: KernelModel, users, loads, stores, witness: dict, n_outer: int,
             tensor: str, acc: str) -> Decided:
    """Formal statement: for all params and every iteration o of the loops enclosing L,
    (1) every cell c of T that a user accesses at o is loaded into ACC before L and stored
    back after L at o, and every cell stored back at o was loaded at o; (2) the pairs (c, a) of a T cell and the ACC cell standing for it at o
    (over the users' witnesses and both transfers) form a bijection: one ACC cell per T cell
    and one T cell per ACC cell. With the users' statements unchanged otherwise (the op's
    coverage obligation), the accumulator then holds exactly the values the original holds in
    those cells, and the store-back writes the value the original leaves there (interference
    by other threads is the privatize_condition and race obligations)."""
    statement = (f"forall params, o: every cell of {tensor} accessed under the loop is loaded and "
                 f"stored back at o, and {acc} cells stand for {tensor} cells one to one")
    used = cells_of(model, users, witness, n_outer)
    loaded = _union(model, [_oc_map(model, st, _t_index(st, tensor, False), n_outer, "OC") for st in loads]).range()
    stored = _union(model, [_oc_map(model, st, _t_index(st, tensor, True), n_outer, "OC") for st in stores]).range()
    pt = point_of(stored.subtract(loaded))
    if pt is not None:
        p, tup = coords(pt)
        params = param_values(model, p)
        o, c = tup[0][1][:n_outer], tup[0][1][n_outer:]
        return Decided("refuted", f"{tensor}[{', '.join(map(str, c))}] is stored back at outer iteration {o} "
                       f"from a cell of {acc} that was not loaded there, at {params_text(params)}", statement,
                       {"params": params, "cells": [{"tensor": tensor, "index": c}], "outer": o})
    for name, group in (("loaded into", loads), ("stored back from", stores)):
        is_store = group is stores
        moved = _union(model, [_oc_map(model, st, _t_index(st, tensor, is_store), n_outer, "OC")
                               for st in group]).range()
        pt = point_of(used.subtract(moved))
        if pt is not None:
            p, tup = coords(pt)
            params = param_values(model, p)
            o, c = tup[0][1][:n_outer], tup[0][1][n_outer:]
            return Decided("refuted", f"{tensor}[{', '.join(map(str, c))}] is accessed under the loop at "
                           f"outer iteration {o} but never {name} {acc}, at {params_text(params)}", statement,
                           {"params": params, "cells": [{"tensor": tensor, "index": c}], "outer": o})
    rel = []
    for st in users:
        names = st.names(model.pnames)
        for a in st.accesses:
            if a.tensor != acc:
                continue
            o = [f"i{d}" for d in range(n_outer)]
            c = [aff(e, names) for e in witness[st.name]]
            ai = [aff(e, names) for e in a.index]
            rel.append(isl.Map(model.space(f"{model.tup(st)} -> [[{', '.join(o + c)}] -> [{', '.join(o + ai)}]]"))
                       .intersect_domain(model.domains[st.name]).range().unwrap())
    for st in loads + stores:
        is_store = any(st is x for x in stores)
        names = st.names(model.pnames)
        o = [f"i{d}" for d in range(n_outer)]
        c = [aff(e, names) for e in _t_index(st, tensor, is_store)]
        ai = [aff(e, names) for e in _acc_index(st, acc, not is_store)]
        rel.append(isl.Map(model.space(f"{model.tup(st)} -> [[{', '.join(o + c)}] -> [{', '.join(o + ai)}]]"))
                   .intersect_domain(model.domains[st.name]).range().unwrap())
    r = rel[0]
    for m in rel[1:]:
        r = r.union(m)
    for bad, what in ((r.apply_range(r.reverse()), "two cells of " + tensor + " share one cell of " + acc),
                      (r.reverse().apply_range(r), "one cell of " + tensor + " uses two cells of " + acc)):
        ident = bad.domain().identity()
        pt = point_of(bad.subtract(ident))
        if pt is not None:
            p, tup = coords(pt)
            params = param_values(model, p)
            return Decided("refuted", f"{what} at {params_text(params)} ({tup[0][1]} and {tup[1][1]})",
                           statement, {"params": params, "points": [tup[0][1], tup[1][1]]})
    return Decided("proved", f"every accessed cell of {tensor} is transferred, and {acc} maps onto it one to one",
                   statement)


def _pair(model, pt):
    """(params, first instance, second instance) of a sampled pair."""
    p, tup = coords(pt)
    params = param_values(model, p)
    (n1, v1), (n2, v2) = tup
    i1 = instance(model, n1, v1, params, "after")
    i2 = instance(model, n2, v2, params, "after")
    return params, i1, i2


def privatize_condition(model: KernelModel, users, stores, witness: dict, n_outer: int,
                        tensor: str, acc: str) -> Decided:
    """Formal statement: for all params, no store-back instance s at (o, c) such that no user
    writes cell c at o (s stores back an accumulator that never received an update: the
    value it loaded) is unordered with an instance w (another thread, or another lane) that
    writes c in the original kernel (the users count with their original write of T). Such an
    s would overwrite w's update with a stale copy. Data-dependent user guards make the
    updated set a may-set: then a stale store-back is only `may` and the answer is unknown."""
    statement = (f"forall params: no thread stores back an untouched copy of a {tensor} cell that "
                 f"another, unordered instance updates")
    exact_users = [st for st in users if model.is_exact(st)]
    written_all = cells_of(model, users, witness, n_outer, acc=acc)
    written_exact = cells_of(model, exact_users, witness, n_outer, acc=acc)
    sb = _union(model, [_oc_map(model, st, _t_index(st, tensor, True), n_outer, "OC") for st in stores])
    stale_sure = sb.subtract_range(written_all).domain()
    stale_may = sb.subtract_range(written_exact).domain()
    # writers of T cells: real writes of every other statement, and the users' original writes
    wmaps, wexact = [], []
    store_names = {st.name for st in stores}
    for st in model.stmts:
        if st.name in store_names:
            continue
        if st.name in witness:
            if any(a.write and a.tensor == acc for a in st.accesses):
                m = model.access_map(st, Access(tensor, tuple(witness[st.name]), True), storage_view=True)
            else:
                continue
        elif st.accesses[0].tensor == tensor and not st.accesses[0].noop:
            m = model.store_map(st)
        else:
            continue
        wmaps.append(m)
        if model.is_exact(st):
            wexact.append(m)
    sbw = _union(model, [model.access_map(st, Access(tensor, _t_index(st, tensor, True), True), storage_view=True)
                         for st in stores])
    bef = model.before

    def clash(stale, writers):
        w = _union(model, writers)
        pairs = sbw.intersect_domain(stale).apply_range(w.reverse())
        return pairs.subtract(bef).subtract(bef.reverse())

    pt = point_of(clash(stale_sure, wexact))
    if pt is None:
        if not clash(stale_may, wmaps).is_empty():
            return Decided("unknown", "a guard that depends on data may let a thread store back an untouched "
                           f"copy of a {tensor} cell another thread updates", statement)
        return Decided("proved", "no thread stores back an untouched copy of a cell another instance updates",
                       statement)
    params, i1, i2 = _pair(model, pt)
    cell = i1["writes"]
    return Decided("refuted", f"the guard lets a thread store back an accumulator that never received the "
                   f"update: at {params_text(params)} {fmt(i1)} stores back an untouched copy of "
                   f"{cell['tensor']}[{', '.join(map(str, cell['index']))}], which {fmt(i2)} updates, unordered "
                   f"with it (another thread)", statement,
                   {"params": params, "instances": [i1, i2], "cells": [cell],
                    "threads": [_thread(model, i1), _thread(model, i2)]})


def fmt(inst):
    from .describe import fmt_instance
    return fmt_instance(inst)


def _thread(model, inst) -> dict:
    st = next(s for s in model.stmts if s.sid == inst["stmt"])
    return {lp.var: inst["at"].get(lp.var) for lp in st.loops if lp.axis in HW_AXES}


def race(model: KernelModel, transfers, acc_users, tensor: str, acc: str) -> Decided:
    """Formal statement: for all params, no two distinct instances that are unordered
    (different hardware indices or vectorized lanes) conflict on a cell, one writing, where
    one of them is a transfer (init-load or store-back) or both access the accumulator.
    (Conflicts among the original statements are the kernel's own race obligation. In a kernel
    with barriers the transfers' conflicts between threads are left to the driver's race
    obligation, which runs on every scheduled kernel with hardware loops and orders threads
    by barrier phases; the accumulator's conflicts are still decided here.)"""
    statement = (f"forall params: no transfer of {tensor} and no access of {acc} conflicts with an unordered "
                 "instance")
    bef = model.before
    dom = model.domain
    tdom = dom.empty(dom.get_space())
    for st in transfers:
        tdom = tdom.add_set(model.domains[st.name])
    conf = model.conflicts
    if model.barriers:
        # threads of a block ordered by barrier phases: the driver's race obligation (barrier
        # phases, every pair of the after kernel) decides the transfers' conflicts there
        involved = isl.UnionMap.empty(conf.get_space())
    else:
        involved = conf.intersect_domain(tdom).union(conf.intersect_range(tdom))
    accw = _union(model, [model.access_map(st, a) for st in acc_users + transfers for a in st.accesses
                          if a.tensor == acc and a.write])
    acca = _union(model, [model.access_map(st, a) for st in acc_users + transfers for a in st.accesses
                          if a.tensor == acc])
    involved = involved.union(accw.apply_range(acca.reverse())).union(acca.apply_range(accw.reverse()))
    unordered = involved.subtract(bef).subtract(bef.reverse()).subtract(dom.identity())
    sure, may = model.split_exact(unordered)
    pt = point_of(sure)
    if pt is None:
        if not may.is_empty():
            return Decided("unknown", "a transfer may conflict with another thread through a data-dependent "
                           "guard or index", statement)
        return Decided("proved", "the transfers and the accumulator conflict with no unordered instance",
                       statement)
    p, tup = coords(pt)
    params = param_values(model, p)
    (n1, v1), (n2, v2) = tup
    i1 = instance(model, n1, v1, params, "after")
    i2 = instance(model, n2, v2, params, "after")
    cells = shared_cells(model, v1, model, v2, n1, n2, params)
    if _thread(model, i1) != _thread(model, i2):  # local cells of different threads are distinct
        cells = [c for c in cells if model.program.tensor(c["tensor"]).memory != "local"]
    ctext = ", ".join(f"{c['tensor']}[{', '.join(map(str, c['index']))}]" for c in cells)
    threads = _hw_indices(model, [(n1, v1), (n2, v2)])
    lanes = " (vectorized lanes of one thread)" if threads[0] == threads[1] else ""
    return Decided("refuted", f"race on {ctext} at {params_text(params)}: {fmt(i1)} and {fmt(i2)} are "
                   f"unordered{lanes}", statement,
                   {"params": params, "instances": [i1, i2], "cells": cells, "threads": threads,
                    "order": {"before": "n/a (new statement)", "after": "unordered"}})


def _hw_indices(model, points) -> list:
    """{"block": {axis: index}, "thread": {axis: index}} of each (statement, iterators) point,
    over the hardware axes either statement is inside (index 0 for an axis it is not inside)."""
    hws = [model.stmt(n).hw() for n, _ in points]
    axes = [a for a in HW_AXES if any(a in h for h in hws)]
    out = []
    for (_, v), h in zip(points, hws):
        idx = {a: (int(v[h[a]]) if a in h else 0) for a in axes}
        out.append({"block": {a: x for a, x in idx.items() if a.startswith("block")},
                    "thread": {a: x for a, x in idx.items() if a.startswith("thread")}})
    return out
