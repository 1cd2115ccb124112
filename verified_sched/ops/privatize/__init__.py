"""privatize T over L -> ACC: the accumulator privatization op, in one folder.

- `apply.py`: the record (`Privatize`, `RECORD`), the analysis (`analyze` -> `Plan`) and the pure rewrite
  (`apply`: the init-load and store-back nests around L, T's accesses under L redirected to
  the local tile ACC);
- `proofs.py`: its goals (`obligations`: coverage by construction, decided structurally;
  dataflow, privatize_condition and race, isl emptiness queries) and `GENERIC`, the generic
  obligations it keeps;
- `draw.py`: the fuzzer's strategy (`possible`, `draw_applicable`, `FUZZ_WEIGHT`).

proofs imports apply's helpers; apply imports nothing back. This module is the interface
the op registry (ops/registry.py) reads.
"""
from __future__ import annotations

from .apply import RECORD, Plan, Privatize, analyze, apply, load_sid, redirect, store_sid
from .draw import FUZZ_WEIGHT, draw_applicable, possible
from .proofs import GENERIC, obligations, undo
from ..spec import OpSpec

__all__ = ["FUZZ_WEIGHT", "GENERIC", "RECORD", "Plan", "Privatize", "analyze", "apply", "draw_applicable", "load_sid",
           "obligations", "possible", "redirect", "store_sid", "undo"]


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=GENERIC,
              own_reassociates=False, exact_rounding=False, structural=True, fuzz_weight=FUZZ_WEIGHT,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=None, by_name_weight=0,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
