"""Schedule operation records: the parsed, argument-validated form of each schedule line.

The records hold no behaviour; `verified_sched/ops/<op>.py` gives each its `apply` and its
obligations, and `verified_sched/ops/registry.py` lists the ops. Each record declares its
DSL syntax once (`SYNTAX`, verified_sched/op_syntax.py), from which the parser, the printer
(`text()`, used by the printer and in reports) and the argument validation (`__post_init__`)
are derived.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from . import ir
from .errors import Loc
from .op_syntax import OPTIONS, Comma, Custom, Field, OpRecord, Option, Outputs, Syntax, Word, invalid

TAILS = ("guard", "round_up", "shift_inward", "predicate", "predicate_loads", "predicate_stores",
         "shift_inward_and_blend", "round_up_and_blend")
PARTITIONS = ("auto", "never", "always", "serialize_edges", "unroll_edges")
SWIZZLES = ("elem", "b128")


def _loc():
    return field(default=None, compare=False, repr=False, kw_only=True)


def _loop(name="loop"):
    return Field(name, "name", "a loop name")


def _tensor(name="tensor"):
    return Field(name, "name", "a tensor name")


@dataclass(frozen=True)
class Split(OpRecord):
    SYNTAX = Syntax("split", (_loop(), Word("by", "in split"), Field("factor", "int", "split factor"),
                              Outputs(("outer", "inner"), "loop name", 2), OPTIONS),
                    (Option("tail", TAILS), Option("partition", PARTITIONS)))
    loop: str
    factor: int
    outer: str
    inner: str
    tail: str = "guard"
    partition: str = "auto"
    loc: Optional[Loc] = _loc()

    def check(self) -> None:
        if self.outer == self.inner:
            raise invalid(self, f"inner '{self.inner}': the two new loops need distinct names")


@dataclass(frozen=True)
class Interchange(OpRecord):
    SYNTAX = Syntax("interchange", (_loop("a"), Comma("between the two loops of interchange"), _loop("b")))
    a: str
    b: str
    loc: Optional[Loc] = _loc()


@dataclass(frozen=True)
class Retype(OpRecord):
    SYNTAX = Syntax("retype", (_loop(), Word("as", "in retype"), Field("axis", "axis", "an axis type")))
    loop: str
    axis: str
    loc: Optional[Loc] = _loc()


@dataclass(frozen=True)
class Unroll(OpRecord):
    SYNTAX = Syntax("unroll", (_loop(), OPTIONS), (Option("materialize", "flag"),))
    loop: str
    materialize: bool = False
    loc: Optional[Loc] = _loc()


def _partition_parse(ts, outputs) -> tuple:
    if ts.at_word("auto"):
        ts.next()
        names = outputs(ts, "loop name")
        if len(names) < 2:
            raise ts.error("partition auto needs at least two segment names", ts.peek())
        return None, names
    ts.expect_word("at", "or 'auto' in partition")
    points = [ts.expr()]
    while ts.at_op(","):
        ts.next()
        points.append(ts.expr())
    return tuple(points), outputs(ts, "loop name", len(points) + 1)


def _partition_text(op) -> str:
    from .dsl.printer import expr_text  # late import: printer imports this module

    at = "auto" if op.breakpoints is None else "at " + ", ".join(expr_text(b) for b in op.breakpoints)
    return f" {at} -> {', '.join(op.names)}"


def _partition_draw(draw, params: tuple) -> tuple:
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    from .fuzz.names import aff_expr

    if not params or draw(st.booleans()):
        return None, tuple(f"p{n}" for n in range(draw(st.integers(2, 3))))
    forms = st.builds(lambda p, c, k: aff_expr({p: c, 1: k}), st.sampled_from(params),
                      st.integers(1, 3), st.integers(-2, 2))
    points = tuple(draw(st.lists(forms, min_size=1, max_size=2)))
    return points, tuple(f"p{n}" for n in range(len(points) + 1))


@dataclass(frozen=True)
class Partition(OpRecord):
    """`breakpoints` is a tuple of ir expressions over params, or None for `auto`."""

    SYNTAX = Syntax("partition", (_loop(), Custom(("breakpoints", "names"), _partition_parse, _partition_text,
                                                    _partition_draw)))
    loop: str
    breakpoints: Optional[tuple]
    names: tuple
    loc: Optional[Loc] = _loc()


@dataclass(frozen=True)
class Pad(OpRecord):
    SYNTAX = Syntax("pad", (_loop(), Word("to", "in pad"), Field("to", "int", "pad multiple")))
    loop: str
    to: int
    loc: Optional[Loc] = _loc()


@dataclass(frozen=True)
class Stage(OpRecord):
    SYNTAX = Syntax("stage", (_tensor("source"), Word("over", "in stage"), Field("over", "names", "a loop name"),
                              Outputs(("tile",), "tile name", 1), OPTIONS),
                    (Option("shared", "flag"), Option("cooperative", "posint"), Option("swizzle", SWIZZLES),
                     Option("pad_stride", "posint"), Option("hoisted", "flag"), Option("pipeline", "posint"),
                     Option("prec", ir.PRECISIONS)))
    source: str
    over: tuple
    tile: str
    shared: bool = False
    cooperative: Optional[int] = None
    swizzle: Optional[str] = None
    pad_stride: Optional[int] = None
    hoisted: bool = False
    pipeline: int = 1
    prec: Optional[str] = None
    loc: Optional[Loc] = _loc()


@dataclass(frozen=True)
class Privatize(OpRecord):
    SYNTAX = Syntax("privatize", (_tensor(), Word("over", "in privatize"), _loop("over"),
                                  Outputs(("acc",), "accumulator name", 1)))
    tensor: str
    over: str
    acc: str
    loc: Optional[Loc] = _loc()


@dataclass(frozen=True)
class ExpandZero(OpRecord):
    SYNTAX = Syntax("expand_zero", (_tensor(), Outputs(("names",), "loop name")))
    tensor: str
    names: tuple
    loc: Optional[Loc] = _loc()


_THREE = "tensorize takes three loops: i, j, k"


@dataclass(frozen=True)
class Tensorize(OpRecord):
    SYNTAX = Syntax("tensorize", (_loop("i"), Comma(_THREE), _loop("j"), Comma(_THREE), _loop("k"), OPTIONS),
                    (Option("simd", "posint", always=True),))
    i: str
    j: str
    k: str
    simd: int = 32
    loc: Optional[Loc] = _loc()


@dataclass(frozen=True)
class FuseEpilogue(OpRecord):
    SYNTAX = Syntax("fuse_epilogue", (_tensor(), OPTIONS), (Option("shared", "flag"),))
    tensor: str
    shared: bool = False
    loc: Optional[Loc] = _loc()


@dataclass(frozen=True)
class SplitReduction(OpRecord):
    SYNTAX = Syntax("split_reduction", (_loop(), Word("of", "in split_reduction"), _tensor(), OPTIONS,
                                        Outputs(("outer", "inner", "partials"), "name", 3), OPTIONS),
                    (Option("blocks", "posint"),))
    loop: str
    tensor: str
    blocks: int
    outer: str
    inner: str
    partials: str
    loc: Optional[Loc] = _loc()


@dataclass(frozen=True)
class Winograd(OpRecord):
    SYNTAX = Syntax("winograd")
    loc: Optional[Loc] = _loc()


def op_name(op) -> str:
    """The DSL keyword of an op record."""
    if not isinstance(op, OpRecord):
        raise TypeError(op)
    return type(op).SYNTAX.keyword
