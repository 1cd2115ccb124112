"""Obligations of the Winograd rewrite, checked on the actual (before, after) nests.

The generic provenance-based checks do not apply: the minted statements stand for no single
original instance. These replace them, per site:
  profile      the rewrite changes rounding beyond reassociation: approximate profile only;
  coverage     the tile and strip statements write each output cell exactly once, the union
               is exactly the direct form's output cells, and each strip performs exactly the
               direct form's updates of its cells (isl, symbolic sizes);
  in_bounds    every access of the replacement lies inside its tensor (isl), and every read of
               a tensor that existed before lies in the direct form's read set of it (isl);
  equivalence  the transform identity A^T[(G g G^T) . (B^T d B)]A = correlate(d, g), per
               output position of the 2x2 tile, built from the minted statements' own
               expressions (z3 over the reals, with a timeout);
  exactness    (only when the file declares input ranges) see winograd_exact.py.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

import islpy as isl
import z3

from smt.solver import solver

from .. import budget, ir
from . import winograd_isl as wi
from .winograd import Minted, rewrite_kernel


@dataclass
class Result:
    """One obligation outcome (converted to verified_sched.obligations.Obligation by the op)."""

    kind: str
    status: str  # proved | refuted | unknown
    engine: str
    message: str
    seconds: float = 0.0
    counterexample: dict | None = None
    extra: dict = field(default_factory=dict)
    statement: str = ""


def formal(fn) -> str:
    """The "Formal statement:" paragraph of a function's docstring, on one line."""
    doc = fn.__doc__ or ""
    at = doc.find("Formal statement")
    if at < 0:
        return ""
    text = doc[at:].split("\n\n")[0]
    return " ".join(text.split()).removeprefix("Formal statement").lstrip(" :(").strip()


def _stamp(results, fn):
    for r in results if isinstance(results, list) else [results]:
        r.statement = r.statement or formal(fn)
    return results


def _timed(kind: str, fn, *args):
    """fn(*args) -> Result, inside its own budget (verified_sched.budget): running out of isl
    operations, time or memory makes the obligation `kind` unknown with the reason."""
    t = time.perf_counter()
    r, reason = budget.guarded(lambda: fn(*args), budget.current_deadline())
    if reason is not None:
        r = Result(kind, "unknown", "isl", reason)
    r.seconds = round(time.perf_counter() - t, 4)
    return r


# ---------------------------------------------------------------- isl relations


def _instances(stmt, loops=(), guards=()):
    """(assign, ((var, lo, hi), ...), guards) for every assignment below `stmt`."""
    match stmt:
        case ir.For(var=v, lo=lo, hi=hi, body=body):
            for s in body:
                yield from _instances(s, loops + ((v, lo, hi),), guards)
        case ir.If(cond=c, then=t, orelse=e):
            for s in t:
                yield from _instances(s, loops, guards + (c,))
            for s in e:
                yield from _instances(s, loops, guards + (ir.Not(c),))
        case ir.Assign():
            yield stmt, loops, guards


class _Rel:
    """isl relations of one program's instances (parameters and constraints shared)."""

    def __init__(self, program: ir.Program):
        self.program = program
        self.head, self.cons, self.ps = wi.context(program)
        self.params = wi.param_names(program)
        self._boxes = {}

    def domain_text(self, loops, guards) -> tuple[str, str]:
        its = ", ".join("i_" + v for v, _, _ in loops)
        c = [self.cons] + [f"{wi.aff(lo, self.ps)} <= i_{v} < {wi.aff(hi, self.ps)}" for v, lo, hi in loops]
        c += [wi.cond(g, self.ps) for g in guards]
        return its, " and ".join(c)

    def access(self, loops, guards, tensor: str, index) -> isl.Map:
        """{ instance -> tensor[cell] } over the instance set."""
        its, c = self.domain_text(loops, guards)
        cell = ", ".join(wi.aff(e, self.ps) for e in index)
        return isl.Map(f"{self.head} -> {{ [{its}] -> {tensor}[{cell}] : {c} }}")

    def cells(self, loops, guards, tensor, index) -> isl.Set:
        return self.access(loops, guards, tensor, index).range()

    def box(self, t: ir.Tensor) -> isl.Set:
        if t.name not in self._boxes:
            self._boxes[t.name] = self._box(t)
        return self._boxes[t.name]

    def _box(self, t: ir.Tensor) -> isl.Set:
        idx = ", ".join(f"x{i}" for i in range(t.rank))
        c = " and ".join([self.cons] + [f"0 <= x{i} < {wi.aff(d, self.ps)}" for i, d in enumerate(t.dims)])
        return isl.Set(f"{self.head} -> {{ {t.name}[{idx}] : {c} }}")

    def sample(self, s: isl.Set) -> dict:
        """{"params": {...}, "cells": [{"tensor", "index"}]} of a point of a cell set."""
        dims = [f"x{i}" for i in range(s.dim(isl.dim_type.set))]
        pt = wi.sample(s, self.params, dims)
        params = {k: v for k, v in pt.items() if k in self.params}
        name = s.get_tuple_name() if s.has_tuple_name() else ""
        return {"params": params, "cells": [{"tensor": name, "index": [pt[d] for d in dims]}]}


