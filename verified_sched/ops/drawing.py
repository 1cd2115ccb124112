"""Hypothesis helpers the ops' fuzz strategies share (their `draw_applicable`, over the parts
of ops/kernel_parts.py). Hypothesis is an optional dependency: it is imported inside each
function, so the ops load without it.
"""
from __future__ import annotations

from ..core import ir
from . import kernel_parts


def pick(draw, options):
    """One of `options` (a non-empty sequence), drawn: `draw(st.sampled_from(options))`."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    return draw(st.sampled_from(options))


def reduction(draw, program: ir.Program, kernel_name: str):
    """(kernel, tensor, loop) with one of the kernel's reductions (kernel_parts.reductions)
    drawn, or None, drawing nothing, when it has none."""
    kernel = program.kernel(kernel_name)
    reds = kernel_parts.reductions(kernel)
    return (kernel, *pick(draw, reds)) if reds else None
