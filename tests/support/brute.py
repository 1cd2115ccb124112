"""Brute-force enumeration at small concrete sizes: the cross-check of every isl answer.

Instances are enumerated by evaluating loop bounds and guards in Python (data-dependent guards
count as "may execute", as in the isl model); order, conflicts, coverage, dependences,
independence and contraction terms are then decided by plain comparison of concrete values.
Slow by design (pairs per cell), independent of isl. Test and benchmark code only
(tests/test_poly_crosscheck.py, benchmarks/verify_scaling.py), not part of the package.
"""
from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from dataclasses import dataclass

from polyhedral.evaluate import Dynamic, ev
from polyhedral.lazy import blend_of
from polyhedral.model import HW_AXES, ORDERED, KernelModel
from verified_sched.core.ir import And, BinOp, BoolConst, Cmp, Float, Int, Load, Not, Or


_CMP = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__,
        "==": int.__eq__, "!=": int.__ne__}


def evc(c, env: dict) -> bool:
    """A condition over integers, evaluated concretely (Dynamic where it reads a tensor)."""
    match c:
        case Cmp(op=op, a=a, b=b):
            return _CMP[op](ev(a, env), ev(b, env))
        case And(a=a, b=b):
            return evc(a, env) and evc(b, env)
        case Or(a=a, b=b):
            return evc(a, env) or evc(b, env)
        case Not(a=a):
            return not evc(a, env)
        case BoolConst(value=v):
            return v
    raise Dynamic(f"cannot evaluate condition {type(c).__name__}")


@dataclass
class Inst:
    stmt: object  # model Stmt
    values: tuple
    orig: tuple  # (orig tuple name, values)
    accesses: list  # (tensor, qualified cell, write, accumulator, plain cell) of the accesses made
    effective: bool = True  # a blend whose condition fails stores back what it read


def _may(c, env) -> bool:
    try:
        return evc(c, env)
    except (Dynamic, KeyError):
        return True


def enumerate_instances(model: KernelModel, sizes: dict) -> list:
    out = []
    for st in model.stmts:
        def rec(d, env, vals):
            if d == st.depth:
                if all(_may(g, env) for g in st.guards):
                    out.append(_inst(model, st, env, tuple(vals)))
                return
            lp = st.loops[d]
            for v in range(ev(lp.lo, env), ev(lp.hi, env)):
                env[lp.var] = v
                rec(d + 1, env, vals + [v])
            env.pop(lp.var, None)
        rec(0, dict(sizes), [])
    return out


def _evaluated(st, a, env) -> bool:
    """Whether access `a` may be evaluated at the point `env` (lazy where, and, or)."""
    return all(_may(c, env) for c in (st.guards if a.context is None else a.context))


def _inst(model, st, env, vals) -> Inst:
    hw = st.hw()
    acc = []
    effective = st.blend is None or _may(st.blend, env)
    for a in st.accesses:
        if not a.write and not _evaluated(st, a, env):
            continue
        try:
            cell = tuple(ev(e, env) for e in a.index)
        except Dynamic:
            cell = None
        mem = model.program.tensor(a.tensor).memory
        axes = ("block.x", "block.y", "block.z") if mem == "shared" else HW_AXES if mem == "local" else ()
        pre = tuple(vals[hw[x]] if x in hw else 0 for x in axes)
        acc.append((a.tensor, None if cell is None else pre + cell, a.write and not a.noop and effective,
                    a.accumulator, cell))
    v = getattr(st.node, "value", None)
    if isinstance(v, Load) and v.tensor == acc[0][0] and acc[0][4] is not None:
        try:
            if tuple(ev(e, env) for e in v.index) == acc[0][4]:
                acc[0] = acc[0][:2] + (False,) + acc[0][3:]  # stores back what it read
        except Dynamic:
            pass
    orig = (st.orig_tuple, tuple(ev(e, env) for e in st.orig_exprs))
    return Inst(st, vals, orig, acc, effective)


