"""The fuzzer's tiled-matmul recipe: on a `tiled` family kernel (`for i in 0 .. T * TN`, j, k
alike), split i, j, k by the tile T and interchange to bi, bj, ko, ii, ji, ki, the start
random single ops would almost never reach. The ops that end it (tensorize, stage) draw it in
their `draw_recipe` hook (verified_sched/fuzz/schedules.py), adding the retypes and the op.
"""
from __future__ import annotations

from ..core import ir
from . import kernel_parts
from .interchange import Interchange
from .retype import Retype
from .split import Split

# the ops the recipe starts with: drawn only when the schedule may use them
NEEDS = frozenset({Split.SYNTAX.keyword, Interchange.SYNTAX.keyword})
BLOCKS = (Retype("bi", "block.y"), Retype("bj", "block.x"))  # the tile loops over blocks
THREADS = (Retype("ii", "thread.y"), Retype("ji", "thread.x"))  # the point loops over threads


def tiled_matmul(kernel: ir.Kernel):
    """((i, j, k), T) for a `tiled` family kernel (loops `for i in 0 .. T * TN`), else None."""
    chains = kernel_parts.chains3(kernel)
    if not chains:
        return None
    first = next(f for f in kernel_parts.loop_nodes(kernel) if f.var == chains[0][0])
    hi = first.hi
    if isinstance(hi, ir.BinOp) and hi.op == "*" and isinstance(hi.a, ir.Int):
        return chains[0], hi.a.value
    return None


def draw_tiling(draw, program: ir.Program, kernel_name: str, ops) -> list | None:
    """The six tiling ops (split i, j, k by T; interchange to bi, bj, ko, ii, ji, ki), or None,
    drawing nothing, unless `ops` (op keywords) holds NEEDS and the kernel is a tiled matmul,
    and None too when a coin says to draw the op alone."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    if not NEEDS <= set(ops):
        return None
    found = tiled_matmul(program.kernel(kernel_name))
    if found is None or not draw(st.booleans()):
        return None
    (i, j, k), t = found
    return [Split(i, t, "bi", "ii"), Split(j, t, "bj", "ji"), Split(k, t, "ko", "ki"),
            Interchange("ii", "bj"), Interchange("ji", "ko"), Interchange("ii", "ko")]
