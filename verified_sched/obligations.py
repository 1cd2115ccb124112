"""Obligations are data: what must hold for one op (or kernel, or claim) to be legal.

Kinds are a contract. `status` is decided by isl/z3 or by a structural
check; "unknown" is never legal. A refutation carries a counterexample
{"params": {...}, "instances"/"points"/"cells": ...} that replays at those sizes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

KINDS = ("precondition", "in_bounds", "coverage", "dependence", "reassociation", "independence",
         "race", "barrier_uniformity", "dataflow", "bijection", "privatize_condition",
         "injective_partials", "equivalence", "exactness", "hardware_limits", "profile")
STATUSES = ("proved", "refuted", "unknown")
ENGINES = ("isl", "z3", "structural", "run")  # run: a refutation found by running (never a proof)


@dataclass
class Obligation:
    kind: str
    op_index: int  # 1-based index of the op in its schedule; 0 for the kernel itself or a claim
    op: str  # the op's text, "kernel NAME", or "claim A == B"
    statement: str  # the formal statement that was decided
    engine: str  # isl | z3 | structural
    status: str  # proved | refuted | unknown
    seconds: float = 0.0
    message: str = ""
    counterexample: dict | None = None
    reassociates: bool = field(default=False, compare=False)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown obligation kind {self.kind!r}")
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")
        if self.engine not in ENGINES:
            raise ValueError(f"unknown engine {self.engine!r}")

    def to_json(self) -> dict:
        return {"op_index": self.op_index, "op": self.op, "kind": self.kind, "status": self.status,
                "engine": self.engine, "seconds": round(self.seconds, 6), "message": self.message,
                "counterexample": self.counterexample}


def to_obligation(kind, op_index, op_text, f, seconds) -> Obligation:
    """The Obligation of a decided check: `f` a `polyhedral.describe.Finding` (status,
    message, statement, engine, counterexample, reassociates)."""
    return Obligation(kind, op_index, op_text, f.statement, f.engine, f.status, seconds, f.message,
                      f.counterexample, f.reassociates)


def proved(kind, op_index, op, statement, engine="isl", message="", seconds=0.0) -> Obligation:
    return Obligation(kind, op_index, op, statement, engine, "proved", seconds, message)


def refuted(kind, op_index, op, statement, message, counterexample=None, engine="isl",
            seconds=0.0) -> Obligation:
    return Obligation(kind, op_index, op, statement, engine, "refuted", seconds, message, counterexample)


def unknown(kind, op_index, op, statement, message, engine="isl", seconds=0.0) -> Obligation:
    return Obligation(kind, op_index, op, statement, engine, "unknown", seconds, message)


def verdict(obligations) -> str:
    """legal iff every obligation is proved; illegal if one is refuted; else unknown."""
    statuses = [o.status for o in obligations]
    if "refuted" in statuses:
        return "illegal"
    if all(s == "proved" for s in statuses):
        return "legal"
    return "unknown"
