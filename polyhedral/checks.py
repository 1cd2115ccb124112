"""The generic obligations of translation validation, decided by isl.

Each function takes KernelModels (sharing one program's parameters) and returns a Decided.
Formal statements are in each docstring; counterexamples come from `sample_point`.
"""
from __future__ import annotations

import dataclasses

import islpy as isl

from verified_sched.core.ir import Load, walk
from .affine import is_affine, join_and
from .coverage import coverage as _coverage, equal_stores, idempotent_fn  # noqa: F401 (re-exported)
from verified_sched.core.counterexample import Cell, Counterexample, Instance
from verified_sched.core.obligations import Decided
from .describe import coords, instance, instance_pair, maps_of, param_values, shared_cells
from .isltools import box_text, tensor_box, extent_text, params_text, point_of  # noqa: F401
from .model import HW_AXES, KernelModel
from .kept import order_kept
from .memo import Answers, anonymous, model_key
from .order import before_on, pair_map
from .race import barrier_order


# ---------------------------------------------------------------- in_bounds


def split_accesses(model: KernelModel) -> tuple:
    """(affine, pending, total): the (statement, access) pairs isl decides (in_bounds), those
    left to z3 (integer but not affine, like products of sizes; and dynamic indices, after isl
    checked their affine part), and the number of accesses (verified_sched/verify/generic/in_bounds.py)."""
    affine, pending, total = [], [], 0
    for st in model.stmts:
        for acc in st.accesses:
            total += 1
            if any(not is_affine(e, st.names(model.pnames)) and not any(isinstance(n, Load) for n in walk(e))
                   for e in acc.index):
                pending.append((st, acc))
                continue
            affine.append((st, acc))
            if model.index_text(st, acc)[2]:
                pending.append((st, acc))
    return affine, pending, total


def access_violations(model: KernelModel, st, acc):
    """The (instance -> cell) pairs of one access outside its tensor's storage (padding
    included): empty iff the access stays in bounds. Known empty, without building it, when
    isl found the violations of an access stated by the same texts empty before (`_IN_BOUNDS`)."""
    key = _bounds_key(model, st, acc)
    if key in _IN_BOUNDS:
        IN_BOUNDS_STATS["known"] += 1
        space = isl.Space.map_from_domain_and_range(model.domains[st.name].get_space(),
                                                    tensor_box(model, acc.tensor, True).get_space())
        return isl.Map.empty(space)
    m = model.access_map(st, acc, storage_view=True, evaluated=True)
    out = m.subtract_range(tensor_box(model, acc.tensor, True))
    IN_BOUNDS_STATS["built"] += 1
    if out.is_empty():  # (the caller asks again: answered from what this test leaves on `out`)
        if len(_IN_BOUNDS) >= IN_BOUNDS_LIMIT:
            _IN_BOUNDS.clear()
        _IN_BOUNDS[key] = True
    return out


# The accesses isl found within storage, by the texts they are stated by. The models of one
# schedule's ops (before and after each op, the kernel's own) restate every statement an op
# leaves alone, so in_bounds asks about the same access once per op: the texts differ only in
# the statement's tuple name (`<tag>_<sid>_<n>`, model_build.py), and renaming a tuple changes
# no set's emptiness. The key is every text the violations are built from (the access map,
# the instances it is evaluated on, the storage box; each with the parameters and their
# constraints), the statement's name replaced by a placeholder; only empty answers are kept,
# so a refutation always samples the set it is built from.
_IN_BOUNDS: dict = {}
IN_BOUNDS_LIMIT = 20_000  # entries; the cache starts afresh past it
IN_BOUNDS_STATS = {"built": 0, "known": 0}  # tests count the work


def _bounds_key(model: KernelModel, st, acc) -> tuple:
    text, where = model.access_texts(st, acc, True, True)
    boxes = model.__dict__.setdefault("_box_texts", {})
    box = boxes.get(acc.tensor)
    if box is None:
        box = boxes[acc.tensor] = box_text(model, acc.tensor, True)
    return anonymous(text, st.name), anonymous(where, st.name), box


