"""Launch scope, decided by isl: does every read of a shared or local tensor see a value of
its own launch? (README, Semantics: "Launch scope".)

Each top-level statement is a launch. A launch with hardware loops starts with fresh shared
and local memory (undefined until written) and its values are gone when it ends; launches
without hardware loops share one storage. So a read instance r of a shared/local cell sees
a defined value of its own lifetime when:

- r's launch has hardware loops: some store of the same cell (the same per-block or
  per-thread copy) in r's launch runs before r, in program order or through a barrier
  (`race.barrier_order`). Every store between that one and r is then in r's launch too
  (launches run one after another), so r's last writer is of its own launch;
- r's launch has none: some store of the same cell in r's launch runs before r, or no launch
  with hardware loops before r's stores that cell (r's last writer, if any, is then of the
  shared storage of the launches without hardware loops).

`bad_reads` is the set of read instances for which neither holds: empty means proved. The
covering stores must be exactly modelled (no data-dependent guard, bound or index: a may-store
need not run); otherwise `inexact` names the statement and nothing is proved.
"""
from __future__ import annotations

import islpy as isl

from verified_sched.core import ir

from .model import KernelModel
from .order import piece
from .race import barrier_order


def hardware_tops(model: KernelModel) -> set:
    """The top-level statements (launches) with hardware loops."""
    return {k for k, s in enumerate(model.kernel.body)
            if any(isinstance(n, ir.For) and ir.is_hardware(n.axis) for n in ir.walk(s))}


def bad_reads(model: KernelModel, tensors) -> tuple:
    """(read instances of `tensors` that may not see a value of their own launch (a union set
    over the reading statements), the name of an inexactly modelled covering store or "")."""
    hw_tops = hardware_tops(model)
    sync = barrier_order(model)
    bad = None
    inexact = ""
    for r_st in model.stmts:
        for acc in r_st.accesses:
            if acc.write or acc.tensor not in tensors:
                continue
            reads = isl.UnionMap.from_map(model.read_map(r_st, acc))
            writers = [w for w in model.stmts if w.accesses[0].write and w.accesses[0].tensor == acc.tensor
                       and not w.accesses[0].noop]
            own = [w for w in writers if w.top == r_st.top]
            covered = reads.domain().subtract(reads.domain())
            for w in own:
                if not model.is_exact(w):
                    inexact = inexact or w.sid
                    continue
                same = reads.apply_range(isl.UnionMap.from_map(model.store_map(w)).reverse())  # r -> w
                order = isl.UnionMap.from_map(piece(model, w, r_st)) if piece(model, w, r_st) is not None else None
                ordered = sync.reverse() if order is None else order.union(sync).reverse()
                covered = covered.union(same.intersect(ordered).domain())
            left = reads.domain().subtract(covered)
            if r_st.top not in hw_tops:
                earlier = [w for w in writers if w.top < r_st.top and w.top in hw_tops]
                hit = left.subtract(left)
                for w in earlier:
                    hit = hit.union(reads.intersect_domain(left).apply_range(
                        isl.UnionMap.from_map(model.store_map(w)).reverse()).domain())
                left = hit
            bad = left if bad is None else bad.union(left)
    if bad is None:
        bad = model.domain.subtract(model.domain)
    return bad, inexact


__all__ = ["bad_reads", "hardware_tops"]
