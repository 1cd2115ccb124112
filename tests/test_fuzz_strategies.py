"""The public fuzz strategies: over ~200 draws every op of the DSL is drawn, at least 40% of
the schedules have two or more ops, and the drawn schedules apply; an op kind without a
generator is an error, not a silently different op."""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, seed, settings

from verified_sched.ops import schedule as S
from verified_sched.core.errors import ScheduleError
from verified_sched.fuzz import records
from verified_sched.fuzz.strategies import OPS, fuzz_examples, op_records
from verified_sched.ops import apply_op
from verified_sched.analysis.sizes import check_sizes


def test_every_op_drawn_and_schedules_long_enough():
    ops, lengths, applied = Counter(), Counter(), Counter()

    @seed(12)
    @settings(max_examples=200, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(fuzz_examples())
    def draw(ex):
        sched = ex.program.schedule_for(ex.kernel).ops if ex.program.schedules else ()
        lengths[len(sched)] += 1
        ops.update(S.op_name(o) for o in sched)
        cur = ex.program
        try:
            for op in sched:
                cur = apply_op(cur, ex.kernel, op)
            applied["yes"] += 1
        except ScheduleError:
            applied["no"] += 1
        for sizes in ex.sizes:
            check_sizes(ex.program, sizes)

    draw()
    total = sum(lengths.values())
    assert total == 200
    assert set(ops) == set(OPS), set(OPS) - set(ops)
    assert sum(v for k, v in lengths.items() if k >= 2) >= 0.4 * total, lengths
    assert applied["yes"] >= 0.75 * total, applied


def test_restricted_ops_only(monkeypatch):
    @settings(max_examples=30, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(fuzz_examples(ops=("split", "pad"), shapes=("matmul",)))
    def draw(ex):
        for op in ex.program.schedule_for(ex.kernel).ops if ex.program.schedules else ():
            assert S.op_name(op) in ("split", "pad")

    draw()


def test_op_records_draw_every_registered_op():
    # the syntactic strategy comes from the registry: every op, none fuzzed as another
    from verified_sched.ops.registry import OP_NAMES

    seen = set()

    @settings(max_examples=300, database=None)
    @given(op_records())
    def draw(op):
        seen.add(S.op_name(op))
        assert type(op) is OP_NAMES[S.op_name(op)]

    draw()
    assert seen == set(OP_NAMES)


def test_an_unregistered_op_record_is_an_internal_error():
    import dataclasses
    from typing import Optional

    from verified_sched.core.errors import InternalError
    from verified_sched.core.op_syntax import OpRecord, Syntax
    from verified_sched.ops.registry import module_for as op_module

    @dataclasses.dataclass(frozen=True)
    class Bogus(OpRecord):
        SYNTAX = Syntax("bogus")
        loc: Optional[object] = None

    with pytest.raises(InternalError, match="Bogus has no registered module"):
        op_module(Bogus())
