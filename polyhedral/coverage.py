"""Coverage: executed instances against original instances, through provenance.

Also the value skeletons (what an instance computes) that coverage compares and that decide
when two stores provably write equal values (idempotent recompute).
"""
from __future__ import annotations

import struct

import islpy as isl

from verified_sched.core.ir import Load, Var, Where, walk
from .affine import NonAffine, aff, is_affine
from .memo import anonymous, canonical, isl_map, isl_set
from verified_sched.core.counterexample import Cell, Counterexample, Instance
from verified_sched.core.obligations import Decided
from .describe import coords, instance, param_values
from .isltools import images_minus, minus_images, tensor_box, kv_text, params_text, point_of
from .model import KernelModel
from .order import before_on
from .bounded import bounded

# ---------------------------------------------------------------- skeletons


def skeleton_of(e, names, leaves):
    """Structure of an expression with its maximal affine sub-expressions cut out as leaves."""
    from verified_sched.core import ir
    if not isinstance(e, ir.Node):
        return e
    if isinstance(e, (ir.Cmp, ir.And, ir.Or, ir.Not, ir.BoolConst)):
        kids = tuple(skeleton_of(getattr(e, f), names, leaves) for f in ("op", "a", "b", "value") if hasattr(e, f))
        return (type(e).__name__,) + kids
    if not isinstance(e, ir.Float) and is_affine(e, names):
        leaves.append(e)
        return ("leaf",)
    match e:
        case ir.Int(value=v):
            return ("int", v)
        case ir.Float(value=v):
            return ("float", struct.pack("<d", v))  # bit for bit: -0.0 is not 0.0 (one meaning)
        case Load(tensor=t, index=idx):
            return ("load", t) + tuple(skeleton_of(x, names, leaves) for x in idx)
        case ir.BinOp(op=op, a=a, b=b):
            return ("bin", op, skeleton_of(a, names, leaves), skeleton_of(b, names, leaves))
        case ir.Call(fn=fn, args=args):
            return ("call", fn) + tuple(skeleton_of(x, names, leaves) for x in args)
        case ir.Where(cond=c, a=a, b=b):
            return ("where", skeleton_of(c, names, leaves), skeleton_of(a, names, leaves), skeleton_of(b, names, leaves))
        case ir.Cast(prec=p, a=a):
            return ("cast", p, skeleton_of(a, names, leaves))
        case ir.FloorDiv(a=a, divisor=d):
            return ("floordiv", d, skeleton_of(a, names, leaves))
        case ir.Mod(a=a, divisor=d):
            return ("mod", d, skeleton_of(a, names, leaves))
        case Var(name=n):
            return ("var", n)
    return ("?", repr(e))


def fold_where(model: KernelModel, st, e, dom=None):
    """`where(c, a, b)` with an affine c that isl decides on the instances `dom` (default: the
    statement's effective instances), replaced by the branch it takes: the load masks of a
    predicated tail, `where(p, L, 0)`, are L on every instance that has an original, and a
    blend `where(c, v, t[I])` is v where it takes effect. Nested wheres are decided on the
    instances their branch is evaluated on."""
    import dataclasses

    from verified_sched.core import ir
    from .affine import cond
    names = st.names(model.pnames)

    def go(n, dom):
        if isinstance(n, ir.Where):
            try:
                c = isl_set(model.space(f"{model.tup(st)} : {cond(n.cond, names)}"))
            except NonAffine:
                c = None
            if c is not None:
                if dom.is_subset(c):
                    return go(n.a, dom)
                if dom.intersect(c).is_empty():
                    return go(n.b, dom)
                a, b = go(n.a, dom.intersect(c)), go(n.b, dom.subtract(c))
                return n if a is n.a and b is n.b else dataclasses.replace(n, a=a, b=b)
        if not isinstance(n, ir.Node):
            return n
        changes = {}
        for name, v in ir.child_fields(n):
            nv = tuple(go(x, dom) for x in v) if isinstance(v, tuple) else go(v, dom)
            if nv is not v and (not isinstance(v, tuple) or any(x is not y for x, y in zip(nv, v))):
                changes[name] = nv
        return dataclasses.replace(n, **changes) if changes else n
    return go(e, model.effective_domains[st.name] if dom is None else dom)