def access_witness(model: KernelModel, st, acc, pt, label: str) -> Decided:
    """The refutation at a sample point of access_violations (unknown when the statement's
    instances are over-approximated: its loop bounds depend on data)."""
    if st.name in model.approximate:
        return Decided("unknown", f"{st.sid}: loop bounds are data-dependent")
    p, tuples = coords(pt)
    params = param_values(model, p)
    inst = instance(model, st.name, tuples[0][1], params, label)
    cell = tuples[1][1]
    kind = "writes" if acc.write else "reads"
    t = model.program.tensor(acc.tensor)
    msg = (f"{st.sid} {kind} {acc.tensor}[{', '.join(map(str, cell))}] outside its storage "
           f"{extent_text(t, params)} at {params_text(params)}")
    return Decided("refuted", msg, counterexample=Counterexample(
        Instance(params), [inst], cells=(Cell(acc.tensor, cell, {"access": kind[:-1]}),)))


def z3_access_witness(model: KernelModel, st, acc, values: dict, label: str) -> Decided:
    """The refutation of an access z3 found outside storage (`values`: z3's model)."""
    from .evaluate import ev
    prog = model.program
    params = {p: values.get(p, 0) for p in prog.params}
    at = {lp.var: values.get(lp.var, 0) for lp in st.loops}
    cell = [ev(e, {**params, **at}) for e in acc.index]
    return Decided("refuted", f"{st.sid} accesses {acc.tensor}[{', '.join(map(str, cell))}] outside its "
                   f"storage at {', '.join(f'{k}={v}' for k, v in params.items())}",
                   counterexample=Counterexample(Instance(params), [{"kernel": label, "stmt": st.sid, "at": at}],
                                                 cells=(Cell(acc.tensor, cell),)), engine="z3")


# ---------------------------------------------------------------- dependences


def dependence(before: KernelModel, after: KernelModel, profile: str):
    """`_dependence`'s (dependence, reassociation), known without isl for models of programs
    and kernels equal to those of an earlier decided call (memo.Answers)."""
    return _DEPENDENCE((model_key(before), model_key(after), profile), lambda: _dependence(before, after, profile))


_DEPENDENCE = Answers()


def coverage(before: KernelModel, after: KernelModel, idempotent) -> Decided:
    """coverage.coverage's answer, known without isl for models of programs and kernels equal
    to those of an earlier decided call when `idempotent` is the after model's own
    (`idempotent_fn`: a function of that model)."""
    if getattr(idempotent, "model", None) is not after:
        return _coverage(before, after, idempotent)
    return _COVERAGE((model_key(before), model_key(after)), lambda: _coverage(before, after, idempotent))


_COVERAGE = Answers()


