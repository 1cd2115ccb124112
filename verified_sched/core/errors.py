"""Error types. User errors (bad input, inapplicable schedule) are separate from internal ones.

User errors carry a source location so the CLI can print `FILE:LINE:COL: message` and exit 2
(parse errors) or report a `precondition` obligation (schedule errors), never a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A position in a source file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class VschedError(Exception):
    """Base class of errors caused by the user's input."""

    def __init__(self, message: str, loc: Loc | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc

    def __str__(self) -> str:
        return f"{self.loc}: {self.message}" if self.loc else self.message


class ParseError(VschedError):
    """Syntax errors, unknown names, type errors in a .vs file."""


class ScheduleError(VschedError):
    """A schedule op cannot apply (missing loop, imperfect nest, bad argument): `precondition`."""

    def __init__(self, message: str, loc: Loc | None = None, op: str | None = None):
        super().__init__(message, loc)
        self.op = op


class UsageError(VschedError):
    """Bad command-line usage (sizes that violate constraints, missing arrays, ...)."""


class InternalError(Exception):
    """A bug in verified_sched: an IR invariant was violated by our own code."""


class KernelError(VschedError):
    """The kernel failed while running: an index outside storage, a divergent barrier, an
    integer division by zero, a float converted to i32 outside its range. A finding about the
    kernel, not a usage error."""
