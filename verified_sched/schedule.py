"""Schedule operation records: the parsed, argument-validated form of each schedule line.

The records hold no behaviour; `verified_sched/ops/<op>.py` gives each its `apply` and its
obligations. `text` renders the op back in DSL syntax (used by the printer and in reports).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .errors import Loc

TAILS = ("guard", "round_up", "shift_inward", "predicate", "predicate_loads", "predicate_stores",
         "shift_inward_and_blend", "round_up_and_blend")
PARTITIONS = ("auto", "never", "always", "serialize_edges", "unroll_edges")
SWIZZLES = ("elem", "b128")


def _loc():
    return field(default=None, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True)
class Split:
    loop: str
    factor: int
    outer: str
    inner: str
    tail: str = "guard"
    partition: str = "auto"
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        s = f"split {self.loop} by {self.factor} -> {self.outer}, {self.inner}"
        if self.tail != "guard":
            s += f" tail={self.tail}"
        if self.partition != "auto":
            s += f" partition={self.partition}"
        return s


@dataclass(frozen=True)
class Interchange:
    a: str
    b: str
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        return f"interchange {self.a}, {self.b}"


@dataclass(frozen=True)
class Retype:
    loop: str
    axis: str
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        return f"retype {self.loop} as {self.axis}"


@dataclass(frozen=True)
class Unroll:
    loop: str
    materialize: bool = False
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        return f"unroll {self.loop}" + (" materialize" if self.materialize else "")


@dataclass(frozen=True)
class Partition:
    """`breakpoints` is a tuple of ir expressions over params, or None for `auto`."""

    loop: str
    breakpoints: Optional[tuple]
    names: tuple
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        from .dsl.printer import expr_text  # late import: printer imports this module

        at = "auto" if self.breakpoints is None else "at " + ", ".join(expr_text(b) for b in self.breakpoints)
        return f"partition {self.loop} {at} -> {', '.join(self.names)}"


@dataclass(frozen=True)
class Pad:
    loop: str
    to: int
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        return f"pad {self.loop} to {self.to}"


@dataclass(frozen=True)
class Stage:
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

    def text(self) -> str:
        s = f"stage {self.source} over {', '.join(self.over)} -> {self.tile}"
        if self.shared:
            s += " shared"
        if self.cooperative is not None:
            s += f" cooperative={self.cooperative}"
        if self.swizzle is not None:
            s += f" swizzle={self.swizzle}"
        if self.pad_stride is not None:
            s += f" pad_stride={self.pad_stride}"
        if self.hoisted:
            s += " hoisted"
        if self.pipeline != 1:
            s += f" pipeline={self.pipeline}"
        if self.prec is not None:
            s += f" prec={self.prec}"
        return s


@dataclass(frozen=True)
class Privatize:
    tensor: str
    over: str
    acc: str
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        return f"privatize {self.tensor} over {self.over} -> {self.acc}"


@dataclass(frozen=True)
class ExpandZero:
    tensor: str
    names: tuple
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        return f"expand_zero {self.tensor} -> {', '.join(self.names)}"


@dataclass(frozen=True)
class Tensorize:
    i: str
    j: str
    k: str
    simd: int = 32
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        return f"tensorize {self.i}, {self.j}, {self.k} simd={self.simd}"


@dataclass(frozen=True)
class FuseEpilogue:
    tensor: str
    shared: bool = False
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        return f"fuse_epilogue {self.tensor}" + (" shared" if self.shared else "")


@dataclass(frozen=True)
class SplitReduction:
    loop: str
    tensor: str
    blocks: int
    outer: str
    inner: str
    partials: str
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        return (f"split_reduction {self.loop} of {self.tensor} blocks={self.blocks} -> "
                f"{self.outer}, {self.inner}, {self.partials}")


@dataclass(frozen=True)
class Winograd:
    loc: Optional[Loc] = _loc()

    def text(self) -> str:
        return "winograd"


OP_TYPES = (Split, Interchange, Retype, Unroll, Partition, Pad, Stage, Privatize, ExpandZero,
            Tensorize, FuseEpilogue, SplitReduction, Winograd)

# The DSL keyword of each op.
OP_NAMES = {
    "split": Split, "interchange": Interchange, "retype": Retype, "unroll": Unroll,
    "partition": Partition, "pad": Pad, "stage": Stage, "privatize": Privatize,
    "expand_zero": ExpandZero, "tensorize": Tensorize, "fuse_epilogue": FuseEpilogue,
    "split_reduction": SplitReduction, "winograd": Winograd,
}


def op_name(op) -> str:
    for name, cls in OP_NAMES.items():
        if isinstance(op, cls):
            return name
    raise TypeError(op)