def before(x: Inst, y: Inst) -> bool:
    """Concrete `x runs before y`, mirroring KernelModel.before_pair."""
    s, t = x.stmt, y.stmt
    j = 0
    result = False
    while True:
        ps, pt = s.sched[2 * j], t.sched[2 * j]
        if ps != pt:
            result = ps < pt
            break
        if 2 * j + 1 >= len(s.sched) or 2 * j + 1 >= len(t.sched):
            break
        ls = s.sched[2 * j + 1]
        if x.values[j] != y.values[j]:
            result = ls.axis in ORDERED and x.values[j] < y.values[j]
            break
        j += 1
    if not result or s.top != t.top:
        return result
    hs, ht = s.hw(), t.hw()
    for axis in set(hs) | set(ht):  # an axis a statement is not inside: it runs at index 0
        if (x.values[hs[axis]] if axis in hs else 0) != (y.values[ht[axis]] if axis in ht else 0):
            return False
    return True


def storage_ok(model, inst: Inst, sizes) -> bool:
    for tensor, _, _, _, cell in (a for a in inst.accesses):
        if cell is None:
            continue
        dims = [ev(d, sizes) for d in model.program.tensor(tensor).storage_dims()]
        if any(not 0 <= c < d for c, d in zip(cell, dims)):
            return False
    return True


def in_bounds(model, sizes) -> bool:
    """Every access, at every loop point where it is evaluated (a read in a condition also
    where the condition fails, a read in a where branch only where the branch is taken)."""
    for st in model.stmts:
        def rec(d, env):
            if d == st.depth:
                for a in st.accesses:
                    if not _evaluated(st, a, env):
                        continue
                    try:
                        cell = [ev(e, env) for e in a.index]
                    except Dynamic:
                        continue
                    dims = [ev(x, sizes) for x in model.program.tensor(a.tensor).storage_dims()]
                    if any(not 0 <= c < n for c, n in zip(cell, dims)):
                        return False
                return True
            lp = st.loops[d]
            for v in range(ev(lp.lo, env), ev(lp.hi, env)):
                env[lp.var] = v
                if not rec(d + 1, env):
                    return False
            env.pop(lp.var, None)
            return True
        if not rec(0, dict(sizes)):
            return False
    return True


def _conflict_pairs(insts):
    """{(x, y): 'dep'|'red'} for conflicting unordered index pairs x < y."""
    by_cell = defaultdict(list)
    for n, i in enumerate(insts):
        for tensor, cell, write, accum, _ in i.accesses:
            if cell is not None:
                by_cell[(tensor, cell)].append((n, write, accum))
    pairs = {}
    for lst in by_cell.values():
        for a in range(len(lst)):
            for b in range(len(lst)):
                (x, wx, ax), (y, wy, ay) = lst[a], lst[b]
                if x >= y or not (wx or wy):
                    continue
                red = (ax and ay and insts[x].stmt.acc_op is not None and insts[x].stmt.sid == insts[y].stmt.sid)
                if pairs.get((x, y)) != "dep":
                    pairs[(x, y)] = "red" if red else "dep"
    return pairs


def _phase_ordered(a: Inst, b: Inst) -> bool:
    """Threads of one block in different (exact) barrier phases are ordered."""
    if a.stmt.top != b.stmt.top or a.stmt.barrier_before == b.stmt.barrier_before:
        return False
    ha, hb = a.stmt.hw(), b.stmt.hw()
    return all(a.values[ha[x]] == b.values[hb[x]] for x in ("block.x", "block.y", "block.z") if x in ha and x in hb)


def independence(model, sizes, loop_key, phases_exact=False) -> bool:
    """No two instances inside the loop, with different iterator values (and equal enclosing
    iterations or hardware indices), conflict."""
    insts = enumerate_instances(model, sizes)
    for (x, y) in _conflict_pairs(insts):
        a, b = insts[x], insts[y]
        da = next((d for d, lp in enumerate(a.stmt.loops) if lp.key == loop_key), None)
        db = next((d for d, lp in enumerate(b.stmt.loops) if lp.key == loop_key), None)
        if da is None or db is None or a.values[da] == b.values[db]:
            continue
        axis = a.stmt.loops[da].axis
        if phases_exact and axis.startswith("thread") and _phase_ordered(a, b):
            continue
        if all(a.values[j] == b.values[j] for j in range(da)
               if axis == "vectorized" or a.stmt.loops[j].axis in HW_AXES):
            return False
    return True


def race(model, sizes, phases_exact=False) -> bool:
    """No conflicting pair of distinct hardware-bound instances is unordered."""
    insts = enumerate_instances(model, sizes)
    for (x, y) in _conflict_pairs(insts):
        a, b = insts[x], insts[y]
        if phases_exact and _phase_ordered(a, b):
            continue
        if a.stmt.hw() and b.stmt.hw() and not before(a, b) and not before(b, a):
            return False
    return True


