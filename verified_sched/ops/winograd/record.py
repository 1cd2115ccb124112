"""The `winograd` op's record (no arguments): its syntax is the keyword alone."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ...core.errors import Loc
from ...core.op_syntax import OpRecord, Syntax, loc_field


@dataclass(frozen=True)
class Winograd(OpRecord):
    SYNTAX = Syntax("winograd")
    loc: Optional[Loc] = loc_field()