def _dependence(before: KernelModel, after: KernelModel, profile: str):
    """Formal statement: for every dependence (b1, b2) of `before` (conflicting, b1 runs
    before b2) and after instances a1, a2 with P_a(a1) = P_b(b1), P_a(a2) = P_b(b2):
    a1 runs before a2 in `after`. Reduction pairs (two instances of one accumulation on its
    cell) may be reversed: that is `reassociation`. When some pair changes order, the
    obligation is decided on values instead (valuedeps.py: every read and observable cell
    keeps its last writer), unless the value flow is not modelled. Returns (dependence,
    reassociation)."""
    st_dep = ("forall params, dependences (b1 -> b2) of before: the after instances of b1 run "
              "before the after instances of b2")
    st_red = ("reduction pairs (two instances of one accumulation on the same cell) reversed by "
              "the op are a reassociation; refused for + and * under the reproducible profile")
    conf = _ordered_conflicts(before)
    if _kept(before, after, conf):
        # no dependence changes order even counting the pairs of stores of equal values: then
        # none does without them, and those pairs (costly to build) are not needed
        equal, dep_b = None, conf
    else:
        equal = equal_stores(before)
        dep_b = conf.subtract(equal)
        if not _kept(before, after, dep_b):
            # pairs the op moves into different copies of a local/shared tensor no longer
            # interact (taken out before the violated pairs are built: they are built once)
            from .private_copies import separated_pairs
            apart = separated_pairs(before, after)
            if not apart.is_empty():
                dep_b = dep_b.subtract(apart)
    sure, may, red_rev, bef = _violations(before, after, dep_b)
    value_based = None
    if not sure.is_empty():
        # memory order changes: decide on values instead (valuedeps.py; only when something
        # is violated, it needs the value flow), unless the flow is not modelled
        from .valuedeps import Unsupported, value_violations
        bef = after.before.union(barrier_order(after))  # the value-based conditions relate other pairs too
        try:
            value_based = value_violations(before, after, bef, equal, red_rev)
        except Unsupported:
            value_based = None
    pt = point_of(sure)
    by_value = None if value_based is None else _value_finding(before, after, bef, value_based, sure, st_dep)
    if by_value is not None and by_value.status == "refuted":
        dep = by_value
    elif pt is not None and by_value is None:
        dep = Decided("refuted", "", st_dep, _pair_cex(before, after, pt, bef))
        dep.message = _dep_message(dep.counterexample)
    elif not may.is_empty():
        dep = Decided("unknown", "a dependence through a data-dependent guard or index may be violated "
                      "(the conflict itself depends on data)", st_dep)
    elif before.unmodelled_guard_reads or after.unmodelled_guard_reads:
        t = sorted(before.unmodelled_guard_reads | after.unmodelled_guard_reads)
        dep = Decided("unknown", f"a condition reads {', '.join(t)}, which the kernel writes, at instances "
                      "where the guarded statement does not run: those reads are not in the dependence model",
                      st_dep)
    else:
        dep = by_value or Decided("proved", "every dependence keeps its order", st_dep)
    # reassociation
    pt = point_of(red_rev)
    if pt is None:
        red = Decided("proved", "no reduction is reordered", st_red)
    else:
        from .witness import sample_large  # sizes where the reordering shows (replays)
        cex = _pair_cex(before, after, sample_large(red_rev) or pt, bef)
        ops = sorted({after.stmt(n).acc_op for n in _names_in(red_rev)} - {None})
        # integer + and * wrap: associative and commutative, so reordering them is exact too
        exact = all(o in ("max", "min") or _integer_acc(after, n) for n in _names_in(red_rev)
                    for o in [after.stmt(n).acc_op] if o is not None)
        sids = sorted({after.stmt(n).sid for n in _names_in(red_rev)})
        if profile == "reproducible" and not exact:
            cex = dataclasses.replace(cex, extra={**cex.extra, "kind": "reduction"})
            red = Decided("refuted", f"the op reorders the {'/'.join(ops)} reduction of {', '.join(sids)}, "
                          f"which changes rounding; the reproducible profile refuses it: " + _dep_message(cex, True),
                          st_red, cex)
        else:
            why = "max/min and integer +/* are exact" if exact else f"allowed by the {profile} profile"
            red = Decided("proved", f"reorders the {'/'.join(ops)} reduction of {', '.join(sids)} ({why})",
                          st_red, None, reassociates=not exact)
    return dep, red


_VALUE_NOTE = {
    "flow": "the second reads the value the first writes",
    "overwrite": "the second overwrote the first before {reader} read the cell",
    "clobber": "the first read the cell before the second overwrote it",
    "final": "the second leaves the cell's final value",
}


def _value_finding(before, after, bef, v, sure, statement) -> Decided:
    """The dependence finding when the memory order changes (`sure`) and the value-based
    violations `v` are known: refuted at a pair that changes a value, else proved."""
    from .valuedeps import KINDS
    statement = ("forall params: every read whose value reaches an observable cell, and every observable "
                 "cell, has (a copy of) its last writer of before the op as its last writer after it")
    for kind in KINDS:
        pt = point_of(v.of(kind))
        if pt is None:
            continue
        cex = _pair_cex(before, after, pt, bef)
        note = _VALUE_NOTE[kind]
        if kind == "overwrite":
            rp = v.reader(pt)
            who = "a read"
            if rp is not None:
                p, tup = coords(rp)
                r = instance(after, tup[0][0], tup[0][1], param_values(after, p), "after")
                cex = dataclasses.replace(cex, observed_by=r, key_order=_PAIR_KEYS + ("observed_by",))
                who = f"{r['stmt']}({', '.join(f'{k}={x}' for k, x in r['original'].items())})"
            note = note.format(reader=who)
        cex = dataclasses.replace(cex, extra={**cex.extra, "value": kind})
        return Decided("refuted", f"{_dep_message(cex)}; the value changes: {note}", statement, cex)
    n = len(maps_of(sure))
    return Decided("proved", "every read and every observable cell keeps its last writer (value-based: "
                   f"memory-only dependences in {n} statement pair{'s' if n != 1 else ''} change order, "
                   "no value does)", statement)


