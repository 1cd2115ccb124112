"""The one `scheduled` helper of the tests: a program (or DSL text) after its schedule,
through `verified_sched.ops.apply_schedule` (each op's result is checked well formed by
`apply_op`)."""
from __future__ import annotations

from verified_sched.dsl import parse_text
from verified_sched.ops import apply_schedule


def scheduled(program, kernel: str | None = None, upto: int | None = None):
    """The program after the first `upto` ops (all when None) of `kernel`'s schedule (by
    default the first schedule's kernel); `program` may be DSL text."""
    if isinstance(program, str):
        program = parse_text(program)
    if kernel is None:
        kernel = program.schedules[0].kernel
    return apply_schedule(program, kernel, upto)
