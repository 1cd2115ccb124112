"""Goals of the Winograd rewrite, stated on the actual (before, after) nests.

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
               expressions (z3 over the reals, with a timeout; identity.py);
  exactness    (only when the file declares input ranges) see exact.py.
Each is its own `obligations.Goal`, so `verified_sched.verify.discharge` budgets and times each one.
coverage and in_bounds are `AllOf` conjunctions of isl emptiness queries (one per writer, pair
of writers or distinct access; the first violated one is the refutation, its sample point the
counterexample), with a procedure per strip for coverage's provenance part.
"""
from __future__ import annotations

import islpy as isl

from polyhedral.memo import isl_map, isl_set

from polyhedral.affine import NonAffine

from ...core import budget, ir
from ...core.counterexample import Cell, Counterexample, Instance
from ...core.obligations import AllOf, Decided, Goal, IslEmpty, Procedure, formal_statement
from . import isl_text as wi
from .apply import Minted, rewrite_kernel
from .blocked import region as blocked_region
from .exact import exactness_goal
from .independence import blocked_goals
from .identity import identity_goals, instances


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
        return isl_map(f"{self.head} -> {{ [{its}] -> {tensor}[{cell}] : {c} }}")

    def cells(self, loops, guards, tensor, index) -> isl.Set:
        return self.access(loops, guards, tensor, index).range()

    def box(self, t: ir.Tensor) -> isl.Set:
        if t.name not in self._boxes:
            self._boxes[t.name] = self._box(t)
        return self._boxes[t.name]

    def _box(self, t: ir.Tensor) -> isl.Set:
        idx = ", ".join(f"x{i}" for i in range(t.rank))
        c = " and ".join([self.cons] + [f"0 <= x{i} < {wi.aff(d, self.ps)}" for i, d in enumerate(t.dims)])
        return isl_set(f"{self.head} -> {{ {t.name}[{idx}] : {c} }}")

    def point_cex(self, pt: isl.Point) -> Counterexample:
        """The counterexample (sizes, the one cell) of a point of a cell set."""
        space = pt.get_space()
        dims = [f"x{i}" for i in range(space.dim(isl.dim_type.set))]
        vals = wi.point_values(pt, self.params, dims)
        params = {k: v for k, v in vals.items() if k in self.params}
        name = space.get_tuple_name(isl.dim_type.set) if space.has_tuple_name(isl.dim_type.set) else ""
        return Counterexample(Instance(params), cells=(Cell(name, [vals[d] for d in dims]),))


def _accesses(stmt):
    """(tensor, index, is_write) of every access of an assignment (writes first)."""
    yield stmt.tensor, stmt.index, True
    for ld in ir.reads(stmt.value):
        yield ld.tensor, ld.index, False
    for e in stmt.index:
        for ld in ir.reads(e):
            yield ld.tensor, ld.index, False


# ---------------------------------------------------------------- queries


def profile_decided(profile: str | None) -> Decided:
    """Formal statement: the active profile is `approximate` (Winograd changes rounding beyond
    reassociation: the transforms scale by halves and quarters and add and subtract tiles)."""
    active = profile or "default"
    if active == "approximate":
        return Decided("proved", "winograd under the approximate profile", engine="structural")
    return Decided("refuted", f"winograd changes rounding beyond reassociation; it is allowed only under the "
                   f"approximate profile (active: {active})", counterexample=Counterexample(Instance({}), profile=active),
                   engine="structural")


def _refuted(message: str, cex_of=None):
    """point -> the refutation `message` (formatted with the point's counterexample as `cell`),
    its counterexample `cex_of(point)` (default: the point as text, an instance pair)."""
    def witness(pt) -> Decided:
        if cex_of is None:
            return Decided("refuted", message, counterexample=Counterexample(instances=str(pt)))
        cex = cex_of(pt)
        return Decided("refuted", message.format(cell=cex.cells[0]), counterexample=cex)
    return witness