def _ordered_conflicts(model: KernelModel) -> isl.UnionMap:
    """The dependences an op keeps: conflicting pairs that program order orders
    (`model.dependences`) and those that only barriers order (threads of one block, one
    writing a cell before a barrier that the other reads or writes after it: race.py)."""
    sync = barrier_order(model)
    if sync.is_empty():
        return model.dependences
    return model.dependences.union(model.conflicts.intersect(sync))


def _mapped(before, after, dep_b):
    """(identity of the original instances, after provenance reversed, the pairs of `dep_b`
    over after instances, the after order on their statement pairs), computed once per
    (models, relation) (dependence asks again for the same one)."""
    return _per_relation(after, "_mapped_memo", before, dep_b, _map_pairs)


def _map_pairs(before, after, dep_b):
    """_mapped's tuple, computed."""
    pb, pa = before.prov, after.prov
    ident = pb.range().identity()
    d_o = dep_b.apply_domain(pb).apply_range(pb).subtract(ident)
    inv = pa.reverse()
    d_a = d_o.apply_domain(inv).apply_range(inv)
    bar = barrier_order(after)
    return ident, inv, d_a, before_on(after, d_a).union(bar), bar


def _kept(before, after, dep_b) -> bool:
    """Whether every pair of `dep_b` keeps its order after the op (`_violated(...)` is
    empty), decided without mapping `dep_b` onto after instances where it can be (kept.py),
    once per (models, relation)."""
    def decide(before, after, dep_b):
        kept = order_kept(before, after, dep_b)
        return _violated(before, after, dep_b).is_empty() if kept is None else kept
    return _per_relation(after, "_kept_memo", before, dep_b, decide)


def _violated(before, after, dep_b):
    """The pairs of `dep_b` over after instances that the after order does not keep (built
    once per (models, relation): the sets the findings sample)."""
    def build(before, after, dep_b):
        _, _, d_a, bef, _ = _mapped(before, after, dep_b)
        return d_a.subtract(bef)
    return _per_relation(after, "_violated_memo", before, dep_b, build)


def _per_relation(after, attr: str, before, dep_b, compute):
    """compute(before, after, dep_b), once per (before model, relation object), kept on the
    after model under `attr` (identity, not equality: the relations are isl objects)."""
    memo = after.__dict__.setdefault(attr, [])
    for b, d, out in memo:
        if b is before and d is dep_b:
            return out
    out = compute(before, after, dep_b)
    memo.append((before, dep_b, out))
    return out


def _violations(before, after, dep_b):
    """(sure, may) violated dependences and the reversed reduction pairs, over after instances,
    and the after order of the pairs they relate (order.before_on; None when nothing is
    violated: no finding needs it then)."""
    if _kept(before, after, dep_b):
        # every dependence keeps its order: nothing is violated and no reduction pair (a
        # subset of the violated ones) is reversed, so neither the mapped pairs nor the
        # before model's reductions (costly: resets between accumulations) are built; no
        # finding is sampled, so no order is returned either
        none = isl.UnionMap.empty(dep_b.get_space())
        return none, none, none, None
    pb = before.prov
    ident, inv, d_a, bef, _ = _mapped(before, after, dep_b)
    viol = _violated(before, after, dep_b)
    # asked as before this relation's answer came from kept.py: isl keeps the point an
    # emptiness test finds on the pieces it tested, and sets built from them sample it again,
    # so the findings' counterexamples stay the points they have always been
    viol.is_empty()
    red_b = before.reductions.intersect(dep_b)
    r_o = red_b.apply_domain(pb).apply_range(pb).subtract(ident)
    r_a = r_o.apply_domain(inv).apply_range(inv)
    red_rev = viol.intersect(r_a).intersect(bef.reverse())
    sure, may = after.split_exact(viol.subtract(red_rev))
    return sure, may, red_rev, bef


