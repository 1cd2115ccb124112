"""Schedule op records drawn by name only: `schedules_for` (ops over a kernel's loops,
preconditions not guaranteed), `op_records` (any syntactically valid record of every op kind,
for parser round trips, derived from each op's declared syntax) and `sizes_for`. For schedules drawn to apply, see `fuzz.schedules`.
"""
from __future__ import annotations

import dataclasses

from hypothesis import strategies as st

from ..core import ir
from ..core.op_syntax import LOOP_NAME, Custom, Field, Outputs, default
from ..ops.registry import SPECS
from ..analysis.sizes import example_sizes
from ..ops.fuzz_names import PARAM_NAMES


def _loop_names(kernel: ir.Kernel) -> list:
    return [n.var for n in ir.walk(kernel.body) if isinstance(n, ir.For)]


@st.composite
def schedules_for(draw, program: ir.Program, kernel_name: str, max_ops: int = 3):
    """A tuple of records of the ops that draw by loop name only (their spec's `draw_by_name`:
    split / interchange / retype / unroll / pad) over the kernel's loops (names created by a
    split are used by later ops). Preconditions may fail. An op with nothing to draw (an
    interchange over one loop) is replaced by the first of them (split)."""
    loops = _loop_names(program.kernel(kernel_name))
    kinds = tuple(s for s in SPECS if s.draw_by_name is not None for _ in range(s.by_name_weight))
    ops = []
    fresh = iter(range(1000))
    for _ in range(draw(st.integers(1, max_ops))):
        if not loops:
            break
        loop = draw(st.sampled_from(loops))
        drawn = draw(st.sampled_from(kinds)).draw_by_name(draw, loop, loops, fresh)
        op, loops = drawn if drawn is not None else kinds[0].draw_by_name(draw, loop, loops, fresh)
        ops.append(op)
    return tuple(ops)


_IDS = st.sampled_from(("i", "j", "k", "io", "ii", "t0", "acc", "a_tile", "s_part"))
_POS = st.integers(1, 64)
# a loop reference: a name, or `name@k` (the k-th loop of that name)
_LOOP_REFS = _IDS | st.builds(lambda n, k: f"{n}@{k}", _IDS, st.integers(1, 3))


@st.composite
def op_records(draw, params: tuple = PARAM_NAMES):
    """Any syntactically valid schedule op record (for parser/printer round trips), of any
    registered op, drawn from its declared syntax (verified_sched/core/op_syntax.py)."""
    from ..ops.registry import OP_NAMES

    cls = OP_NAMES[draw(st.sampled_from(tuple(OP_NAMES)))]
    return draw(record_of(cls, params))


@st.composite
def record_of(draw, cls, params: tuple = PARAM_NAMES):
    """A syntactically valid record of op class `cls`: every field and option drawn by its
    declared kind (names from a small pool, outputs distinct, positive integers, allowed words)."""
    syn = cls.SYNTAX
    values = {}
    for item in syn.items:
        match item:
            case Field(name=name, kind="name", what=what) if what == LOOP_NAME:
                values[name] = draw(_LOOP_REFS)
            case Field(name=name, kind="name"):
                values[name] = draw(_IDS)
            case Field(name=name, kind="names"):
                values[name] = tuple(draw(st.lists(_IDS, min_size=1, max_size=3)))
            case Field(name=name, kind="int"):
                values[name] = draw(_POS)
            case Field(name=name, kind="axis"):
                values[name] = draw(st.sampled_from(ir.AXES))
            case Outputs(fields=fields, count=None):
                values[fields[0]] = tuple(draw(st.lists(_IDS, min_size=1, max_size=3, unique=True)))
            case Outputs(fields=fields, count=n):
                values.update(zip(fields, draw(st.lists(_IDS, min_size=n, max_size=n, unique=True))))
            case Custom(fields=fields) as item:
                values.update(zip(fields, item.draw(draw, params)))
    for o in syn.options:
        required = default(cls, o.name) is dataclasses.MISSING
        if o.kind == "flag":
            values[o.name] = draw(st.booleans())
        elif o.kind == "posint":
            values[o.name] = draw(_POS if required or default(cls, o.name) is not None else st.none() | _POS)
        else:
            words = st.sampled_from(o.kind)
            values[o.name] = draw(words if default(cls, o.name) is not None else st.none() | words)
    return cls(**values)


def sizes_for(program: ir.Program, count: int = 4):
    """Concrete sizes satisfying the constraints (minimal, odd and random small sets)."""
    return st.sampled_from(example_sizes(program, count=count))
