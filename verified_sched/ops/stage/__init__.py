"""The `stage` op (stage SRC over L1, L2 -> TILE [shared] [cooperative=W] [swizzle=elem|b128]
[pad_stride=P] [hoisted] [pipeline=D] [prec=P]): the op-module interface the registry reads.

- apply.py: its record `Stage` (fields and syntax) and the rewrite (the op's semantics are
  described there); hoisted.py: the packed copy of a constant source; tile.py: the tile's
  layout and the helpers both share;
- proofs.py: its goals; dataflow.py: the tile's exact value-based dataflow (isl);
  swizzle.py: the swizzle bijection and the pipeline rotation (z3);
- draw.py: the fuzzer's strategy (`possible`, `draw_applicable`, `draw_recipe`).
"""
from __future__ import annotations

from .apply import SWIZZLES, Stage, apply
from .draw import FUZZ_WEIGHT, draw_applicable, draw_recipe, possible
from .proofs import obligations
from ..spec import OpSpec

RECORD = Stage  # the op record this module applies (ops/registry.py)

GENERIC = ("in_bounds", "independence")
# a stage only redirects reads to a copy: every value is computed exactly as before
EXACT_ROUNDING = True

__all__ = ["RECORD", "GENERIC", "EXACT_ROUNDING", "FUZZ_WEIGHT", "SWIZZLES", "Stage", "apply", "draw_applicable",
           "draw_recipe", "obligations", "possible"]


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=GENERIC,
              own_reassociates=False, exact_rounding=EXACT_ROUNDING, structural=True, fuzz_weight=FUZZ_WEIGHT,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(("shared", "local"), "cooperative", "swizzle", "pad_stride", "prec", "hoisted", "pipeline"),
              draw_by_name=None, by_name_weight=0,
              draw_recipe=draw_recipe, exact_at=None,
              claim_goals=None)
