"""The fuzzer's strategy for privatize (verified_sched/fuzz/schedules.py): a reduction's
tensor privatized over its reduction loop into a fresh accumulator."""
from __future__ import annotations

from ...core import ir
from .. import drawing, kernel_parts
from .apply import Privatize

FUZZ_WEIGHT = 2  # applies to few kernels: drawn more often where it can
possible = kernel_parts.has_reductions


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """Privatize one (tensor, reduction loop) of the kernel (None when it has none)."""
    found = drawing.reduction(draw, program, kernel_name)
    if found is None:
        return None
    kernel, t, v = found
    return Privatize(t, v, kernel_parts.fresh(program, kernel, f"{t}_acc"))
