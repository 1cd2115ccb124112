"""The `stage` op's record: its fields and its syntax (verified_sched/op_syntax.py), from which
the parser, the printer, the argument validation and the syntactic fuzz strategy derive."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ... import ir
from ...errors import Loc
from ...op_syntax import OPTIONS, Field, OpRecord, Option, Outputs, Syntax, Word, loc_field, tensor_field

SWIZZLES = ("elem", "b128")


@dataclass(frozen=True)
class Stage(OpRecord):
    SYNTAX = Syntax("stage", (tensor_field("source"), Word("over", "in stage"), Field("over", "names", "a loop name"),
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
    loc: Optional[Loc] = loc_field()