def coverage(before: ir.Program, after: ir.Program, region: list, m: Minted) -> AllOf:
    """Formal statement: for all parameter values satisfying the constraints, with W_s the set
    of cells of d written by statement s of the replacement, (1) each tile statement's write
    map is injective, (2) the W_s are pairwise disjoint, (3) their union equals the cells the
    direct nest writes, and (4) each strip's provenance map (strip instance -> direct
    instance) is injective with range the direct instances that write W_strip.

    (1)-(3) are isl emptiness queries (a pair of instances writing one cell, a cell of two
    writers, a cell missing or extra); (4) is a procedure per strip (injectivity and an
    equality of sets)."""
    site = m.site
    writers = []  # (role, statement, loops, guards, write map) of each writer of d: parts() fills it

    def parts():
        writers.clear()
        rb, ra = _Rel(before), _Rel(after)
        dloops = tuple((lp.var, lp.lo, lp.hi) for lp in site.loops)
        direct = rb.access(dloops, (), site.d, site.stmt.index)
        for role, stmt in region:
            for st, loops, guards in instances(stmt):
                if st.tensor == site.d:
                    writers.append((role, st, loops, guards, ra.access(loops, guards, site.d, st.index)))
        out = [IslEmpty(lambda acc=acc: _written_twice(acc), _refuted(f"tile statement {st.sid} writes a cell twice"))
               for role, st, _, _, acc in writers if role == "inverse"]
        for i, (r1, s1, _, _, a1) in enumerate(writers):
            for r2, s2, _, _, a2 in writers[i + 1:]:
                out.append(IslEmpty(lambda a1=a1, a2=a2: a1.range().intersect(a2.range()),
                                    _refuted(f"cell {{cell}} is written by both {r1} ({s1.sid}) and {r2} ({s2.sid})",
                                             ra.point_cex)))
        want, got = direct.range(), writers[0][4].range()
        for w in writers[1:]:
            got = got.union(w[4].range())
        out.append(IslEmpty(lambda: want.subtract(got), _refuted("cell {cell} is not written by the replacement",
                                                                  rb.point_cex)))
        out.append(IslEmpty(lambda: got.subtract(want), _refuted(
            "cell {cell} is written by the replacement but not by the direct form", rb.point_cex)))
        out += [Procedure(lambda w=w: _strip_provenance(ra, direct, dloops, site.stmt, *w)) for w in writers
                if w[0] in ("row_strip", "col_strip")]
        return out
    return AllOf(parts, lambda _: Decided("proved", f"{len(writers)} statements write each cell of {site.d} exactly "
                                          f"once, exactly the direct form's cells"))


def _written_twice(acc: isl.Map) -> isl.Map:
    """{ instance -> other instance writing the same cell } of a write map."""
    return acc.apply_range(acc.reverse()).subtract(isl.Map.identity(acc.domain().get_space().map_from_set()))


def _strip_provenance(ra: _Rel, direct: isl.Map, dloops, dstmt, role, st, loops, guards, acc) -> Decided:
    """(4) of coverage for one strip: its provenance map is injective with range the direct
    instances that write its cells, both as original instances (the direct statement's own
    provenance maps its loops to them: an earlier op, like partition, may have renamed them)."""
    dprov = dict(dstmt.provenance) or {v: ir.Var(v) for v, _, _ in dloops}
    sprov = dict(st.provenance)
    if set(sprov) != set(dprov):
        return Decided("unknown", f"{role}: its provenance does not name the direct statement's original iterators")
    keys = list(dprov)
    its, c = ra.domain_text(loops, guards)
    dits, dc = ra.domain_text(dloops, ())
    try:
        prov = isl_map(f"{ra.head} -> {{ [{its}] -> [{', '.join(wi.aff(sprov[k], ra.ps) for k in keys)}] : {c} }}")
        to_orig = isl_map(f"{ra.head} -> {{ [{dits}] -> [{', '.join(wi.aff(dprov[k], ra.ps) for k in keys)}] "
                          f": {dc} }}")
    except NonAffine as exc:
        return Decided("unknown", f"{role}: provenance is not affine ({exc})")
    owned = direct.intersect_range(acc.range()).domain().apply(to_orig)
    if not prov.is_injective() or not prov.range().is_equal(owned):
        bad = prov.range().symmetric_difference(owned) if not prov.range().is_equal(owned) else prov.range()
        return Decided("refuted", f"{role} does not perform exactly the direct form's updates of its cells",
                       counterexample=Counterexample(instances=str(bad.sample_point())))
    return Decided("proved", f"{role} performs exactly the direct form's updates of its cells")


def _distinct_accesses(region: list, reads_only: bool = False):
    """(statement, loops, guards, tensor, index) of every distinct access of the replacement
    (`reads_only`: its reads)."""
    seen = set()
    for _, stmt in region:
        for st, loops, guards in instances(stmt):
            for t, idx, w in _accesses(st):
                if (w and reads_only) or (t, idx, loops, guards) in seen:
                    continue
                seen.add((t, idx, loops, guards))
                yield st, loops, guards, t, idx