def _cell(cex: dict) -> str:
    c = cex["cells"][0]
    return f"{c['tensor']}[{', '.join(map(str, c['index']))}]"


def _accesses(stmt):
    """(tensor, index, is_write) of every access of an assignment (writes first)."""
    yield stmt.tensor, stmt.index, True
    for ld in ir.reads(stmt.value):
        yield ld.tensor, ld.index, False
    for e in stmt.index:
        for ld in ir.reads(e):
            yield ld.tensor, ld.index, False


# ---------------------------------------------------------------- obligations


def profile_obligation(profile: str | None) -> Result:
    """Formal statement: the active profile is `approximate` (Winograd changes rounding beyond
    reassociation: the transforms scale by halves and quarters and add and subtract tiles)."""
    active = profile or "default"
    if active == "approximate":
        return Result("profile", "proved", "structural", "winograd under the approximate profile")
    return Result("profile", "refuted", "structural",
                  f"winograd changes rounding beyond reassociation; it is allowed only under the "
                  f"approximate profile (active: {active})", counterexample={"params": {}, "profile": active})


def coverage_obligation(before: ir.Program, after: ir.Program, region: list, m: Minted) -> Result:
    """Formal statement: for all parameter values satisfying the constraints, with W_s the set
    of cells of d written by statement s of the replacement, (1) each tile statement's write
    map is injective, (2) the W_s are pairwise disjoint, (3) their union equals the cells the
    direct nest writes, and (4) each strip's provenance map (strip instance -> direct
    instance) is injective with range the direct instances that write W_strip."""
    site = m.site
    rb, ra = _Rel(before), _Rel(after)
    dloops = tuple((lp.var, lp.lo, lp.hi) for lp in site.loops)
    direct = rb.access(dloops, (), site.d, site.stmt.index)
    want = direct.range()
    writers = []
    for role, stmt in region:
        for st, loops, guards in _instances(stmt):
            if st.tensor == site.d:
                writers.append((role, st, loops, guards, ra.access(loops, guards, site.d, st.index)))
    for role, st, loops, guards, acc in writers:
        if role == "inverse" and not acc.is_injective():
            pair = acc.apply_range(acc.reverse()).subtract(isl.Map.identity(acc.domain().get_space().map_from_set()))
            pt = pair.wrap().sample_point()
            return Result("coverage", "refuted", "isl", f"tile statement {st.sid} writes a cell twice",
                          counterexample={"instances": str(pt)})
    for i, (r1, s1, _, _, a1) in enumerate(writers):
        for r2, s2, _, _, a2 in writers[i + 1:]:
            both = a1.range().intersect(a2.range())
            if not both.is_empty():
                cex = ra.sample(both)
                return Result("coverage", "refuted", "isl",
                              f"cell {_cell(cex)} is written by both {r1} ({s1.sid}) and {r2} ({s2.sid})",
                              counterexample=cex)
    got = writers[0][4].range()
    for w in writers[1:]:
        got = got.union(w[4].range())
    for diff, what in ((want.subtract(got), "is not written by the replacement"),
                       (got.subtract(want), "is written by the replacement but not by the direct form")):
        if not diff.is_empty():
            cex = rb.sample(diff)
            return Result("coverage", "refuted", "isl", f"cell {_cell(cex)} {what}", counterexample=cex)
    for role, st, loops, guards, acc in writers:
        if role not in ("row_strip", "col_strip"):
            continue
        its, c = ra.domain_text(loops, guards)
        back = ", ".join(wi.aff(dict(st.provenance)[v], ra.ps) for v, _, _ in dloops)
        prov = isl.Map(f"{ra.head} -> {{ [{its}] -> [{back}] : {c} }}")
        owned = direct.intersect_range(acc.range()).domain()
        if not prov.is_injective() or not prov.range().is_equal(owned):
            bad = prov.range().symmetric_difference(owned) if not prov.range().is_equal(owned) else prov.range()
            return Result("coverage", "refuted", "isl", f"{role} does not perform exactly the direct form's "
                          f"updates of its cells", counterexample={"instances": str(bad.sample_point())})
    return Result("coverage", "proved", "isl",
                  f"{len(writers)} statements write each cell of {site.d} exactly once, "
                  f"exactly the direct form's cells")