def skeleton(model: KernelModel, st, dom=None):
    """(structure, affine leaves) of what an instance computes: written tensor and index,
    value and data-dependent guards (wheres decided on the instances `dom`: see fold_where).
    Without a `where` in its value and guards the answer does not depend on `dom`: computed
    once per model and statement (coverage asks once per pair of statements of one sid)."""
    memo = model.__dict__.setdefault("_skeletons", {})
    hit = memo.get(st.name)
    if hit is None:
        uses_where = any(isinstance(n, Where) for e in (getattr(st.node, "value", None), *st.guards) for n in walk(e))
        if not uses_where:
            model.__dict__.setdefault("_where_free", set()).add(st.name)
        hit = memo[st.name] = ("where",) if uses_where else _skeleton(model, st, dom)
    if hit == ("where",):
        return _skeleton(model, st, dom)
    return hit[0], list(hit[1])


def _skeleton(model: KernelModel, st, dom):
    """skeleton's answer (a statement skeleton() found without a `where` is not walked by
    fold_where, which would return its value and guards as they are)."""
    where = st.name not in model.__dict__.get("_where_free", ())
    names = st.names(model.pnames)
    names_key = tuple(sorted(names.items()))
    leaves = []
    node = st.node

    def fold(e):
        return fold_where(model, st, e, dom) if where else e
    if st.zero_like:
        value = ("zero",)
    else:
        value = _skeleton_of(fold(node.value), names, names_key, leaves)
    w = next(a for a in st.accesses if a.write)
    idx = tuple(_skeleton_of(e, names, names_key, leaves) for e in w.index)
    guards = tuple(_skeleton_of(fold(g), names, names_key, leaves) for g in st.data_guards(model.pnames))
    return ("stmt", w.tensor, idx, value, guards), leaves


_SKELETONS: dict = {}  # (expression, names) -> (structure, leaves): skeleton_of is a pure function
SKELETONS_LIMIT = 20_000  # entries; the cache starts afresh past it
SKELETON_STATS = {"computed": 0}  # tests count the work


def _skeleton_of(e, names: dict, names_key: tuple, leaves: list):
    """skeleton_of(e, names, leaves), once per expression and names in this process: the
    statements of the before and after models of every op of a schedule, and the copies of a
    statement an unroll or a partition makes, state the same expressions (is_affine, asked
    at every level of the expression, is most of the cost)."""
    key = (e, names_key)
    try:
        hit = _SKELETONS.get(key)
    except TypeError:  # an unhashable expression: computed
        return skeleton_of(e, names, leaves)
    if hit is None:
        if len(_SKELETONS) >= SKELETONS_LIMIT:
            _SKELETONS.clear()
        sub: list = []
        SKELETON_STATS["computed"] += 1
        hit = _SKELETONS[key] = (skeleton_of(e, names, sub), tuple(sub))
    leaves.extend(hit[1])
    return hit[0]