def accesses_in_bounds(after: ir.Program, region: list) -> AllOf:
    """Formal statement: every access (read or write, every tensor) of every replacement
    statement lies inside the tensor's dims, for all parameter values.

    One isl emptiness query per distinct access: its cells outside the tensor's box."""
    def parts():
        ra = _Rel(after)
        return [IslEmpty(lambda loops=loops, guards=guards, t=t, idx=idx: ra.cells(loops, guards, t, idx).subtract(
                    ra.box(after.tensor(t))), _refuted(f"{st.sid} accesses {{cell}} outside its dims", ra.point_cex))
                for st, loops, guards, t, idx in _distinct_accesses(region)]
    return AllOf(parts, lambda answers: Decided("proved", f"{len(answers)} distinct accesses of the replacement are "
                                                f"in bounds"))


def reads_in_direct_set(before: ir.Program, after: ir.Program, region: list, m: Minted) -> AllOf:
    """Formal statement: for every tensor T declared before the rewrite, the cells of T
    read by the replacement are a subset of the cells of T read by the direct nest.

    One isl emptiness query per distinct read of such a tensor: its cells the direct nest
    never reads."""
    site = m.site

    def parts():
        rb, ra = _Rel(before), _Rel(after)
        dloops = tuple((lp.var, lp.lo, lp.hi) for lp in site.loops)
        direct = {}
        for t, idx, _ in _accesses(site.stmt):
            c = rb.cells(dloops, (), t, idx)
            direct[t] = direct[t].union(c) if t in direct else c
        old = {t.name for t in before.tensors}

        def extra(loops, guards, t, idx):
            cells = ra.cells(loops, guards, t, idx)
            return cells.subtract(direct[t]) if t in direct else cells
        return [IslEmpty(lambda a=(loops, guards, t, idx): extra(*a),
                         _refuted(f"read set: {st.sid} reads {{cell}}, which the direct form never reads", ra.point_cex))
                for st, loops, guards, t, idx in _distinct_accesses(region, reads_only=True) if t in old]
    return AllOf(parts, lambda answers: Decided("proved", f"read set: {len(answers)} distinct reads of pre-existing "
                                                f"tensors lie in the direct form's read set"))


# ---------------------------------------------------------------- goals


def site_goals(before: ir.Program, after: ir.Program, region: list, m: Minted, profile: str | None,
               timeout: float = budget.DEFAULT_TIMEOUT, note: str = "", block=None) -> list:
    """The goals of one site (`region`: its minted statements as (role, statement) pairs,
    blocked.region's for a blocked site, whose row loop is `block`): profile (its message
    followed by `note`), coverage, in_bounds (accesses, then the read set) and the transform
    identity per tile position."""
    prof = profile_decided(profile)
    prof.message += note
    return [Goal("profile", formal_statement(profile_decided), prof),
            Goal("coverage", formal_statement(coverage), coverage(before, after, region, m)),
            Goal("in_bounds", formal_statement(accesses_in_bounds), accesses_in_bounds(after, region)),
            Goal("in_bounds", formal_statement(reads_in_direct_set), reads_in_direct_set(before, after, region, m)),
            *identity_goals({**dict(region), "block": block}, m, timeout)]


def winograd_goals(before: ir.Program, after: ir.Program, kernel: str, profile: str | None = None,
                   timeout: float = budget.DEFAULT_TIMEOUT, ranges=None, note: str = "", block: bool = False) -> list:
    """Every goal of one `winograd` op (obligations.Goal records, decided by
    `verified_sched.verify.discharge`). Building them recomputes the rewrite of `before` (isl: the
    output extents' lower bound) and states each site's goals on it.

    `profile`: the active one (None: the after program's); `ranges`: the declared input
    ranges (exact.InputRange list) or None; with none declared there is no exactness goal.
    `note` follows the message of each site's `profile` goal; `block`: the op's (blocked form).
    """
    expect, minted, reasons = rewrite_kernel(before, kernel, block)
    if expect.kernel(kernel) != after.kernel(kernel):
        return [Goal("precondition", "the kernel after the op is the winograd rewrite of the kernel before it",
                     Decided("unknown", "the kernel after the op is not the winograd rewrite of the kernel before it",
                             engine="structural"))]
    if not minted:
        why = "; ".join(reasons) or "the kernel has no loop nest"
        return [Goal("equivalence", "the kernel after the op is structurally equal to the kernel before it",
                     Decided("proved", f"winograd: 0 sites, the kernel is unchanged ({why})", engine="structural"))]
    out = []
    body = after.kernel(kernel).body
    for m in minted:
        region, block_stmt = blocked_region(m, body)
        out += site_goals(before, after, region, m, profile if profile is not None else after.profile, timeout,
                          note, block_stmt)
        if m.row is not None:  # the blocked form's weight copy and vectorized loops
            out += blocked_goals(after, region, m, list(body[m.start:m.start + len(m.roles)]))
        if ranges:
            out.append(exactness_goal(before, after, kernel, m, ranges, timeout))
    return out