def bounds_obligations(before: ir.Program, after: ir.Program, region: list, m: Minted) -> list:
    """in_bounds and the read-subset obligation (see the two inner docstrings)."""
    site = m.site
    rb, ra = _Rel(before), _Rel(after)
    dloops = tuple((lp.var, lp.lo, lp.hi) for lp in site.loops)

    def in_bounds() -> Result:
        """Formal statement: every access (read or write, every tensor) of every replacement
        statement lies inside the tensor's dims, for all parameter values."""
        n, seen = 0, set()
        for _, stmt in region:
            for st, loops, guards in _instances(stmt):
                for t, idx, _ in _accesses(st):
                    if (t, idx, loops, guards) in seen:
                        continue
                    seen.add((t, idx, loops, guards))
                    n += 1
                    out = ra.cells(loops, guards, t, idx).subtract(ra.box(after.tensor(t)))
                    if not out.is_empty():
                        cex = ra.sample(out)
                        return Result("in_bounds", "refuted", "isl",
                                      f"{st.sid} accesses {_cell(cex)} outside its dims", counterexample=cex)
        return Result("in_bounds", "proved", "isl", f"{n} distinct accesses of the replacement are in bounds")

    def subset() -> Result:
        """Formal statement: for every tensor T declared before the rewrite, the cells of T
        read by the replacement are a subset of the cells of T read by the direct nest."""
        direct = {}
        for t, idx, _ in _accesses(site.stmt):
            c = rb.cells(dloops, (), t, idx)
            direct[t] = direct[t].union(c) if t in direct else c
        old = {t.name for t in before.tensors}
        n, seen = 0, set()
        for _, stmt in region:
            for st, loops, guards in _instances(stmt):
                for t, idx, w in _accesses(st):
                    if w or t not in old or (t, idx, loops, guards) in seen:
                        continue
                    seen.add((t, idx, loops, guards))
                    n += 1
                    extra = ra.cells(loops, guards, t, idx)
                    extra = extra.subtract(direct[t]) if t in direct else extra
                    if not extra.is_empty():
                        cex = ra.sample(extra)
                        return Result("in_bounds", "refuted", "isl",
                                      f"read set: {st.sid} reads {_cell(cex)}, which the direct form never reads",
                                      counterexample=cex)
        return Result("in_bounds", "proved", "isl",
                      f"read set: {n} distinct reads of pre-existing tensors lie in the direct form's read set")

    return [_stamp(_timed("in_bounds", in_bounds), in_bounds), _stamp(_timed("in_bounds", subset), subset)]


# ---------------------------------------------------------------- the transform identity


class _Shape(Exception):
    """The minted statements do not have the linked shape the identity proof needs."""


