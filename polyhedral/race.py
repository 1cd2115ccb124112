"""Races between hardware threads and barrier uniformity.

race, formal statement: for all parameter values, no two instances executed by different
hardware threads of one launch conflict (same cell of a shared or global tensor, one of them
writing) unless they are threads of one block in different barrier phases. Different blocks
never synchronize: a conflict between blocks is a race whatever the barriers.

Which kind reports what (one rule): `race` is the whole-kernel check over every pair of
hardware threads (barrier phases, blocks; a statement outside every thread loop runs on
thread 0 only, as in every backend: polyhedral/phases.py), run on the kernel itself and on the result of every op whose kernel has hardware loops.
`independence` is the per-loop check of one vectorized or hardware loop's iterations (for a
thread loop in a kernel with barriers: in the same phase). A hand-written kernel whose blocks
conflict is refuted as both; an op that makes a loop parallel is refuted as `independence`
(the generic check of new parallel loops) and as `race`.

barrier_uniformity, formal statement: for every barrier, all parameter values, every block and
every instance of the barrier's enclosing serial loops, either every thread of the block
reaches it or none does. Refuted with two threads of one block, one reaching it and one not.
"""
from __future__ import annotations

from functools import cache

import islpy as isl

from verified_sched.core.counterexample import Cell, Counterexample, Instance, Thread
from verified_sched.core.obligations import Decided
from verified_sched.core.cex_text import fmt_instance

from .describe import coords, instance, param_values, shared_cells
from .isltools import params_text
from .memo import model_key
from .model import KernelModel
from .phases import AXES, Phases

STATEMENT = ("forall params: no two instances run by different hardware threads of one launch conflict "
             "on a cell (one writing) unless they are threads of one block in different barrier phases")
UNI_STATEMENT = ("forall params, barriers, blocks and enclosing serial iterations: every thread of the "
                 "block reaches the barrier instance or none does")


def phases_of(model: KernelModel) -> Phases:
    ph = getattr(model, "phases_cache", None)
    if ph is None:
        ph = Phases(model)
        model.phases_cache = ph
    return ph


def barrier_uniformity(model: KernelModel) -> Decided:
    ph = phases_of(model)
    if ph.unsupported:
        return Decided("unknown", ph.unsupported, UNI_STATEMENT)
    bad = [s for s in ph.sites if s.status == "refuted"]
    if bad:
        return Decided("refuted", bad[0].reason, UNI_STATEMENT, bad[0].witness)
    unclear = ph.unclear_sites()
    if unclear:
        return Decided("unknown", unclear[0].reason, UNI_STATEMENT)
    return Decided("proved", f"{len(ph.sites)} barrier(s), each reached by every thread of its block or by none",
                   UNI_STATEMENT)


def _hw(ph: Phases, st, vals) -> tuple:
    top = ph.axes(st.top)
    h = vals[st.depth:]
    block = {a: v for a, v in zip(AXES[:3], h[:3]) if a in top}
    thread = {a: v for a, v in zip(AXES[3:], h[3:]) if a in top}
    return block, thread


def _who(block: dict, thread: dict) -> str:
    b = ", ".join(f"{k}={v}" for k, v in block.items()) or "the only block"
    t = ", ".join(f"{k}={v}" for k, v in thread.items()) or "the only thread"
    return f"block ({b}) thread ({t})"


def race_parts(model: KernelModel, label="kernel") -> list:
    """The race obligation (module docstring) as queries for obligations.AllOf: the exactly
    modelled conflicting thread pairs of one block and of different blocks (IslEmpty: a sample
    is the refutation), then those through data-dependent guards or indices (non-empty:
    unknown), then conditions whose reads are not modelled (unknown)."""
    from verified_sched.core.obligations import IslEmpty
    key = model_key(model)
    if _RACE_FREE.get(key):  # every part empty before: no part left (race_proved answers)
        return []
    ph = phases_of(model)
    if ph.unsupported:
        return [Decided("unknown", ph.unsupported)]
    intra, cross = ph.races
    empty = set()  # the parts (0..3) isl found empty

    def noted(part, build):
        """`build`, noting an empty answer: the four parts empty and no hidden read, the
        model's race is known free (`_RACE_FREE`). By part, so that a part decided twice (a
        coalesced attempt, then alone) is counted once."""
        def violations():
            out = build()
            if out.is_empty():  # (the caller asks again: answered from what this test leaves)
                empty.add(part)
                if len(empty) == 4 and not model.unmodelled_guard_reads:
                    if len(_RACE_FREE) >= RACE_FREE_LIMIT:
                        _RACE_FREE.clear()
                    _RACE_FREE[key] = True
            return out
        return violations

    def witness(pt, across):
        if not across and ph.unclear_sites():
            return Decided("unknown", f"threads of one block conflict unless a barrier orders them, and "
                           f"{ph.unclear_sites()[0].reason}")
        return _refuted(model, ph, pt, across, label)
    may = Decided("unknown", "threads may conflict through a data-dependent guard or index")
    pairs = [cache(lambda rel=rel: ph.exact_pairs(rel)) for rel in (intra, cross)]
    parts = [IslEmpty(noted(k, lambda k=k: pairs[k]()[0]), lambda pt, across=across: witness(pt, across))
             for k, across in ((0, False), (1, True))]
    parts += [IslEmpty(noted(2 + k, lambda k=k: pairs[k]()[1]), lambda pt: may) for k in (0, 1)]
    hidden = model.unmodelled_guard_reads
    if hidden:
        parts.append(Decided("unknown", f"a condition reads {', '.join(sorted(hidden))}, which the kernel writes, "
                             "where the guarded statement does not run: those reads are not in the race model"))
    return parts


