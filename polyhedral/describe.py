"""Turning isl sample points into counterexamples a compiler engineer can read and replay.

The parts of a `Counterexample` (verified_sched/core/counterexample.py): its sizes ({N: 9, ...}),
statement instances ({"kernel", "stmt", "at", "original", "writes", "reads"}) and shared cells
({"tensor", "index"}). Everything is plain ints and strings (JSON-ready).
"""
from __future__ import annotations

from .lazy_isl import isl

from .evaluate import Dynamic, ev


def coords(pt: isl.Point) -> tuple:
    """(params tuple, [(tuple name, coordinates), ...]) of a point of a set or wrapped map."""
    sp = pt.get_space()
    npar = sp.dim(isl.dim_type.param)
    params = [pt.get_coordinate_val(isl.dim_type.param, k).to_python() for k in range(npar)]
    pnames = [sp.get_dim_name(isl.dim_type.param, k) for k in range(npar)]
    vals = [pt.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(sp.dim(isl.dim_type.set))]
    if sp.is_wrapping():
        ms = sp.unwrap()
        n_in = ms.dim(isl.dim_type.in_)
        tuples = [(ms.get_tuple_name(isl.dim_type.in_), vals[:n_in]),
                  (ms.get_tuple_name(isl.dim_type.out), vals[n_in:])]
    else:
        tuples = [(sp.get_tuple_name(isl.dim_type.set), vals)]
    return dict(zip(pnames, params)), tuples


def param_values(model, isl_params: dict) -> dict:
    return {model.pinv[k]: v for k, v in isl_params.items() if k in model.pinv}


def _cell(index, env):
    try:
        return [ev(e, env) for e in index]
    except Dynamic:
        return None


def instance(model, name: str, values, params: dict, label: str) -> dict:
    """A statement instance in words: its iterators, original instance and accesses."""
    st = model.stmt(name)
    at = {lp.var: v for lp, v in zip(st.loops, values)}
    env = dict(params)
    env.update(at)
    shown = {("cell" + k[2:] if k.startswith("_z") else k): v for k, v in at.items()}
    original = {}
    for n, e in zip(st.orig_names, st.orig_exprs):
        try:
            original[n] = ev(e, env)
        except Dynamic:
            original[n] = None
    w = next(a for a in st.accesses if a.write)
    out = {"kernel": label, "stmt": st.sid, "at": shown, "original": original,
           "writes": {"tensor": w.tensor, "index": _cell(w.index, env)}}
    reads = [{"tensor": a.tensor, "index": _cell(a.index, env)} for a in st.accesses if not a.write]
    if reads:
        out["reads"] = reads
    return out


def instance_pair(model, pt: isl.Point, label: str) -> tuple:
    """(params, (name, values, instance) of the first, of the second) at a sample point of a
    relation between two statement instances (the witness of most pair obligations)."""
    p, ((n1, v1), (n2, v2)) = coords(pt)
    params = param_values(model, p)
    return params, (n1, v1, instance(model, n1, v1, params, label)), (n2, v2, instance(model, n2, v2, params, label))


def shared_cells(model_a, inst_a: dict, model_b, inst_b: dict, name_a, name_b, params) -> list:
    """Cells both instances access with at least one write (the conflict)."""
    def acc(model, name, inst):
        st = model.stmt(name)
        env = dict(params)
        env.update({lp.var: v for lp, v in zip(st.loops, inst)})
        return [(a.tensor, tuple(c) if (c := _cell(a.index, env)) is not None else None, a.write)
                for a in st.accesses]
    xa, xb = acc(model_a, name_a, inst_a), acc(model_b, name_b, inst_b)
    out = []
    for ta, ca, wa in xa:
        for tb, cb, wb in xb:
            if ta == tb and ca == cb and (wa or wb) and ca is not None:
                c = {"tensor": ta, "index": list(ca)}
                if c not in out:
                    out.append(c)
    return out


def sets_of(u) -> list:
    """The isl.Set pieces of a UnionSet (one per tuple)."""
    lst = u.get_set_list()
    return [lst.get_at(k) for k in range(lst.n_set())]


def maps_of(u) -> list:
    """The isl.Map pieces of a UnionMap (one per pair of tuples)."""
    lst = u.get_map_list()
    return [lst.get_at(k) for k in range(lst.n_map())]