def coverage(mb, ma, sizes, idempotent) -> bool:
    ib, ia = enumerate_instances(mb, sizes), enumerate_instances(ma, sizes)
    cb = Counter(i.orig for i in ib if i.effective)
    ca = Counter(i.orig for i in ia if i.effective)
    if set(cb) - set(ca):
        return False
    ext = {n for n, i in enumerate(ia) if i.orig not in cb and i.effective}
    for n in ext:
        e = ia[n]
        for tensor, cell, write, _, plain in e.accesses:
            if not write:
                continue
            t = ma.program.tensor(tensor)
            dims = [ev(d, sizes) for d in t.dims]
            kills = [m for m, o in enumerate(ia) if m not in ext and before(e, o)
                     and any(a[2] and (a[0], a[1]) == (tensor, cell) for a in o.accesses)]
            if t.memory == "global" and all(0 <= c < d for c, d in zip(plain, dims)) and not kills:
                return False
            for m, r in enumerate(ia):
                if m in ext or before(r, e) or not any(not a[2] and (a[0], a[1]) == (tensor, cell) for a in r.accesses):
                    continue
                if not any(before(ia[k], r) for k in kills):
                    return False
    sid_of = {i.orig: i.stmt.sid for i in ia}
    for o, n in ca.items():
        if n > 1 and not idempotent(sid_of[o]):
            return False
    return True


def _value_key(model, inst, sizes):
    from polyhedral.coverage import skeleton_of
    st = inst.stmt
    env = dict(sizes)
    env.update({lp.var: v for lp, v in zip(st.loops, inst.values)})
    leaves = []
    skel = ("zero",) if st.zero_like else skeleton_of(st.node.value, st.names(model.pnames), leaves)
    return skel, tuple(ev(e, env) for e in leaves)


def dependence(mb, ma, sizes):
    """(dependences kept?, reduction pairs reversed?)"""
    from polyhedral.coverage import idempotent_fn
    ib, ia = enumerate_instances(mb, sizes), enumerate_instances(ma, sizes)
    idem = idempotent_fn(mb)
    copies = defaultdict(list)
    for i in ia:
        if i.effective:  # a blend's no-op instances stand for nothing
            copies[i.orig].append(i)
    ok, reversed_red = True, False
    for (x, y), kind in _conflict_pairs(ib).items():
        a, b = ib[x], ib[y]
        if not (a.effective and b.effective):
            continue
        if before(b, a):
            a, b = b, a
        elif not before(a, b):
            continue  # unordered in before: not a dependence
        if a.orig == b.orig:
            continue
        if (a.stmt.sid == b.stmt.sid and idem(a.stmt.sid)
                and _value_key(mb, a, sizes) == _value_key(mb, b, sizes)):
            continue  # equal stores of one idempotent statement: order is irrelevant
        for c1 in copies[a.orig]:
            for c2 in copies[b.orig]:
                if before(c1, c2):
                    continue
                if kind == "red" and before(c2, c1):
                    reversed_red = True
                else:
                    ok = False
    return ok, reversed_red


def _factors(e):
    if isinstance(e, BinOp) and e.op == "*":
        return _factors(e.a) + _factors(e.b)
    return [e]


def terms(model, sizes) -> Counter:
    """Multiset of (target cell, coefficient, sorted factor cells) of + accumulations and
    plain stores; zero stores count as ('zero', cell)."""
    from verified_sched.core.ir import accumulation
    out = Counter()
    for i in enumerate_instances(model, sizes):
        st = i.stmt
        env = dict(sizes)
        env.update({lp.var: v for lp, v in zip(st.loops, i.values)})
        w = i.accesses[0]  # the store comes first
        if st.zero_like:
            out[("zero", w[0], w[4])] += 1
            continue
        node = dataclasses.replace(st.node, value=blend_of(st.node, st.names(model.pnames))[1])
        e = accumulation(node)[1] if st.acc_op else node.value
        coef, fs = 1.0, []
        for f in _factors(e):
            if isinstance(f, (Int, Float)):
                coef *= f.value
            elif isinstance(f, Load):
                fs.append((f.tensor, tuple(ev(x, env) for x in f.index)))
            else:
                fs.append(("?", repr(f)))
        out[(st.acc_op or "=", w[0], w[4], coef, tuple(sorted(fs)))] += 1
    return out
