"""The result record of the Winograd obligations and the formal statement of a check."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..obligations import formal_statement as formal  # noqa: F401 (re-exported)


@dataclass
class Result:
    """One obligation outcome (converted to verified_sched.obligations.Obligation by the op)."""

    kind: str
    status: str  # proved | refuted | unknown
    engine: str
    message: str
    seconds: float = 0.0
    counterexample: dict | None = None
    extra: dict = field(default_factory=dict)
    statement: str = ""
