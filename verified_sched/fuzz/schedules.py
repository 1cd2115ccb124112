"""Schedules drawn to apply: each op is drawn against the kernel as the previous ops left it
(its loops, nests, reductions, zeroed and read tensors), applied, and redrawn when its
preconditions fail, so most drawn schedules run to the end.

Each op draws itself, by the hooks of its spec (ops/spec.OpSpec): `possible(program,
kernel_name)` (anything to draw over?), `draw_applicable(draw, program, kernel_name)` (a
record, or None), `fuzz_weight` (how often it is drawn among the possible ops) and the
optional `draw_recipe(draw, program, kernel_name, ops)` (several ops ending in it, e.g.
tensorize and stage after tiling a tiled matmul: ops/tiled_recipe.py; None when not taken).
This module names no op.
"""
from __future__ import annotations

from hypothesis import strategies as st

from ..core import ir
from ..core.errors import ScheduleError, VschedError
from ..core.op_syntax import op_name
from ..ops import apply_op
from ..ops.registry import OP_NAMES, spec_named

OPS = tuple(OP_NAMES)  # every op of the DSL (ops/registry.py)


def weight(kind: str) -> int:
    """How many times op `kind` is entered among the possible ops drawn from (its fuzz_weight)."""
    return spec_named(kind).fuzz_weight


def possible(kind: str, cur: ir.Program, kname: str) -> bool:
    """Whether the kernel has anything an op of `kind` could be drawn over (its module's hook)."""
    return bool(spec_named(kind).possible(cur, kname))


def draw_op(draw, kind: str, cur: ir.Program, kname: str):
    """An op record of `kind` over the current kernel, or None when the kernel has nothing it
    could apply to (its module's `draw_applicable`)."""
    return spec_named(kind).draw_applicable(draw, cur, kname)


def draw_ops(draw, kind: str, cur: ir.Program, kname: str, ops: tuple) -> list:
    """The ops to try next for a drawn `kind`: its recipe when the op has one and takes it
    (only the ops among `ops`), else the op alone ([] when it has nothing to apply to)."""
    recipe = spec_named(kind).draw_recipe
    seq = recipe(draw, cur, kname, ops) if recipe is not None else None
    if seq is not None:
        return [op for op in seq if op_name(op) in ops]
    op = draw_op(draw, kind, cur, kname)
    return [op] if op is not None else []


# ---------------------------------------------------------------- schedules


@st.composite
def applicable_schedule(draw, program: ir.Program, kname: str, ops: tuple = OPS, min_ops: int = 1,
                        max_ops: int = 4, attempts: int = 6, precondition_rate: float = 0.05) -> tuple:
    """A schedule (tuple of op records) for kernel `kname` of `program`, each op drawn from
    `ops` against the kernel as the previous ops left it and kept when it applies (redrawn up
    to `attempts` times otherwise). With probability `precondition_rate` an op that does not
    apply is kept as the last op, so precondition refutations are exercised too."""
    unknown = [o for o in ops if o not in OP_NAMES]
    if unknown or not ops:
        raise ValueError(f"unknown schedule op(s) {unknown} (known: {', '.join(OP_NAMES)})")
    cur, out = program, []
    want = draw(st.integers(min_ops, max_ops))
    rate = int(1 / precondition_rate) if precondition_rate > 0 else 0
    while len(out) < want:
        kinds = tuple(k for k in ops if possible(k, cur, kname) for _ in range(weight(k)))
        for _ in range(attempts if kinds else 0):
            seq = draw_ops(draw, draw(st.sampled_from(kinds)), cur, kname, ops)
            if not seq:
                continue
            try:
                nxt = cur
                for op in seq:
                    nxt = apply_op(nxt, kname, op)
            except (ScheduleError, VschedError):
                if rate and draw(st.integers(0, rate - 1)) == 0:
                    return tuple(out + seq)
                continue
            out += seq
            cur = nxt
            break
        else:
            break
    return tuple(out)
