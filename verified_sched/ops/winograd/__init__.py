"""winograd [block]

Rewrite every eligible 3x3 stride-1 convolution nest of the kernel into Winograd F(2x2, 3x3).
A kernel without an eligible nest is left unchanged (0 sites): that is the identity, which is
legal under any profile. `winograd block`: the blocked form (blocked.py), one row of tiles at
a time, its innermost channel loops vectorized; its own goals add the row loop's order, the
weight copy and the independence of the vectorized loops.

The rewrite changes the statement structure wholesale (its minted statements stand for no
single original instance), so the generic provenance-based obligations do not apply:
`GENERIC = ()` tells the driver that this module's own obligations replace them (coverage,
in_bounds and the read set, the transform identity per tile position, profile, and
exactness when the file declares input ranges).

Input ranges for `exactness`: the file's `inputs a, b int in [-8, 8]` or
`inputs a in [-1, 1] grid 1/16` lines (Program.inputs).

The op's folder:
  record.py    the record (`Winograd`: `winograd`, or `winograd block` for the blocked form)
  apply.py     recognition of the sites and the rewrite (`apply`, `rewrite_kernel`)
  blocked.py   the blocked form (one row of tiles at a time) and how the proofs see it
  independence.py  the blocked form's goals: its weight copy, its vectorized loops' independence
  names.py     fresh names of the minted tensors, loops and statement ids
  isl_text.py  IR -> isl text with prefixed names (through polyhedral.affine)
  proofs.py    the goals: profile, coverage, in_bounds, and per site the ones below
  identity.py  the transform identity per tile position (z3 over the reals)
  exact.py     declared input ranges, the `exactness` goal, the `exact_at` hook of `vsched run`
  claim.py     `claim A == B` when one kernel is the rewrite of the other (`claim_goals` hook)
  draw.py      the fuzzer's strategy (`possible`, `draw_applicable`, `FUZZ_WEIGHT`)

Hooks (optional op-module attributes other modules ask every op module for):
`exact_at(program, kernel, sizes, inputs)` (cli/__init__.py `vsched run`: demand bitwise equality) and
`claim_goals(program, a, b, profile, timeout)` (verify.driver.verify_claim: goals deciding a claim).
"""
from __future__ import annotations

from .record import Winograd
from .apply import apply, rewrite_kernel  # noqa: F401 (the op's apply; the rewrite, re-exported)
from .draw import FUZZ_WEIGHT, draw_applicable, possible  # noqa: F401 (the fuzzer's strategy)
from ..spec import OpSpec

RECORD = Winograd  # the op record this module applies (ops/registry.py)

GENERIC = ()  # this op's own obligations replace the generic provenance-based ones

NO_RANGES = ("; exactness is not an obligation: the file declares no input ranges "
             "(e.g. 'inputs a, b int in [-8, 8]')")


def obligations(ctx) -> list:
    """The Winograd goals of ctx's (before, after) pair (proofs.winograd_goals: per site
    profile, coverage, in_bounds, the identity per tile position, exactness), each discharged
    on its own."""
    # here, not at the top: z3 and the proofs load when a file is verified, not parsed
    from .exact import declared_ranges
    from .proofs import winograd_goals

    ranges = declared_ranges(ctx.before)
    return winograd_goals(ctx.before, ctx.after, ctx.kernel, ctx.profile, ctx.timeout, ranges,
                          "" if ranges else NO_RANGES, getattr(ctx.op, "block", False))


def exact_at(program, kernel: str, sizes: dict, inputs: str) -> bool:
    """`vsched run`'s hook: exact.exact_at (the rewrite proved exact at these sizes)."""
    from .exact import exact_at as exact

    return exact(program, kernel, sizes, inputs)


def claim_goals(program, a: str, b: str, profile: str, timeout: float):
    """verify_claim's hook: claim.claim_goals (None unless one kernel is the rewrite of the other)."""
    from .claim import claim_goals as goals

    return goals(program, a, b, profile, timeout)


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=GENERIC,
              own_reassociates=False, exact_rounding=False, structural=True, fuzz_weight=FUZZ_WEIGHT,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=None, by_name_weight=0,
              draw_recipe=None, exact_at=exact_at,
              claim_goals=claim_goals)
