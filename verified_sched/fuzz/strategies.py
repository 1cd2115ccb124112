"""Hypothesis strategies for verified_sched programs and schedules (public API).

Compose them in your own hypothesis tests:

    from hypothesis import given
    from verified_sched.fuzz.strategies import fuzz_examples

    @given(fuzz_examples(ops=("split", "interchange"), shapes=("matmul", "stencil")))
    def test_my_backend(ex):
        ...  # ex.program (with its schedule), ex.kernel, ex.sizes (admitted size sets)

Programs
- `programs(...)`: a random well-formed Program: 1-3 params with constraints (`P >= 1` or
  `P >= 2`), 1-`max_tensors` tensors (any precision, optional padding, constant memory with
  `constant=True`), `kernels` kernels of 1-`max_loops` loops (nests, sequences, imperfect
  nests, triangular bounds), guards (affine and data-dependent, with else), quasi-affine
  indices (`floor(i / c)`, `i % c`), `min`/`max` indices, accumulations (+ * max min fma),
  plain assignments, zero statements, casts, where, calls, iterators as values; `parallel=True`
  adds vectorized/block/thread axes and barriers, `dynamic=True` indices read from an i32
  tensor. Every access is in bounds for every admitted size. Optionally a schedule
  (`schedule="loops"`: `schedules_for`; `"any"`: `op_records`) and, with two kernels, a claim.
- `kernels_for(program, name, ...)`: one more kernel over a program's params and tensors.
- `family_programs(shapes=SHAPES)`: a program of one of the kernel families (`SHAPES`):
  "random" (`programs`), "matmul", "reduction", "stencil" (carried dependences), "epilogue"
  (a matmul and an elementwise nest), "tiled" (extents multiples of a tile), "gpu" (blocks,
  threads, a shared tile, with or without the barrier) and "conv" (3x3 convolutions).

Schedules
- `applicable_schedule(program, kernel, ops=OPS, min_ops=1, max_ops=4)`: op records drawn
  against the kernel as the previous ops left it, each kept when it applies (every op of the
  DSL: split with every tail and partition policy, interchange, retype, unroll, partition,
  pad, expand_zero, stage with its options, privatize, tensorize, fuse_epilogue,
  split_reduction, winograd). `ops` restricts the op kinds.
- `schedules_for(program, kernel)`: split/interchange/retype/unroll/pad by loop name only
  (preconditions not guaranteed); `op_records(params)`: any syntactically valid record.

Sizes and whole examples
- `admitted_sizes(program, lo=1, hi=12)`: a size set satisfying the constraints, each
  parameter in [lo, hi] where the constraints allow.
- `sizes_for(program)`: one of `sizes.example_sizes` (minimal, odd, random small sets).
- `fuzz_examples(ops=OPS, shapes=SHAPES, size_range=(1, 12), sizes=2, max_ops=4)`: a
  `FuzzExample(program, kernel, sizes)`: a family program with an applicable schedule and
  `sizes` admitted size sets to run it at (what `vsched fuzz` draws).
- `number(kernel)`: statement ids and identity provenance as the parser assigns them.
"""
from __future__ import annotations

import dataclasses

from hypothesis import strategies as st

from ..core import ir
from ..analysis.sizes import check_sizes, example_sizes
from ..core.errors import UsageError
from .families import SHAPES, family_programs
from .kernels import kernels_for, number, programs
from ..ops.fuzz_names import SAFE_FUNCS, aff_expr
from .records import op_records, schedules_for, sizes_for
from .schedules import OPS, applicable_schedule

__all__ = ["programs", "kernels_for", "number", "SAFE_FUNCS", "aff_expr", "op_records", "schedules_for",
           "sizes_for", "family_programs", "SHAPES", "OPS", "applicable_schedule", "admitted_sizes",
           "fuzz_examples", "FuzzExample"]


@dataclasses.dataclass(frozen=True)
class FuzzExample:
    """A program whose kernel `kernel` has a schedule, and the size sets to run it at."""

    program: ir.Program
    kernel: str
    sizes: tuple  # of dicts


def _admitted(program: ir.Program, sizes: dict) -> bool:
    try:
        check_sizes(program, sizes)
    except UsageError:
        return False
    return True


@st.composite
def admitted_sizes(draw, program: ir.Program, lo: int = 1, hi: int = 12) -> dict:
    """Sizes satisfying `program`'s constraints, each parameter drawn from [lo, hi]; where
    that draw violates a constraint, the smallest admitted example set (example_sizes)."""
    sizes = {p: draw(st.sampled_from(range(lo, hi + 1))) for p in program.params}  # uniform; shrinks to lo
    if _admitted(program, sizes):
        return sizes
    return dict(example_sizes(program, count=1)[0])


@st.composite
def fuzz_examples(draw, ops: tuple = OPS, shapes: tuple = SHAPES, size_range: tuple = (1, 12),
                  sizes: int = 2, max_ops: int = 4) -> FuzzExample:
    """A family program (shapes) with an applicable schedule over `ops` and `sizes` size sets."""
    program = draw(family_programs(tuple(shapes)))
    kernel = program.kernels[0].name
    sched = draw(applicable_schedule(program, kernel, tuple(ops), 1, max_ops))
    program = dataclasses.replace(program, schedules=(ir.Schedule(kernel, sched),) if sched else ())
    lo, hi = size_range
    size_sets = tuple(draw(admitted_sizes(program, lo, hi)) for _ in range(sizes))
    return FuzzExample(program, kernel, size_sets)