def _lin(e) -> dict:
    """Linear form {var: coeff, None: const} of an iterator expression (parameters atomic)."""
    match e:
        case ir.Int(value=v):
            return {None: v}
        case ir.Var(name=n):
            return {n: 1}
        case ir.BinOp(op=("+" | "-") as op, a=a, b=b):
            x, y = _lin(a), _lin(b)
            s = 1 if op == "+" else -1
            return {k: x.get(k, 0) + s * y.get(k, 0) for k in set(x) | set(y)}
        case ir.BinOp(op="*", a=a, b=b):
            x, y = _lin(a), _lin(b)
            for u, w in ((x, y), (y, x)):
                if set(u) <= {None}:
                    return {k: u.get(None, 0) * c for k, c in w.items()}
    raise _Shape(f"non-linear index {e}")


def _z3(e, leaf):
    match e:
        case ir.Int(value=v):
            return z3.RealVal(v)
        case ir.Float(value=v):
            f = Fraction(v)
            return z3.RealVal(f"{f.numerator}/{f.denominator}")
        case ir.Load():
            return leaf(e)
        case ir.BinOp(op=op, a=a, b=b):
            x, y = _z3(a, leaf), _z3(b, leaf)
            return {"+": x + y, "-": x - y, "*": x * y, "/": x / y}[op]
        case ir.Call(fn="neg", args=(a,)):
            return -_z3(a, leaf)
        case ir.Call(fn="fma", args=(a, b, c)):
            return _z3(a, leaf) * _z3(b, leaf) + _z3(c, leaf)
    raise _Shape(f"expression {type(e).__name__} outside the identity's arithmetic")


def _loopvars(stmt):
    out = []
    while isinstance(stmt, ir.For):
        out.append(stmt)
        stmt = stmt.body[0] if len(stmt.body) == 1 and isinstance(stmt.body[0], ir.For) else None
    return out


def _const(e) -> int:
    if not isinstance(e, ir.Int):
        raise _Shape(f"expected a constant index, found {e}")
    return e.value


