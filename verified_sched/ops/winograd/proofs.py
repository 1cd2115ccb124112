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

import islpy as isl

from .. import budget, ir
from . import winograd_isl as wi
from .winograd import Minted, rewrite_kernel
from .winograd_identity import identity_obligations, instances  # noqa: F401 (identity_obligations re-exported)
from .winograd_result import Result, formal  # noqa: F401 (re-exported)


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
        for st, loops, guards in instances(stmt):
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
            for st, loops, guards in instances(stmt):
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
            for st, loops, guards in instances(stmt):
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