# Models (by their IR: memo.model_key) whose race isl found free: every part of race_parts
# empty, no condition read outside the model. A fuzz campaign verifies one program many times.
_RACE_FREE: dict = {}
RACE_FREE_LIMIT = 2_000  # entries; the store starts afresh past it


def race_proved(model: KernelModel) -> Decided:
    n = len(phases_of(model).good_sites())
    return Decided("proved", "no two hardware threads conflict" + (f" outside the order of {n} barrier(s)" if n else ""))


def _refuted(model, ph: Phases, pt, across: bool, label) -> Decided:
    p, tup = coords(pt)
    params = param_values(model, p)
    (x1, v1), (x2, v2) = tup
    s1, s2 = model.stmt(x1[2:]), model.stmt(x2[2:])
    i1 = instance(model, s1.name, v1[:s1.depth], params, label)
    i2 = instance(model, s2.name, v2[:s2.depth], params, label)
    b1, t1 = _hw(ph, s1, v1)
    b2, t2 = _hw(ph, s2, v2)
    for inst, b, t in ((i1, b1, t1), (i2, b2, t2)):
        inst["block"], inst["thread"] = b, t
    cells = shared_cells(model, v1[:s1.depth], model, v2[:s2.depth], s1.name, s2.name, params)
    ctext = ", ".join(f"{c['tensor']}[{', '.join(map(str, c['index']))}]" for c in cells)
    extra = {}
    if across:
        why = "run in different blocks, which no barrier orders"
        order = {"before": "unordered (different blocks)", "after": "unordered"}
    else:
        phase = ph.phase_of(s1, v1, params)
        extra["phase"] = phase
        why = (f"run in different threads of one block in the same barrier phase {phase}"
               if ph.good_sites() else "run in different threads of one block with no barrier between them")
        order = {"before": f"unordered (same barrier phase {phase})", "after": "unordered"}
    cex = Counterexample(Instance(params), [i1, i2], order, cells=tuple(Cell.from_json(c) for c in cells),
                         threads=(Thread(b1, t1), Thread(b2, t2)), extra=extra)
    return Decided("refuted", f"race on {ctext} at {params_text(params)}: {fmt_instance(i1)} in "
                   f"{_who(b1, t1)} and {fmt_instance(i2)} in {_who(b2, t2)} {why}", STATEMENT, cex)


def thread_unordered(model: KernelModel) -> isl.UnionMap:
    """Instance pairs (model space) run by different threads of one block in one phase: what
    the independence of a thread loop keeps in a kernel with barriers."""
    ph = phases_of(model)
    return ph.to_instances(ph.races[0])


def barrier_order(model: KernelModel) -> isl.UnionMap:
    """Instance pairs (model space) that barriers order: x runs before a barrier instance in
    its thread and that barrier instance before y in y's thread, one block (README
    Semantics, "Barriers"). Together with the program order `model.before` this is the order
    every execution keeps, so the ops keep it too (checks.dependence). Only barriers proved
    uniform order anything (a divergent or unmodelled one orders nothing); the relation is
    empty for a kernel without barriers, or whose geometry has no affine form. A barrier
    outside every block and thread loop orders nothing program order does not already."""
    cached = getattr(model, "barrier_order_cache", None)
    if cached is not None:
        return cached
    out = model.union_map([])
    if model.barrier_stmts:
        ph = phases_of(model)
        if not ph.unsupported and ph.good_sites():
            out = ph.to_instances(ph.separated(ph.good_sites()))
    model.barrier_order_cache = out
    return out


__all__ = ["race_parts", "race_proved", "barrier_uniformity", "thread_unordered", "phases_of", "barrier_order"]
