"""split_reduction L of T blocks=B -> Lb, Li, P: the deterministic two-pass reduction.

The op-module interface the registry reads (ops/registry.py). The rewrite, its decisions and
its record are in apply.py; the goals in proofs.py (the affine form) and proofs_dynamic.py (the
dynamic scatter form). apply imports neither. The fuzzer's strategy is draw.py.
"""
from __future__ import annotations

from . import proofs, proofs_dynamic
from .apply import (GENERIC, MAX_BLOCKS, OWN_REASSOCIATES, RECORD, SplitReduction, apply, combine_op,
                    initial_value, recognize, tree)
from .draw import FUZZ_WEIGHT, draw_applicable, possible
from ..spec import OpSpec

__all__ = ["FUZZ_WEIGHT", "GENERIC", "MAX_BLOCKS", "OWN_REASSOCIATES", "RECORD", "SplitReduction", "apply", "combine_op",
           "draw_applicable", "initial_value", "obligations", "possible", "recognize", "tree"]


def obligations(ctx) -> list:
    """The op's goals (injective_partials, equivalence, reassociation) for the form it
    recognized: affine (proofs.py) or dynamic scatter (proofs_dynamic.py)."""
    p = proofs.parts(ctx)
    return (proofs_dynamic if p.found.dynamic else proofs).goals(ctx, p)


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=GENERIC,
              own_reassociates=OWN_REASSOCIATES, exact_rounding=False, structural=True, fuzz_weight=FUZZ_WEIGHT,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=None, by_name_weight=0,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
