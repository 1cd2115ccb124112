"""The fuzzer's strategy for split_reduction (verified_sched/fuzz/schedules.py): a reduction
loop split into 1-8 blocks with fresh loop and partials names."""
from __future__ import annotations

from ...core import ir
from .. import drawing, kernel_parts
from .apply import SplitReduction

FUZZ_WEIGHT = 2  # applies to few kernels: drawn more often where it can
possible = kernel_parts.has_reductions


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """Split one (tensor, reduction loop) of the kernel into 1-8 blocks (None when it has
    none)."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    found = drawing.reduction(draw, program, kernel_name)
    if found is None:
        return None
    kernel, t, v = found
    fresh = kernel_parts.fresh
    return SplitReduction(v, t, draw(st.integers(1, 8)), fresh(program, kernel, v + "b"),
                          fresh(program, kernel, v + "k"), fresh(program, kernel, t + "_part"))
