"""winograd

Rewrite every eligible 3x3 stride-1 convolution nest of the kernel into Winograd F(2x2, 3x3)
(verified_sched/rewrites/winograd.py). A kernel without an eligible nest is left
unchanged (0 sites): that is the identity, which is legal under any profile.

The rewrite changes the statement structure wholesale (its minted statements stand for no
single original instance), so the generic provenance-based obligations do not apply:
`GENERIC = ()` tells the driver that this module's own obligations replace them (coverage,
in_bounds and the read set, the transform identity per tile position, profile, and
exactness when the file declares input ranges).

Input ranges for `exactness`: the file's `inputs a, b int in [-8, 8]` or
`inputs a in [-1, 1] grid 1/16` lines (Program.inputs).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .. import ir
from ..errors import Loc
from ..op_syntax import OpRecord, Syntax, loc_field


@dataclass(frozen=True)
class Winograd(OpRecord):
    SYNTAX = Syntax("winograd")
    loc: Optional[Loc] = loc_field()


RECORD = Winograd  # the op record this module applies (ops/registry.py)

GENERIC = ()  # this op's own obligations replace the generic provenance-based ones
REPLACES_GENERIC = True


def apply(program: ir.Program, kernel_name: str, op: Winograd) -> ir.Program:
    """The program with every eligible nest of the kernel rewritten (identity if none)."""
    from ..rewrites.winograd import apply_winograd  # here: the rewrite and its z3 proofs load on use
    from .common import get_kernel

    get_kernel(program, kernel_name, op)
    return apply_winograd(program, kernel_name)


def obligations(ctx) -> list:
    """The Winograd obligations of ctx's (before, after) pair: one procedure deciding the
    kinds of rewrites/winograd_proofs.py (coverage, in_bounds, equivalence, exactness,
    profile), each answer with its own statement."""
    from ..obligations import Decided, Goal, Procedure
    from ..rewrites.winograd_exact import declared_ranges
    from ..rewrites.winograd_proofs import winograd_results

    ranges = declared_ranges(ctx.before)
    note = ("; exactness is not an obligation: the file declares no input ranges "
            "(e.g. 'inputs a, b int in [-8, 8]')")

    def run():
        # z3 queries are also capped by the deadline (verified_sched.budget)
        results = winograd_results(ctx.before, ctx.after, ctx.kernel, ctx.profile, ctx.timeout, ranges)
        return [(r.kind, Decided(r.status, r.message + (note if r.kind == "profile" and not ranges else ""),
                                 r.statement, r.counterexample, engine=r.engine)) for r in results]
    return [Goal("equivalence", "the winograd obligations", Procedure(run))]
