"""The `winograd` op's record: the keyword alone, or `winograd block` (the blocked form,
ops/winograd/blocked.py: the input transform, the contraction and the output transform run
one row of tiles at a time, so V and M hold one row of tiles)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ...core.errors import Loc
from ...core.op_syntax import OPTIONS, Option, OpRecord, Syntax, loc_field


@dataclass(frozen=True)
class Winograd(OpRecord):
    SYNTAX = Syntax("winograd", (OPTIONS,), (Option("block", "flag"),))
    block: bool = False
    loc: Optional[Loc] = loc_field()
