"""privatize T over L -> ACC, its obligations as goals (discharged by verified_sched.verify.discharge).

Generic obligations kept (GENERIC): in_bounds (the transfers and the tile), dependence and
reassociation (before's dependences, mapped through the users' unchanged provenance, must
keep their order: privatize moves no original statement), independence (no new parallel loop
appears). Replaced: coverage, which would compare the users' skeletons and see a different
target tensor. In its place, the op's own goals:

- `coverage` (structural, decided when the goal is stated): deleting the transfers and mapping
  each ACC access back to the witness T[I] gives exactly the original kernel;
- `dataflow` (isl): every cell accessed under L at an outer iteration o is loaded and stored
  back at o, and ACC cells stand for T cells one to one;
- `privatize_condition` and `race` (isl) for the threads.

Within a thread nothing runs between the init-load and the store-back except L, so together
these say the store-back writes every cell the value the original leaves there.

The after kernel holds three kinds of statements around the privatized loop L: the init-load
`ACC[a] = T[c]` (before L), the users under L whose accesses of T were redirected to
`ACC[tile(I)]`, and the store-back `T[c] = ACC[a]` (after L). For a user the op supplies a
witness: the original index vector I of T (over the user's own loop variables). `o` is the
iteration of the loops enclosing L (the first `n_outer` dimensions of every instance involved;
hardware loops enclosing L are among them, so `o` names the thread too).

Each isl goal is a conjunction (`AllOf`) of `IslEmpty` violation sets tried in order
(`conjunction`): proved when all are empty; otherwise a sample point of the first non-empty one
is the witness, which that set's witness builder turns into the refutation (or `unknown`, for
the may-part of a data-dependent guard or index).
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from polyhedral.lazy_isl import isl

from polyhedral.affine import aff
from polyhedral.describe import coords, instance_pair, param_values, shared_cells
from ...core.cex_text import fmt_instance
from polyhedral.isltools import params_text
from polyhedral.model import HW_AXES, Access, KernelModel

from ...core import ir
from ...core.counterexample import Cell, Counterexample, Instance, Thread
from ...core.ir import Assign, Load
from ...core.obligations import AllOf, Decided, Goal, IslEmpty
from ...analysis.simplify import norm_index
from .. import common
from .apply import Plan, analyze, load_sid, store_sid

GENERIC = ("in_bounds", "dependence", "reassociation", "independence")


def obligations(ctx) -> list:
    """coverage (structural), dataflow, privatize_condition, race (isl)."""
    groups = functools.cache(lambda: Groups.of(ctx))  # the model, built inside the first isl goal
    return [coverage_goal(ctx), dataflow_goal(groups, ctx.op.tensor, ctx.op.acc),
            condition_goal(groups, ctx.op.tensor, ctx.op.acc), race_goal(groups, ctx.op.tensor, ctx.op.acc)]


def conjunction(kind: str, statement: str, proved: str, cases) -> Goal:
    """One goal over several violation sets: `cases` is a list of (build, witness), `build()`
    an isl set or map of violations, `witness(point)` its Decided answer. An `AllOf` of
    `IslEmpty` parts: proved iff every set is empty; the parts are decided in the order given
    (the most basic failure first), the first refutation answers and the sets after it are not
    built; a part whose witness answers unknown (a may-set) makes the goal unknown unless a
    later part refutes it."""
    return Goal(kind, statement, AllOf(lambda: [IslEmpty(build, witness) for build, witness in cases],
                                       lambda answers: Decided("proved", proved)))


# ---------------------------------------------------------------- coverage (structural)


def coverage_goal(ctx) -> Goal:
    """Formal statement: deleting the two transfer nests (sids ACC.load, ACC.store) from the
    after kernel and replacing every access ACC[tile(I)] by T[I] (the witness index vector)
    yields the before kernel exactly (structural equality: same statements, sids, provenance,
    loops and guards). Hence every original instance runs exactly once, in its original
    position, computing its original expression up to the T -> ACC redirection, which the
    dataflow obligation justifies."""
    op = ctx.op
    before_k = ctx.before.kernel(ctx.kernel)
    plan = analyze(ctx.before, before_k, op)
    statement = (f"the after kernel without its transfers, with {op.acc}[tile] read back as "
                 f"{op.tensor}[index], is the original kernel")
    if _canon(undo(ctx.after, ctx.kernel, op, plan), op.tensor) == _canon(before_k, op.tensor):
        d = Decided("proved", f"every original statement runs unchanged, its accesses of {op.tensor} "
                    f"redirected to {op.acc}", engine="structural")
    else:
        d = Decided("unknown", "the scheduled kernel is not the original with the accesses redirected "
                    "(internal inconsistency of the op)", engine="structural")
    return Goal("coverage", statement, d)


def _is_transfer(stmt, op) -> bool:
    sids = {load_sid(op.acc), store_sid(op.acc)}
    return any(isinstance(n, Assign) for n in ir.walk(stmt)) and all(
        common.original_sid(n.sid) in sids for n in ir.walk(stmt) if isinstance(n, Assign))


def undo(after: ir.Program, kernel_name: str, op, plan: Plan) -> ir.Kernel:
    """The after kernel with the transfer nests deleted and every ACC[tile] access mapped back
    to the witness T[I] (the kernel the privatization must have started from)."""
    kernel = after.kernel(kernel_name)
    site = common.find_loop(kernel, op.over, op, "over")
    parent_path, i = site.path[:-1], site.path[-1][1]
    siblings = _body_at(kernel, site.path)
    keep = tuple(s for k, s in enumerate(siblings)
                 if not (k in (i - 1, i + 1) and _is_transfer(s, op)))

    def back(n):
        if isinstance(n, Load) and n.tensor == op.acc and tuple(n.index) == plan.tile_index:
            return Load(op.tensor, plan.index, loc=n.loc)
        if isinstance(n, Assign) and n.tensor == op.acc and tuple(n.index) == plan.tile_index:
            return dataclasses.replace(n, tensor=op.tensor, index=plan.index)
        return None
    keep = tuple(ir.rewrite(s, back) for s in keep)
    if not parent_path:
        return dataclasses.replace(kernel, body=keep)
    return _set_body(kernel, site.path, keep)


def _body_at(kernel, path):
    """The statement list holding the statement at `path`."""
    stmts = kernel.body
    for k in range(len(path) - 1):
        stmts = getattr(stmts[path[k][1]], path[k + 1][0])
    return stmts


def _canon(kernel, tensor: str):
    """Indices of every access of `tensor` in normal form (so textual variants compare equal)."""
    def fn(n):
        if isinstance(n, (Load, Assign)) and getattr(n, "tensor", None) == tensor:
            idx = tuple(norm_index(e) for e in n.index)
            return None if idx == tuple(n.index) else dataclasses.replace(n, index=idx)
        return None
    return ir.rewrite(kernel, fn)


def _set_body(kernel, path, new):
    def go(stmts, p):
        (_, i), rest = p[0], p[1:]
        if not rest:
            return new
        s = stmts[i]
        sub = rest[0][0]
        return stmts[:i] + (dataclasses.replace(s, **{sub: go(getattr(s, sub), rest)}),) + stmts[i + 1:]
    return dataclasses.replace(kernel, body=go(kernel.body, path))


# ---------------------------------------------------------------- the statements in the model


@dataclass(frozen=True)
class Groups:
    """The after kernel's model and its statements by role: the init-loads, the store-backs,
    the users (with their witness: user name -> the original index vector of T) and
    n_outer, the number of loops enclosing L."""

    model: KernelModel
    loads: list
    stores: list
    users: list
    witness: dict
    n_outer: int

    @staticmethod
    def of(ctx) -> Groups:
        op = ctx.op
        model = ctx.model_after
        plan = analyze(ctx.before, ctx.before.kernel(ctx.kernel), op)
        loads = [st for st in model.stmts if common.original_sid(st.sid) == load_sid(op.acc)]
        stores = [st for st in model.stmts if common.original_sid(st.sid) == store_sid(op.acc)]
        users = [st for st in model.stmts if st.sid in {common.original_sid(s) for s in plan.users}
                 and any(a.tensor == op.acc for a in st.accesses)]
        return Groups(model, loads, stores, users, {st.name: plan.index for st in users}, len(plan.site.loops))

    def oc_map(self, st, index, tag: str = "OC") -> isl.Map:
        """instance -> tag[o..., cells of `index`] (T cells; `tag` names the tuple)."""
        names = st.names(self.model.pnames)
        outs = [f"i{d}" for d in range(self.n_outer)] + [aff(e, names) for e in index]
        return isl.Map(self.model.space(f"{self.model.tup(st)} -> {tag}[{', '.join(outs)}]")).intersect_domain(
            self.model.domains[st.name])

    def union(self, maps):
        return self.model.union_map(maps)

    def cells_of(self, sts, acc=None):
        """The set OC[o, c] of T cells the statements `sts` (users) access (with `acc`: write
        it) at each o."""
        return self.union([self.oc_map(st, self.witness[st.name]) for st in sts
                           if acc is None or any(a.write and a.tensor == acc for a in st.accesses)]).range()

    def moved(self, tensor: str, store: bool):
        """OC[o, c]: the T cells the store-backs (`store`) or the init-loads move at o."""
        group = self.stores if store else self.loads
        return self.union([self.oc_map(st, t_index(st, tensor, store)) for st in group]).range()


def acc_index(st, acc: str, write: bool):
    for a in st.accesses:
        if a.tensor == acc and a.write == write:
            return a.index
    return None


def t_index(st, tensor: str, write: bool):
    for a in st.accesses:
        if a.tensor == tensor and a.write == write and not a.accumulator:
            return a.index
    return None


# ---------------------------------------------------------------- dataflow (isl)


def dataflow_goal(groups, tensor: str, acc: str) -> Goal:
    """Formal statement: for all params and every iteration o of the loops enclosing L,
    (1) every cell c of T that a user accesses at o is loaded into ACC before L and stored
    back after L at o, and every cell stored back at o was loaded at o; (2) the pairs (c, a)
    of a T cell and the ACC cell standing for it at o (over the users' witnesses and both
    transfers) form a bijection: one ACC cell per T cell and one T cell per ACC cell. With the
    users' statements unchanged otherwise (the op's coverage obligation), the accumulator then
    holds exactly the values the original holds in those cells, and the store-back writes the
    value the original leaves there (interference by other threads is the
    privatize_condition and race obligations).

    Violation sets, in order: cells stored back but not loaded; cells used but not loaded;
    used but not stored back; pairs of T cells sharing an ACC cell; pairs of ACC cells for
    one T cell."""
    statement = (f"forall params, o: every cell of {tensor} accessed under the loop is loaded and "
                 f"stored back at o, and {acc} cells stand for {tensor} cells one to one")
    g = groups
    used = functools.cache(lambda: g().cells_of(g().users))
    loaded = functools.cache(lambda: g().moved(tensor, False))
    stored = functools.cache(lambda: g().moved(tensor, True))
    rel = functools.cache(lambda: cell_pairs(g(), tensor, acc))

    def cell_witness(what: str):
        def witness(pt):
            p, tup = coords(pt)
            params = param_values(g().model, p)
            o, c = tup[0][1][:g().n_outer], tup[0][1][g().n_outer:]
            return Decided("refuted", f"{tensor}[{', '.join(map(str, c))}] is {what.format(o=o)}, at "
                           f"{params_text(params)}", counterexample=Counterexample(
                               Instance(params), cells=(Cell(tensor, c),), extra={"outer": o}))
        return witness

    def pair_witness(what: str):
        def witness(pt):
            p, tup = coords(pt)
            params = param_values(g().model, p)
            return Decided("refuted", f"{what} at {params_text(params)} ({tup[0][1]} and {tup[1][1]})",
                           counterexample=Counterexample(Instance(params),
                                                         extra={"points": [tup[0][1], tup[1][1]]}))
        return witness

    def not_one_to_one(bad):
        return bad.subtract(bad.domain().identity())

    return conjunction("dataflow", statement,
                           f"every accessed cell of {tensor} is transferred, and {acc} maps onto it one to one", [
        (lambda: stored().subtract(loaded()),
         cell_witness(f"stored back at outer iteration {{o}} from a cell of {acc} that was not loaded there")),
        (lambda: used().subtract(loaded()),
         cell_witness(f"accessed under the loop at outer iteration {{o}} but never loaded into {acc}")),
        (lambda: used().subtract(stored()),
         cell_witness(f"accessed under the loop at outer iteration {{o}} but never stored back from {acc}")),
        (lambda: not_one_to_one(rel().apply_range(rel().reverse())),
         pair_witness(f"two cells of {tensor} share one cell of {acc}")),
        (lambda: not_one_to_one(rel().reverse().apply_range(rel())),
         pair_witness(f"one cell of {tensor} uses two cells of {acc}")),
    ])


def cell_pairs(g: Groups, tensor: str, acc: str) -> isl.Map:
    """[o, c] -> [o, a]: the T cell c and the ACC cell a standing for it at o, over the users
    (through their witness) and both transfers."""
    model, n_outer = g.model, g.n_outer
    o = [f"i{d}" for d in range(n_outer)]
    rel = []

    def pairs(st, c_index, a_index):
        names = st.names(model.pnames)
        c = [aff(e, names) for e in c_index]
        ai = [aff(e, names) for e in a_index]
        return (isl.Map(model.space(f"{model.tup(st)} -> [[{', '.join(o + c)}] -> [{', '.join(o + ai)}]]"))
                .intersect_domain(model.domains[st.name]).range().unwrap())

    for st in g.users:
        rel += [pairs(st, g.witness[st.name], a.index) for a in st.accesses if a.tensor == acc]
    for st in g.loads + g.stores:
        is_store = any(st is x for x in g.stores)
        rel.append(pairs(st, t_index(st, tensor, is_store), acc_index(st, acc, not is_store)))
    r = rel[0]
    for m in rel[1:]:
        r = r.union(m)
    return r


# ---------------------------------------------------------------- the threads (isl)


def _fmt(inst) -> str:
    return fmt_instance(inst)


def _thread(model, inst) -> dict:
    st = next(s for s in model.stmts if s.sid == inst["stmt"])
    return {lp.var: inst["at"].get(lp.var) for lp in st.loops if lp.axis in HW_AXES}


def condition_goal(groups, tensor: str, acc: str) -> Goal:
    """Formal statement: for all params, no store-back instance s at (o, c) such that no user
    writes cell c at o (s stores back an accumulator that never received an update: the
    value it loaded) is unordered with an instance w (another thread, or another lane) that
    writes c in the original kernel (the users count with their original write of T). Such an
    s would overwrite w's update with a stale copy. Data-dependent user guards make the
    updated set a may-set: then a stale store-back is only `may` and the answer is unknown.

    Violation sets, in order: the sure stale pairs (exact writers; updates of every user
    count), then the may ones (every writer; only exact users' updates count)."""
    statement = (f"forall params: no thread stores back an untouched copy of a {tensor} cell that "
                 f"another, unordered instance updates")

    def clash(sure: bool):
        g = groups()
        model, stores = g.model, g.stores
        users = g.users if sure else [st for st in g.users if model.is_exact(st)]
        sb = g.union([g.oc_map(st, t_index(st, tensor, True)) for st in stores])
        stale = sb.subtract_range(g.cells_of(users, acc=acc)).domain()
        # writers of T cells: real writes of every other statement, and the users' original writes
        writers = []
        store_names = {st.name for st in stores}
        for st in model.stmts:
            if st.name in store_names:
                continue
            if st.name in g.witness:
                if not any(a.write and a.tensor == acc for a in st.accesses):
                    continue
                m = model.access_map(st, Access(tensor, tuple(g.witness[st.name]), True), storage_view=True)
            elif st.accesses[0].tensor == tensor and not st.accesses[0].noop:
                m = model.store_map(st)
            else:
                continue
            if not sure or model.is_exact(st):
                writers.append(m)
        sbw = g.union([model.access_map(st, Access(tensor, t_index(st, tensor, True), True), storage_view=True)
                       for st in stores])
        pairs = sbw.intersect_domain(stale).apply_range(g.union(writers).reverse())
        return pairs.subtract(model.before).subtract(model.before.reverse())

    def stale(pt):
        model = groups().model
        params, (n1, v1, i1), (n2, v2, i2) = instance_pair(model, pt, "after")
        cell = i1["writes"]
        return Decided("refuted", f"the guard lets a thread store back an accumulator that never received the "
                       f"update: at {params_text(params)} {_fmt(i1)} stores back an untouched copy of "
                       f"{cell['tensor']}[{', '.join(map(str, cell['index']))}], which {_fmt(i2)} updates, "
                       f"unordered with it (another thread)", counterexample=Counterexample(
                           Instance(params), [i1, i2], cells=(Cell.from_json(cell),),
                           threads=(Thread.from_json(_thread(model, i1)), Thread.from_json(_thread(model, i2)))))

    def may_stale(pt):  # noqa: ARG001 (an over-approximation: no counterexample)
        return Decided("unknown", "a guard that depends on data may let a thread store back an untouched "
                       f"copy of a {tensor} cell another thread updates")

    return conjunction("privatize_condition", statement,
                           "no thread stores back an untouched copy of a cell another instance updates",
                           [(lambda: clash(True), stale), (lambda: clash(False), may_stale)])


def race_goal(groups, tensor: str, acc: str) -> Goal:
    """Formal statement: for all params, no two distinct instances that are unordered
    (different hardware indices or vectorized lanes) conflict on a cell, one writing, where
    one of them is a transfer (init-load or store-back) or both access the accumulator.
    (Conflicts among the original statements are the kernel's own race obligation. In a kernel
    with barriers the transfers' conflicts between threads are left to the driver's race
    obligation, which runs on every scheduled kernel with hardware loops and orders threads
    by barrier phases; the accumulator's conflicts are still decided here.)

    Violation sets, in order: the conflicting pairs between exactly modelled instances, then
    the rest (a data-dependent guard or index: unknown)."""
    statement = (f"forall params: no transfer of {tensor} and no access of {acc} conflicts with an unordered "
                 "instance")

    @functools.cache
    def split():
        g = groups()
        model, transfers = g.model, g.loads + g.stores
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
        accesses = [(st, a) for st in g.users + transfers for a in st.accesses if a.tensor == acc]
        accw = g.union([model.access_map(st, a) for st, a in accesses if a.write])
        acca = g.union([model.access_map(st, a) for st, a in accesses])
        involved = involved.union(accw.apply_range(acca.reverse())).union(acca.apply_range(accw.reverse()))
        bef = model.before
        return model.split_exact(involved.subtract(bef).subtract(bef.reverse()).subtract(dom.identity()))

    def conflict(pt):
        model = groups().model
        params, (n1, v1, i1), (n2, v2, i2) = instance_pair(model, pt, "after")
        cells = shared_cells(model, v1, model, v2, n1, n2, params)
        if _thread(model, i1) != _thread(model, i2):  # local cells of different threads are distinct
            cells = [c for c in cells if model.program.tensor(c["tensor"]).memory != "local"]
        ctext = ", ".join(f"{c['tensor']}[{', '.join(map(str, c['index']))}]" for c in cells)
        threads = _hw_indices(model, [(n1, v1), (n2, v2)])
        lanes = " (vectorized lanes of one thread)" if threads[0] == threads[1] else ""
        return Decided("refuted", f"race on {ctext} at {params_text(params)}: {_fmt(i1)} and {_fmt(i2)} are "
                       f"unordered{lanes}", counterexample=Counterexample(
                           Instance(params), [i1, i2], {"before": "n/a (new statement)", "after": "unordered"},
                           cells=tuple(Cell.from_json(c) for c in cells),
                           threads=tuple(Thread.from_json(t) for t in threads)))

    def may_conflict(pt):  # noqa: ARG001 (an over-approximation: no counterexample)
        return Decided("unknown", "a transfer may conflict with another thread through a data-dependent "
                       "guard or index")

    return conjunction("race", statement,
                           "the transfers and the accumulator conflict with no unordered instance",
                           [(lambda: split()[0], conflict), (lambda: split()[1], may_conflict)])


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
