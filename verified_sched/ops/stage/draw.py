"""The fuzzer's strategy for stage (verified_sched/fuzz/schedules.py): a global tensor read
under some loops staged over one or two of them, with any options, or the tiled-matmul recipe
ending in a tile of a or b (shared, maybe swizzled, on the GPU variant)."""
from __future__ import annotations

from ...core import ir
from .. import kernel_parts, tiled_recipe
from .apply import SWIZZLES, Stage

FUZZ_WEIGHT = 3  # applies to few kernels: drawn more often where it can


def possible(program: ir.Program, kernel_name: str) -> bool:
    return any(loops and ir.reads(s.value) for s, loops in kernel_parts.statements(program.kernel(kernel_name)))


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """A stage of a global tensor read by a statement, over one or two consecutive loops
    around it (None when no statement under a loop reads global memory)."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    kernel = program.kernel(kernel_name)
    cands = []
    for s, loops in kernel_parts.statements(kernel):
        for load in ir.reads(s.value):
            if program.tensor(load.tensor).memory == "global" and loops:
                cands.append((load.tensor, loops))
    if not cands:
        return None
    tensor, loops = draw(st.sampled_from(cands))
    hw = any(ir.is_hardware(lp.axis) for lp in loops)
    n = draw(st.integers(1, min(2, len(loops))))
    start = draw(st.integers(0, len(loops) - n))
    over = tuple(lp.var for lp in loops[start:start + n])
    shared = hw and draw(st.integers(0, 3)) > 0
    opt = lambda s: draw(st.none() | s) if draw(st.integers(0, 2)) == 0 else None  # noqa: E731
    return Stage(tensor, over, kernel_parts.fresh(program, kernel, f"{tensor}_tile"), shared,
                 opt(st.sampled_from((2, 4, 8))) if shared else None,
                 opt(st.sampled_from(SWIZZLES)), opt(st.integers(1, 3)),
                 draw(st.integers(0, 5)) == 0, draw(st.sampled_from((1, 1, 1, 2))),
                 opt(st.sampled_from(("f32", "f64"))))


def draw_recipe(draw, program: ir.Program, kernel_name: str, ops) -> list | None:
    """The tiled-matmul recipe (ops/tiled_recipe.py), on the GPU variant over blocks and
    threads, ending in a tile of a over ii, ki or of b over ki, ji; None (drawing nothing
    more) when not taken."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    tiling = tiled_recipe.draw_tiling(draw, program, kernel_name, ops)
    if tiling is None:
        return None
    gpu = draw(st.booleans())
    if gpu:
        tiling = tiling[:4] + list(tiled_recipe.BLOCKS + tiled_recipe.THREADS)
    src = draw(st.sampled_from((("a", ("ii", "ki")), ("b", ("ki", "ji")))))
    return tiling + [Stage(src[0], src[1], f"{src[0]}_tile", gpu, None,
                           draw(st.sampled_from((None,) + SWIZZLES)) if gpu else None, None, False, 1, None)]