def _integer_acc(model: KernelModel, name: str) -> bool:
    st = model.stmt(name)
    return st.acc_op in ("+", "*") and model.program.tensor(st.accesses[0].tensor).prec == "i32"


def _names_in(u: isl.UnionMap) -> set:
    out = set()
    for m in maps_of(u):
        out.add(m.get_tuple_name(isl.dim_type.in_))
        out.add(m.get_tuple_name(isl.dim_type.out))
    return out


# the keys of a dependence counterexample in the order its JSON has always had them (`observed_by`,
# when set, after the conflict's `kind`)
_PAIR_KEYS = ("params", "instances", "cells", "order", "kind")


def _pair_cex(before, after, pt, bef) -> Counterexample:
    params, (n1, v1, i1), (n2, v2, i2) = instance_pair(after, pt, "after")
    cells = shared_cells(after, v1, after, v2, n1, n2, params)
    rev = isl.Set.from_point(pt).unwrap().reverse()
    part = _map_part(bef, n2, n1)
    if part is not None and not rev.intersect(part).is_empty():
        order_after = "the second runs before the first"
    else:
        order_after = "they are unordered (may run in parallel or in any order)"
    w1 = i1["writes"]["tensor"]
    kinds = []
    for c in cells:
        first_w = c["tensor"] == w1 and i1["writes"]["index"] == c["index"]
        second_w = i2["writes"]["tensor"] == c["tensor"] and i2["writes"]["index"] == c["index"]
        kinds.append("WAW" if first_w and second_w else "RAW" if first_w else "WAR")
    return Counterexample(Instance(params), [i1, i2], {"before": "the first runs before the second", "after": order_after},
                          cells=tuple(Cell.from_json(c) for c in cells), extra={"kind": kinds[0] if kinds else None})


def _map_part(u: isl.UnionMap, a: str, b: str) -> isl.Map:
    for m in maps_of(u):
        if m.get_tuple_name(isl.dim_type.in_) == a and m.get_tuple_name(isl.dim_type.out) == b:
            return m
    return None


def _dep_message(cex: Counterexample, reduction: bool = False) -> str:
    i1, i2 = cex.instances
    cells = ", ".join(map(str, cex.cells))
    kind = cex.extra.get("kind")
    v1, v2 = {"RAW": ("writes", "reads"), "WAR": ("reads", "writes")}.get(kind, ("writes", "writes"))
    if reduction:
        kind, v1, v2 = "reduction", "accumulates into", "accumulates into"

    def who(i):
        orig = ", ".join(f"{k}={v}" for k, v in i["original"].items())
        at = ", ".join(f"{k}={v}" for k, v in i["at"].items())
        return f"{i['stmt']}({orig})" + (f" at ({at})" if at != orig else "")
    return (f"{kind + ' ' if kind else ''}dependence on {cells} at {params_text(cex.sizes)}: "
            f"{who(i1)} {v1} it and {who(i2)} {v2} it; before the op the first runs before the second, "
            f"after the op {cex.order['after']}")


# ---------------------------------------------------------------- independence


def parallel_loops(model: KernelModel):
    """(loop, statements inside it, its depth) for every vectorized or hardware loop."""
    seen = {}
    for st in model.stmts:
        for d, lp in enumerate(st.loops):
            if lp.synthetic or lp.axis not in ("vectorized",) + HW_AXES:
                continue
            seen.setdefault(lp.key, (lp, [], d))[1].append(st)
    return list(seen.values())


def independence_statement(loop) -> str:
    return (f"forall params, instances x, y inside loop {loop.var} ({loop.axis}) with "
            f"x.{loop.var} != y.{loop.var}"
            + (" and equal enclosing iterations" if loop.axis == "vectorized" else
               " and equal enclosing hardware indices") + ": x and y do not conflict")


