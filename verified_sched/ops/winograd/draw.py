"""The fuzzer's strategy for winograd (verified_sched/fuzz/schedules.py): the op has no
arguments, so it is drawn over any kernel deep enough to hold a convolution; its
recognition decides whether it applies."""
from __future__ import annotations

from ...core import ir
from .. import kernel_parts
from .record import Winograd

FUZZ_WEIGHT = 6  # applies to few kernels (convolutions): drawn more often where it can


def possible(program: ir.Program, kernel_name: str) -> bool:
    return len(kernel_parts.loop_nodes(program.kernel(kernel_name))) >= 6


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """The op itself (it draws nothing)."""
    return Winograd()