def _leaf_map(model, st, leaves, prefix="i"):
    """Instance -> the values of the affine `leaves`, once per model, statement and leaves
    (coverage asks for each pair of statements of one sid)."""
    memo = model.__dict__.setdefault("_leaf_maps", {})
    key = (st.name, prefix, tuple(leaves))
    try:
        return memo[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable leaf: not memoized
        return _make_leaf_map(model, st, leaves, prefix)
    out = memo[key] = _make_leaf_map(model, st, leaves, prefix)
    return out


def _make_leaf_map(model, st, leaves, prefix):
    names = st.names(model.pnames, prefix)
    outs = [aff(e, names) for e in leaves]
    return isl_map(model.space(f"{model.tup(st, prefix)} -> [{', '.join(outs)}]")).intersect_domain(
        model.domains[st.name])


def idempotent_fn(model: KernelModel):
    """sid -> whether duplicate executions provably write equal values: a plain assignment
    whose value and guards read no cell any instance of the kernel writes (decided by isl)."""
    cache = {}
    written = model.writes.range()

    def fn(sid):
        if sid not in cache:
            sts = [s for s in model.stmts if s.sid == sid]
            ok = bool(sts) and all(s.acc_op is None for s in sts)
            if ok:
                for s in sts:
                    r = model.union_map(model.read_map(s, a) for a in s.accesses if not a.write)
                    if not r.range().intersect(written).is_empty():
                        ok = False
                        break
            cache[sid] = ok
        return cache[sid]
    fn.model = model  # (checks.coverage keeps the answers decided with it)
    return fn


def value_map(model: KernelModel, st):
    """(structure, isl map instance -> the affine leaves of its stored value): two instances
    with the same structure and equal leaves store equal values (when idempotent)."""
    names = st.names(model.pnames)
    leaves = []
    skel = ("zero",) if st.zero_like else skeleton_of(st.node.value, names, leaves)
    return skel, _leaf_map(model, st, leaves)


def equal_stores(model: KernelModel, any_statement: bool = False, sid=None) -> isl.UnionMap:
    """Pairs of instances of one idempotent statement that store equal values: their mutual
    order never matters (the only conflicts between them are on the cell they both store).
    `sid`: only the pairs whose instances are of that statement (coverage asks for one)."""
    idem = idempotent_fn(model)
    maps = []
    vm = {}  # statement name -> value_map, once each (asked for every pair of one sid)

    def value_of(st):
        if st.name not in vm:
            vm[st.name] = value_map(model, st)
        return vm[st.name]
    for s in model.stmts:
        if (sid is not None and s.sid != sid) or (not any_statement and not idem(s.sid)):
            continue
        ks, ms = value_of(s)
        for t in model.stmts:
            if t.sid == s.sid:
                kt, mt = value_of(t)
                if ks == kt:
                    maps.append(ms.apply_range(mt.reverse()))
    return model.union_map(maps)


def _group(model, sid):
    return [s for s in model.stmts if s.sid == sid]


def coverage(before: KernelModel, after: KernelModel, idempotent) -> Decided:
    """Formal statement: with P_b, P_a the provenance maps (instance -> original instance):
    P_a(Dom_a) = P_b(Dom_b) for every statement, P_a injective (or, for an idempotent
    statement, duplicates allowed), instances outside the original set write only padding
    nothing else reads, and every after instance computes what its original computes (same
    cells, same expression: A(a) = A_b(P_b^-1(P_a(a))))."""
    statement = ("forall params: P_a(Dom_a) = P_b(Dom_b), P_a injective unless idempotent, extra "
                 "instances write only unread padding, accesses agree through provenance")
    before.domains, after.domains  # noqa: B018 - building them records over-approximations
    if before.approximate or after.approximate:
        return Decided("unknown", "loop bounds depend on data: instance sets are over-approximated, so "
                       "coverage cannot be decided", statement)
    for t in before.program.tensors:
        if t.memory == "global":
            try:
                same = after.program.tensor(t.name) == t
            except KeyError:
                same = False
            if not same:
                return Decided("unknown", f"the op changed the declaration of global tensor {t.name}", statement)
    sids = list(dict.fromkeys([s.sid for s in before.stmts] + [s.sid for s in after.stmts]))
    notes, unknown = [], []
    for sid in sids:
        sb, sa = _group(before, sid), _group(after, sid)
        if not sa:
            pb = before.union_map(before.prov_map(s) for s in sb)
            pt = point_of(pb.range())
            if pt is not None:
                p, tup = coords(pt)
                params = param_values(before, p)
                return Decided("refuted", f"statement {sid} no longer executes (e.g. original instance "
                               f"{tup[0][1]} at {params_text(params)})", statement,
                               Counterexample(Instance(params), [{"kernel": "before", "stmt": sid,
                                                                  "original": dict(zip(sb[0].orig_names, tup[0][1]))}]))
            continue
        if not sb:
            unknown.append(f"statement {sid} is new in the scheduled kernel (no original to map it to)")
            continue
        try:
            f = _cover_one(before, after, sid, sb, sa, idempotent, notes)
        except NonAffine as exc:
            f = Decided("unknown", f"statement {sid}: provenance is not affine ({exc})")
        if f is not None:
            if f.status == "unknown":
                unknown.append(f.message)
                continue
            f.statement = statement
            return f
    if unknown:
        return Decided("unknown", "; ".join(unknown), statement)
    return Decided("proved", "every original instance runs exactly once" + (" (" + "; ".join(notes) + ")" if notes else ""),
                   statement)


def _cover_one(before, after, sid, sb, sa, idempotent, notes):
    """The finding on statement `sid` (statements `sb` before, `sa` after; None: it holds, `notes`
    added to). Known to hold when it held plainly for statements stated alike (`_COVERED`)."""
    key = _group_key(before, sb, after, sa)
    if key in _COVERED:
        COVER_STATS["known"] += 1
        return None
    n = len(notes)
    out = _decide_one(before, after, sid, sb, sa, idempotent, notes)
    COVER_STATS["decided"] += 1
    if out is None and len(notes) == n:
        if len(_COVERED) >= COVERED_LIMIT:
            _COVERED.clear()
        _COVERED[key] = True
    return out


# The statement groups whose coverage held plainly: equal instance sets, injective, each after
# statement computing what its before statements compute (`_consistent`), no note (extra
# instances, recomputation: those answers read the whole after kernel). Each op of a schedule
# asks again about every statement it leaves alone, in other models (`<tag>_<sid>_<n>`). A
# plain answer reads nothing but the group's statements: their domains, provenance and
# effective instances (isl texts, the name left out: renaming a tuple changes no emptiness)
# and what skeletons and leaf maps are made of (the statement's IR, guards, loop variables,
# the parameters' isl names). The key is all of that.
_COVERED: dict = {}
COVERED_LIMIT = 20_000  # entries; the cache starts afresh past it
COVER_STATS = {"decided": 0, "known": 0}  # tests count the work


def _group_key(before, sb, after, sa) -> tuple:
    return (before.ptuple, tuple(before.pnames.items()), tuple(_stmt_key(before, s) for s in sb),
            after.ptuple, tuple(after.pnames.items()), tuple(_stmt_key(after, s) for s in sa))


def _stmt_key(model, st) -> tuple:
    """What a plain coverage answer reads of a statement (`_COVERED`), once per model."""
    memo = model.__dict__.setdefault("_cover_keys", {})
    key = memo.get(st.name)
    if key is None:
        key = memo[st.name] = (anonymous(model.domain_texts[st.name], st.name),
                               anonymous(model.prov_text(st), st.name), canonical(st.node), tuple(st.guards),
                               tuple(lp.var for lp in st.loops), st.accesses[0].noop, st.zero_like, st.blend)
    return key


def _decide_one(before, after, sid, sb, sa, idempotent, notes):
    pb = before.union_map(before.prov_map(s) for s in sb)
    pa = after.union_map(after.prov_map(s) for s in sa)
    img_b, img_a = pb.range(), pa.range()
    has_data = any(s.data_guards(after.pnames) for s in sa) or any(s.data_guards(before.pnames) for s in sb)
    imgs = [after.prov_map(s).range() for s in sa] if len(sa) > 1 else None  # (see images_minus)
    missing = images_minus(img_b, imgs) if imgs else img_b.subtract(img_a)
    pt = point_of(missing)
    if pt is not None:
        if has_data:
            return Decided("unknown", f"statement {sid} has data-dependent guards and its instance sets differ")
        p, tup = coords(pt)
        params = param_values(before, p)
        orig = dict(zip(sb[0].orig_names, tup[0][1]))
        bi = pb.intersect_range(isl.UnionSet.from_set(isl.Set.from_point(pt)))
        bpt = point_of(bi)
        insts = []
        if bpt is not None:
            _, bt = coords(bpt)
            insts.append(instance(before, bt[0][0], bt[0][1], params, "before"))
        else:
            insts.append({"kernel": "before", "stmt": sid, "original": orig})
        return Decided("refuted", f"original instance {sid}({kv_text(orig)}) is never executed after the op, "
                       f"at {params_text(params)}", counterexample=Counterexample(Instance(params), insts))
    extra = minus_images(imgs, img_b) if imgs else img_a.subtract(img_b)
    if not extra.is_empty():
        f = _extra_instances(after, sid, pa, extra, idempotent)
        if f is not None:
            return f
        notes.append(f"{sid}: extra instances write only padding")
    dom_a = pa.domain()
    dup = pa.apply_range(pa.reverse()).subtract(dom_a.identity())
    pt = point_of(dup)
    if pt is not None:
        if idempotent(sid):
            notes.append(f"{sid}: recomputed instances write equal values")
        elif not sa[0].acc_op:
            return Decided("unknown", f"{sid} executes some original instances twice and reads cells the kernel "
                           "writes: that both executions store equal values is not proved")
        else:
            p, tup = coords(pt)
            params = param_values(after, p)
            i1 = instance(after, tup[0][0], tup[0][1], params, "after")
            i2 = instance(after, tup[1][0], tup[1][1], params, "after")
            what = "an accumulation"
            return Decided("refuted", f"{what} executes twice: {sid}({kv_text(i1['original'])}) runs at "
                           f"({kv_text(i1['at'])}) and at ({kv_text(i2['at'])}), at {params_text(params)}",
                           counterexample=Counterexample(Instance(params), [i1, i2], cells=(
                               (Cell.from_json(i1["writes"]),) if i1.get("writes") else ())))
    return _consistent(before, after, sid, sb, sa, pa, pb)


def _rewrites_equal(after, sid, others, bad_dom) -> bool:
    """Whether every instance in `bad_dom` (instances of statement `sid`) stores to its cell
    the expression some instance of `others` of the same statement stores there (then a
    refutation may be benign). Asked of the pairs that start in `bad_dom` only: the pairs of
    other statements, or from other instances, cannot change the answer."""
    eq = equal_stores(after, any_statement=True, sid=sid)
    w = after.writes
    same_cell = w.intersect_domain(bad_dom).apply_range(w.reverse()).intersect(eq)
    covered = same_cell.intersect_range(others).domain()
    return bad_dom.is_subset(covered)


def _extra_instances(after, sid, pa, extra, idempotent=lambda sid: False):
    """Instances with no original are allowed when every store they make is dead: its cell
    is padding or non-observable, or a later original store overwrites it; and every read of
    that cell by an original instance not running before the store is preceded by such an
    overwriting store. (Reads by other extra instances only feed stores held to the same rule.)"""
    ext = pa.intersect_range(extra).domain()
    others = after.domain.subtract(ext)
    we = after.writes.intersect_domain(ext)
    wo = after.writes.intersect_domain(others)
    reads_o = after.reads.intersect_domain(others).reverse()
    same_cell, seen, wr = we.apply_range(wo.reverse()), we.apply_range(reads_o), wo.apply_range(reads_o)
    bef = before_on(after, same_cell, seen, wr)  # the order of those pairs only
    killed_by = same_cell.intersect(bef)  # e -> later original store, same cell
    observable = after.writes.range().empty(after.writes.range().get_space())
    for t in after.program.tensors:
        if t.memory == "global" and not t.scratch:  # scratch: intermediate values, never compared
            observable = observable.add_set(tensor_box(after, t.name, False))
    final = we.intersect_range(observable).domain().subtract(killed_by.domain())
    pt = point_of(final)
    if pt is not None:
        if _rewrites_equal(after, sid, others, final):
            return Decided("unknown", f"{sid} runs instances with no original that store, to observable cells, "
                           "values some original instance also stores there; not validated")
        return _extra_cex(after, sid, coords(pt), "its store to an observable cell is never overwritten")
    seen = seen.subtract(bef.reverse())
    n_seen = _pieces(seen)
    if n_seen == 0:  # no read to harm; counted, not asked: an emptiness test would leave a
        return None  # cached sample in `seen`'s pieces that the subtraction's pieces inherit
    wr = wr.intersect(bef)  # store -> later read
    kill = killed_by.apply_range(wr)

    def harmful_point():
        pt = point_of(seen.subtract(kill))
        return None if pt is None else coords(pt)
    # the subtraction of a `kill` of hundreds of pieces can run for seconds without isl
    # checking its abort flag: a large one runs where the deadline stops it (bounded.py)
    at = bounded(harmful_point, n_seen * _pieces(kill) > FORK_PIECES)
    if at is not None:
        return _extra_cex(after, sid, at, "another instance may read what it stored")
    return None


FORK_PIECES = 2000  # seen x kill basic maps past which the subtraction runs bounded (~0.2 s)


def _pieces(u) -> int:
    n = []
    u.foreach_map(lambda m: n.append(m.n_basic_map()))
    return sum(n)


def _extra_cex(after, sid, at, why):
    """The refutation at `at`, the (params, tuples) coordinates of a point."""
    p, tup = at
    params = param_values(after, p)
    inst = instance(after, tup[0][0], tup[0][1], params, "after")
    insts = [inst] + ([instance(after, tup[1][0], tup[1][1], params, "after")] if len(tup) > 1 else [])
    w = inst["writes"]
    return Decided("refuted", f"{sid} runs an instance with no original, ({kv_text(inst['at'])}) standing for "
                   f"({kv_text(inst['original'])}), that writes {w['tensor']}[{', '.join(map(str, w['index'] or []))}]: "
                   f"{why}, at {params_text(params)}",
                   counterexample=Counterexample(Instance(params), insts, cells=(Cell.from_json(w),)))


def _consistent(before, after, sid, sb, sa, pa, pb):
    """Every after instance accesses the cells and computes the expression of its original."""
    for a in sa:
        pa_a = after.prov_map(a)
        for b in sb:
            m = pa_a.apply_range(before.prov_map(b).reverse())
            if m.is_empty():
                continue
            # compared on the instances that stand for an original (effective, with a preimage)
            ska, la = skeleton(after, a, m.domain())
            skb, lb = skeleton(before, b, m.range())
            if ska != skb or len(la) != len(lb):
                return Decided("unknown", f"statement {sid} computes a different expression after the op "
                                          f"(structure changed; not validated generically)")
            if not la:
                continue
            lma = _leaf_map(after, a, la)
            lmb = _leaf_map(before, b, lb)
            via = m.apply_range(lmb)
            diff = lma.intersect_domain(m.domain()).subtract(via).union(via.subtract(lma))
            pt = point_of(diff)
            if pt is not None:
                p, tup = coords(pt)
                params = param_values(after, p)
                inst = instance(after, tup[0][0], tup[0][1], params, "after")
                return Decided("refuted", f"{sid} at ({kv_text(inst['at'])}) accesses or computes something other "
                               f"than its original instance ({kv_text(inst['original'])}), at {params_text(params)}",
                               counterexample=Counterexample(Instance(params), [inst]))
    return None