def _transform_terms(region: dict, m: Minted):
    """({(xi, nu): U expr}, {(xi, nu): V expr}, {(p, q): (inverse expr over M leaves)}), with
    the linkage between the nests checked structurally (raises _Shape otherwise)."""
    site = m.site
    g = {(r, s): z3.Real(f"g{r}{s}") for r in range(3) for s in range(3)}
    a = {(i, j): z3.Real(f"a{i}{j}") for i in range(4) for j in range(4)}

    def roles_env(roles, index):
        env = {}
        for role, e in zip(roles, index):
            env[role] = e
        return env

    U, V = {}, {}
    ranges = []  # (nest, {role: (lo, hi)}): every nest must agree on the extent of each role

    def record(nest, loops, pairs):
        b = {v: (lo, hi) for v, lo, hi in loops}
        ranges.append((nest, {("tile", r[1]) if r[0] in ("win", "out") else r: b.get(getattr(e, "name", None))
                              for r, e in pairs}))
    for st, loops, _ in _instances(region["U"]):
        xi, nu = _const(st.index[0]), _const(st.index[1])
        oc, ic = st.index[2], st.index[3]
        record("U", loops, [(("oc",), oc), (("ic",), ic)])

        def gleaf(ld, oc=oc, ic=ic):
            env = roles_env(m.site.b_roles, ld.index)
            if ld.tensor != site.b or env.get(("oc",)) != oc or env.get(("ic",)) != ic:
                raise _Shape(f"unexpected read {ld.tensor} in the kernel transform")
            return g[(_const(env[("k", 0)]), _const(env[("k", 1)]))]
        U[(xi, nu)] = _z3(st.value, gleaf)
    for st, loops, _ in _instances(region["V"]):
        xi, nu = _const(st.index[0]), _const(st.index[1])
        vroles = [r for r in site.a_roles if r[0] != "fixed"]
        venv = dict(zip(vroles, st.index[2:]))
        record("V", loops, list(venv.items()))

        def aleaf(ld, venv=venv):
            env = roles_env(site.a_roles, ld.index)
            if ld.tensor != site.a:
                raise _Shape(f"unexpected read {ld.tensor} in the input transform")
            off = []
            for w in range(2):
                f = _lin(env[("win", w)])
                t = venv[("win", w)]
                if not isinstance(t, ir.Var) or f.get(t.name) != 2 or set(f) - {t.name, None}:
                    raise _Shape("input tile not read at 2 t + i")
                off.append(f.get(None, 0))
            if any(env[r] != venv[r] for r in vroles if r[0] != "win"):
                raise _Shape("input transform reads another batch or channel")
            return a[tuple(off)]
        V[(xi, nu)] = _z3(st.value, aleaf)
    # the contraction: M[xi, nu, <d>] += V[xi, nu, <a>] * U[xi, nu, oc, ic], ic the innermost loop
    (cst, cloops, _), = list(_instances(region["contract"]))
    acc = ir.accumulation(cst)
    if acc is None or acc[0] != "+" or not isinstance(acc[1], ir.BinOp) or acc[1].op != "*":
        raise _Shape("the contraction is not M += V * U")
    ops = {ld.tensor: ld for ld in (acc[1].a, acc[1].b) if isinstance(ld, ir.Load)}
    if set(ops) != {m.U, m.V} or cst.tensor != m.M:
        raise _Shape("the contraction does not multiply V by U into M")
    vl, ul = ops[m.V], ops[m.U]
    if not (cst.index[:2] == vl.index[:2] == ul.index[:2]) or [lp[0] for lp in cloops[:2]] != \
            [x.name for x in cst.index[:2] if isinstance(x, ir.Var)] or any(lp[2] != ir.Int(4) for lp in cloops[:2]):
        raise _Shape("the contraction does not pair equal transform positions")
    mroles = [r for r in site.d_roles if r[0] != "fixed"]
    menv = dict(zip(mroles, cst.index[2:]))
    venv = dict(zip([r for r in site.a_roles if r[0] != "fixed"], vl.index[2:]))
    red = cloops[-1][0]
    link = [(menv[("out", w)], venv[("win", w)]) for w in range(2)]
    link += [(menv[r], venv[r]) for r in mroles if r[0] == "batch"]
    link += [(menv[("oc",)], ul.index[2]), (ir.Var(red), ul.index[3]), (ir.Var(red), venv[("ic",)])]
    record("contraction", cloops, list(menv.items()) + [(("ic",), ir.Var(red))])
    if cloops[-1][1:] != (ir.Int(0), site.extent(site.ic)):
        raise _Shape("the contraction does not reduce over every reduction channel")
    if any(x != y for x, y in link) or any(ir.Var(red) == e for e in cst.index):
        raise _Shape("the contraction's operands are not linked to the same tile and channels")
    # the inverse transform
    Y = {}
    for st, loops, _ in _instances(region["inverse"]):
        acc = ir.accumulation(st)
        if acc is None or acc[0] != "+":
            raise _Shape("the inverse transform does not accumulate into the output")
        env = roles_env(site.d_roles, st.index)
        pq, tv = [], {}
        for w in range(2):
            f = _lin(env[("out", w)])
            ts = [k for k in f if k is not None]
            if len(ts) != 1 or f[ts[0]] != 2:
                raise _Shape("output not written at 2 t + p")
            pq.append(f.get(None, 0))
            tv[w] = ir.Var(ts[0])
        want = [tv[r[1]] if r[0] == "out" else e for r, e in zip(site.d_roles, st.index) if r[0] != "fixed"]
        record("inverse", loops, list(zip(mroles, want)))

        def mleaf(ld, want=want):
            if ld.tensor != m.M or list(ld.index[2:]) != want:
                raise _Shape(f"the inverse transform reads {ld.tensor} off its own tile")
            k = (_const(ld.index[0]), _const(ld.index[1]))
            return U[k] * V[k]
        Y[tuple(pq)] = _z3(acc[1], mleaf)
    if len(U) != 16 or len(V) != 16:
        raise _Shape("the transforms do not write all 16 positions")
    # dataflow: U and V are written at every position the contraction reads, M at every tile
    # the inverse reads (the inverse's own tiles are pinned by coverage)
    seen = {}
    for nest, rng in ranges:
        for role, lohi in rng.items():
            if lohi is None or lohi[0] != ir.Int(0) or seen.setdefault(role, (nest, lohi))[1] != lohi:
                raise _Shape(f"the {nest} nest's loop over {role} differs from the "
                             f"{seen.get(role, (nest,))[0]} nest's")
    return g, a, Y


