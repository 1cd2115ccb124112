"""The result record of the Winograd obligations and the formal statement of a check."""
from __future__ import annotations

from dataclasses import dataclass, field


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


def formal(fn) -> str:
    """The "Formal statement:" paragraph of a function's docstring, on one line."""
    doc = fn.__doc__ or ""
    at = doc.find("Formal statement")
    if at < 0:
        return ""
    text = doc[at:].split("\n\n")[0]
    return " ".join(text.split()).removeprefix("Formal statement").lstrip(" :(").strip()
