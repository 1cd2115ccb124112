"""The fuzzer's strategy for tensorize (verified_sched/fuzz/schedules.py): a perfect nest of
three loops with a lane width, or the tiled-matmul recipe ending in the block over ii, ji, ki."""
from __future__ import annotations

from ...core import ir
from .. import kernel_parts, tiled_recipe
from .apply import Tensorize

FUZZ_WEIGHT = 4  # applies to few kernels: drawn more often where it can


def possible(program: ir.Program, kernel_name: str) -> bool:
    return bool(kernel_parts.chains3(program.kernel(kernel_name)))


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """Tensorize one of the kernel's perfect three-loop nests (None when it has none)."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    chains = kernel_parts.chains3(program.kernel(kernel_name))
    return Tensorize(*draw(st.sampled_from(chains)), draw(st.sampled_from((32, 32, 16)))) if chains else None


def draw_recipe(draw, program: ir.Program, kernel_name: str, ops) -> list | None:
    """The tiled-matmul recipe (ops/tiled_recipe.py), its tiles maybe over blocks, ending in
    the tensor-core block over the point loops; None (drawing nothing more) when not taken."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    tiling = tiled_recipe.draw_tiling(draw, program, kernel_name, ops)
    if tiling is None:
        return None
    tiling += list(tiled_recipe.BLOCKS) if draw(st.booleans()) else []
    return tiling + [Tensorize("ii", "ji", "ki", draw(st.sampled_from((32, 16))))]