def identity_obligations(region: dict, m: Minted, timeout: float) -> list:
    """Formal statement (per output position (p, q) of the 2x2 tile): for all real tile values
    a[0..3][0..3] and kernel values g[0..2][0..2], the value the minted nests add to
    d[2 th + p, 2 tw + q] for one reduction channel, A^T[(G g G^T) . (B^T a B)]A at (p, q) as
    written in the minted statements, equals the direct form's sum of a[p + r][q + s] g[r][s]
    over r, s in 0..2 (z3, negated query: unsat = proved, sat = refuted with a model)."""
    t0 = time.perf_counter()
    try:
        g, a, Y = _transform_terms(region, m)
    except (_Shape, KeyError, ValueError) as exc:
        return [Result("equivalence", "unknown", "z3", f"transform identity: {exc}",
                       seconds=round(time.perf_counter() - t0, 4))]
    out = []
    for p in range(2):
        for q in range(2):
            t = time.perf_counter()
            if (p, q) not in Y:
                out.append(Result("equivalence", "refuted", "z3", f"position ({p}, {q}) of the tile is never written",
                                  counterexample={"position": [p, q]}))
                continue
            direct = z3.Sum([a[(p + r, q + s)] * g[(r, s)] for r in range(3) for s in range(3)])
            if budget.expired(budget.current_deadline()):
                out.append(Result("equivalence", "unknown", "z3", budget.deadline_message()))
                continue
            s = solver(timeout)  # capped by the time left before the deadline
            s.add(Y[(p, q)] != direct)
            res = s.check()
            sec = round(time.perf_counter() - t, 4)
            what = f"transform identity at tile position ({p}, {q})"
            if res == z3.unsat:
                out.append(Result("equivalence", "proved", "z3", what + " holds over the reals", sec))
            elif res == z3.sat:
                mdl = s.model()
                cex = {str(d): str(mdl[d]) for d in mdl.decls()}
                out.append(Result("equivalence", "refuted", "z3", what + " fails", sec,
                                  counterexample={"position": [p, q], "model": cex}))
            else:
                out.append(Result("equivalence", "unknown", "z3", f"{what}: {budget.z3_unknown(s.reason_unknown())}",
                                  sec))
    return out


# ---------------------------------------------------------------- driver


def winograd_results(before: ir.Program, after: ir.Program, kernel: str, profile: str | None = None,
                     timeout: float = budget.DEFAULT_TIMEOUT, ranges=None) -> list:
    """Every obligation of one `winograd` op, as Result records.

    `ranges`: the declared input ranges (winograd_exact.InputRange list) or None; with none
    declared there is no exactness obligation.
    """
    from .winograd_exact import exactness_obligation

    expect, minted, reasons = rewrite_kernel(before, kernel)
    if expect.kernel(kernel) != after.kernel(kernel):
        return [Result("precondition", "unknown", "structural",
                       "the kernel after the op is not the winograd rewrite of the kernel before it")]
    if not minted:
        why = "; ".join(reasons) or "the kernel has no loop nest"
        return [Result("equivalence", "proved", "structural",
                       f"winograd: 0 sites, the kernel is unchanged ({why})", extra={"sites": 0},
                       statement="the kernel after the op is structurally equal to the kernel before it")]
    out = []
    body = after.kernel(kernel).body
    for m in minted:
        region = [(role, body[m.start + i]) for i, role in enumerate(m.roles)]
        by_role = dict(region)
        out.append(_stamp(profile_obligation(profile if profile is not None else after.profile),
                          profile_obligation))
        out.append(_stamp(_timed("coverage", coverage_obligation, before, after, region, m), coverage_obligation))
        out += bounds_obligations(before, after, region, m)
        ident, reason = budget.guarded(lambda: identity_obligations(by_role, m, timeout), budget.current_deadline())
        out += _stamp(ident if reason is None else [Result("equivalence", "unknown", "z3", reason)],
                      identity_obligations)
        if ranges:
            out.append(_stamp(_timed("exactness", exactness_obligation, before, after, kernel, m, ranges, timeout),
                              exactness_obligation))
    for r in out:
        r.extra.setdefault("sites", len(minted))
    return out
