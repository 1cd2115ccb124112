"""The blocked form's own goals (`winograd block`): its weight copy, and the `independence`
of its vectorized loops.

The blocked form mints its innermost channel loops vectorized (blocked.py): the op's own
obligations replace the generic ones (GENERIC = ()), so this module states what the driver's
generic `independence` obligation would: no two distinct iterations of a vectorized loop
(the enclosing loops' iterators equal) touch one cell where one of them writes it. One isl
emptiness query per (write, access) pair of a tensor in the loop's body.
"""
from __future__ import annotations

from polyhedral.memo import isl_map

from ...core import ir
from ...core.counterexample import Counterexample
from ...core.obligations import AllOf, Decided, Goal, IslEmpty, formal_statement
from . import isl_text as wi
from .blocked import copy_problem


def _vector_bodies(stmt, loops=()):
    """(enclosing loops as (var, lo, hi), the vectorized loop) for every vectorized loop."""
    if isinstance(stmt, ir.For):
        here = loops + ((stmt.var, stmt.lo, stmt.hi),)
        if stmt.axis == "vectorized":
            yield loops, stmt
        for s in stmt.body:
            yield from _vector_bodies(s, here)


def _accesses(body):
    """(assign, inner loops, tensor, index, is_write) of every access below `body`."""
    for st in body:
        match st:
            case ir.For():
                for a, lps, t, idx, w in _accesses(st.body):
                    yield a, ((st.var, st.lo, st.hi),) + lps, t, idx, w
            case ir.Assign():
                yield st, (), st.tensor, st.index, True
                for ld in ir.reads(st.value):
                    yield st, (), ld.tensor, ld.index, False
            case ir.Zero():
                raise ValueError("a vectorized loop zeroes a tensor")
            case ir.If():
                raise ValueError("a vectorized loop holds a guard")


def vector_loops_independent(after: ir.Program, stmts: list) -> AllOf:
    """Formal statement: for every vectorized loop v of the replacement, every pair (W, A) of
    accesses of one tensor below v with W a write, and all parameter values satisfying the
    constraints: no two instances with equal enclosing iterators and distinct values of v
    have W and A touch the same cell (isl emptiness, one query per pair)."""
    head, cons, ps = wi.context(after)

    def rel(outer, v, inner, tensor, index, tag):
        names = [x for x, _, _ in outer] + [v.var] + [x for x, _, _ in inner]
        its = ", ".join(f"i_{x}" for x in names)
        c = [cons] + [f"{wi.aff(lo, ps)} <= i_{x} < {wi.aff(hi, ps)}" for x, lo, hi in
                      list(outer) + [(v.var, v.lo, v.hi)] + list(inner)]
        cell = ", ".join(wi.aff(e, ps) for e in index)
        return isl_map(f"{head} -> {{ {tag}[{its}] -> {tensor}[{cell}] : {' and '.join(c)} }}"), len(outer)

    def clash(outer, v, w, a):
        mw, k = rel(outer, v, w[1], w[2], w[3], "W")
        ma, _ = rel(outer, v, a[1], a[2], a[3], "A")
        pairs = mw.apply_range(ma.reverse())  # W instance -> A instance touching its cell
        eq = " and ".join([f"o{i} = p{i}" for i in range(k)] + [f"o{k} != p{k}"])
        wn = k + 1 + len(w[1])
        an = k + 1 + len(a[1])
        o = ", ".join(f"o{i}" for i in range(wn))
        p = ", ".join(f"p{i}" for i in range(an))
        same = isl_map(f"{head} -> {{ W[{o}] -> A[{p}] : {eq} }}")
        return pairs.intersect(same)

    def parts():
        out = []
        for s in stmts:
            for outer, v in _vector_bodies(s):
                acc = list(_accesses(v.body))
                for w in acc:
                    if not w[4]:
                        continue
                    for a in acc:
                        if a[2] != w[2]:
                            continue
                        out.append(IslEmpty(lambda outer=outer, v=v, w=w, a=a: clash(outer, v, w, a), _refuted(v, w)))
        return out
    return AllOf(parts, lambda answers: Decided("proved", f"the vectorized loops' iterations are independent "
                                                f"({len(answers)} pairs of accesses)"))


def _refuted(v, w):
    def witness(pt) -> Decided:
        return Decided("refuted", f"two iterations of vectorized loop {v.var} touch one cell of {w[2]} "
                       f"({w[0].sid} writes it)", counterexample=Counterexample(instances=str(pt)))
    return witness


def independence_goal(after: ir.Program, stmts: list) -> Goal:
    """The `independence` goal of the vectorized loops among `stmts`."""
    return Goal("independence", formal_statement(vector_loops_independent), vector_loops_independent(after, stmts))


def copy_decided(after: ir.Program, region: list, m) -> Decided:
    """Formal statement: the weight copy W[<b's axes but oc>, oc] = b[..] is the blocked
    site's first statement, its loops cover every cell of W, and no other statement writes W
    (structural; with in_bounds, every read of W reads b at the un-permuted index)."""
    why = copy_problem(after, dict(region), m)
    if why:
        return Decided("unknown", f"weight copy: {why}", engine="structural")
    return Decided("proved", f"{m.W} is a full copy of {m.site.b}, written before it is read", engine="structural")


def blocked_goals(after: ir.Program, region: list, m, stmts: list) -> list:
    """The weight copy's goal and the independence of the vectorized loops among `stmts`."""
    return [Goal("equivalence", formal_statement(copy_decided), copy_decided(after, region, m)),
            independence_goal(after, stmts)]