def independence_sets(model: KernelModel, loop, inside, depth) -> tuple:
    """(sure, may, phases_unclear) for the independence of `loop` (at `depth`, over the
    statements `inside`): the conflicting pairs of different iterations, exactly modelled
    (`sure`) or through a data-dependent guard or index (`may`), where for a vectorized loop
    the enclosing iterations are equal and for a hardware loop only the enclosing hardware
    indices are (different hardware indices are unordered across enclosing serial loops;
    barrier phases of one block order threads: polyhedral/phases.py); `phases_unclear` says
    why the phases could not be relied on ("" when they can). Both empty, not built, when isl
    found them empty for the same loop of a model of equal IR before (`_INDEPENDENT`)."""
    key = (model_key(model), loop.key, loop.var, loop.axis, depth, tuple(st.name for st in inside))
    if _INDEPENDENT.get(key):
        none = isl.UnionMap.empty(isl.Space.params_alloc(isl.DEFAULT_CONTEXT, 0))
        return none, none, ""
    sure, may, phases_unclear = _independence_sets(model, loop, inside, depth)
    if sure.is_empty() and may.is_empty():  # (the caller asks again: answered from what these leave)
        if len(_INDEPENDENT) >= DECIDED_LIMIT:
            _INDEPENDENT.clear()
        _INDEPENDENT[key] = True
    return sure, may, phases_unclear


_INDEPENDENT: dict = {}  # loops found independent, by model_key and the loop (see memo.Answers)
DECIDED_LIMIT = 2_000  # entries; the store starts afresh past it


def _independence_sets(model: KernelModel, loop, inside, depth) -> tuple:
    """independence_sets' answer, built."""
    maps = []
    for s in inside:
        for t in inside:
            cons = [f"a{depth} != b{depth}"]
            for j in range(depth):
                lp = s.loops[j]
                if loop.axis == "vectorized" or lp.axis in HW_AXES:
                    cons.append(f"a{j} = b{j}")
            maps.append(pair_map(model, s, t, join_and(cons)))  # parsed once per shape
    pairs = model.union_map(maps)
    viol = model.conflicts.intersect(pairs)
    threads = loop.axis.startswith("thread")
    phases_unclear = ""
    if model.barriers and threads:
        from .race import phases_of, thread_unordered
        ph = phases_of(model)
        if ph.unsupported:
            phases_unclear = ph.unsupported
        else:
            viol = viol.intersect(thread_unordered(model))
            phases_unclear = ph.unclear_sites()[0].reason if ph.unclear_sites() else ""
    sure, may = model.split_exact(viol)
    return sure, may, phases_unclear


def independence_witness(model: KernelModel, loop, depth, label, pt, sure, phases_unclear: str) -> Decided:
    """The refutation at a sample point of the sure conflicts (unknown when the barrier phases
    that might order the pair are not modelled)."""
    if loop.axis == "vectorized":
        from .witness import sample_large  # many lanes: the interpreter's random order shows it
        pt = sample_large(sure) or pt
    if phases_unclear:
        return Decided("unknown", f"iterations of {loop.var} conflict unless a barrier orders them, and "
                       f"{phases_unclear}")
    params, (n1, v1, i1), (n2, v2, i2) = instance_pair(model, pt, label)
    cells = shared_cells(model, v1, model, v2, n1, n2, params)
    from verified_sched.core.cex_text import fmt_instance
    ctext = ", ".join(f"{c['tensor']}[{', '.join(map(str, c['index']))}]" for c in cells)
    return Decided("refuted", f"iterations {loop.var}={v1[depth]} and {loop.var}={v2[depth]} of the {loop.axis} "
                   f"loop both access {ctext} (at least one writes) at {params_text(params)}: "
                   f"{fmt_instance(i1)} and {fmt_instance(i2)}",
                   counterexample=Counterexample(Instance(params), [i1, i2],
                                                 cells=tuple(Cell.from_json(c) for c in cells)))
