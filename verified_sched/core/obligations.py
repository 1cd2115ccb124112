"""Obligations are data: what must hold for one op (or kernel, or claim) to be legal.

Kinds are a contract. `status` is decided by isl/z3 or by a structural
check; "unknown" is never legal. A refutation carries a `Counterexample`
(counterexample.py: its `Instance`'s sizes and input values, statement instances, cells,
threads, ...) that replays at those sizes; a message that quotes source positions keeps
them as data (`Obligation.locations`, `Obligation.msg`: message.py).
"""
from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field

from .counterexample import Counterexample
from .message import Message

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
    message: str = ""  # a Message given is kept as its text and `locations`
    counterexample: Counterexample | None = None  # never a dict (a TypeError names the writer)
    reassociates: bool = field(default=False, compare=False)
    locations: tuple = field(default=(), compare=False)  # the source positions `message` quotes

    def __post_init__(self):
        if isinstance(self.message, Message):
            self.locations, self.message = self.message.locations, str(self.message)
        if not isinstance(self.counterexample, (Counterexample, type(None))):
            raise TypeError(f"{_writer()}: the counterexample of {self.kind} ({self.op}) is a "
                            f"{type(self.counterexample).__name__}, not a Counterexample")
        if self.kind not in KINDS:
            raise ValueError(f"unknown obligation kind {self.kind!r}")
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")
        if self.engine not in ENGINES:
            raise ValueError(f"unknown engine {self.engine!r}")

    def to_json(self) -> dict:
        return {"op_index": self.op_index, "op": self.op, "kind": self.kind, "status": self.status,
                "engine": self.engine, "seconds": round(self.seconds, 6), "message": self.message,
                "counterexample": None if self.counterexample is None else self.counterexample.to_json()}

    @property
    def msg(self) -> Message:
        """The message with the positions it quotes as data."""
        return Message.quoting(self.message, self.locations)


def _writer_frame():
    """The frame of the code that built the Obligation or Decided (past the dataclass's
    __init__ and `ops.common.decided`)."""
    frame = sys._getframe(2)
    while frame.f_back is not None and (frame.f_code.co_filename in (__file__, dataclasses.__file__)
                                        or frame.f_code.co_filename.startswith("<")  # the dataclass's __init__
                                        or frame.f_code.co_name == "decided"):
        frame = frame.f_back
    return frame


def _writer() -> str:
    frame = _writer_frame()
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


# ---------------------------------------------------------------- goals: obligations as data
#
# An op (or the driver) states what must hold as `Goal`s; `verified_sched.verify.discharge.discharge`
# decides them all in one place (budgets, the deadline, timing, witnesses) and returns the
# `Obligation`s above, the one result type. A goal's query says how it is decided:
#
#   IslEmpty   proved iff an isl set (or map) of violations is empty; else a sample point
#              of it is the witness, turned into a message and a counterexample by `witness`
#   Z3Implies  proved iff z3 shows `facts => goal` (unsat of facts and not goal); else the
#              model is the witness (sat) or the goal is unknown (z3 gave up)
#   Procedure  a decision procedure of several queries (value flow, claims, structural
#              comparisons) that returns its `Decided` answer itself
#   Decided    an answer already known when the goal is stated (a structural fact)
#   AllOf      a conjunction of such queries (one per access, say), proved iff each is


@dataclass
class Decided:
    """A decided query: what an engine or procedure answers (status, message, the engine
    that decided it, the counterexample of a refutation). `statement`, when set, refines the
    goal's statement (e.g. the value-based form of `dependence`); `pending` lists accesses
    isl could not state, left to z3 (in_bounds)."""

    status: str  # proved | refuted | unknown
    message: str  # a Message given (one that quotes source positions) is kept as its text and `locations`
    statement: str = ""
    counterexample: Counterexample | None = None
    reassociates: bool = False
    engine: str = "isl"
    pending: list = field(default_factory=list)
    locations: tuple = ()  # the source positions `message` quotes (given as a Message)

    def __post_init__(self):
        if isinstance(self.message, Message):
            self.locations, self.message = self.message.locations, str(self.message)
        if not isinstance(self.counterexample, (Counterexample, type(None))):
            raise TypeError(f"{_writer()}: a counterexample is a Counterexample, not a "
                            f"{type(self.counterexample).__name__}")
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")
        if self.engine not in ENGINES:
            raise ValueError(f"unknown engine {self.engine!r}")


@dataclass(frozen=True)
class IslEmpty:
    """Proved iff `violations()` (an isl Set, UnionSet, Map or UnionMap) is empty. Otherwise
    `witness(point)` turns a sample point of it into the Decided answer (a refutation with
    its counterexample, or `unknown` when the violation is an over-approximation)."""

    violations: object  # () -> isl set or map
    witness: object  # (isl.Point) -> Decided
    proved: str = "no violation"


@dataclass(frozen=True)
class Z3Implies:
    """Proved iff `facts => goal` holds (`query()` returns (facts, goal), z3 terms). A model
    of `facts and not goal` goes to `witness(model_dict)` (the Decided refutation); z3
    giving up (its timeout, the deadline) makes the goal unknown with z3's reason."""

    query: object  # () -> (list of z3 BoolRef, z3 BoolRef), or a Decided when it has no z3 form
    witness: object  # (dict) -> Decided
    proved: str = "holds"
    timeout: float = 10.0
    undecided: str = ""  # what was not decided, said before z3's reason when it gives up


@dataclass(frozen=True)
class Procedure:
    """A decision procedure: `run()` returns a Decided, or a list of (kind, Decided) when one
    computation decides several obligation kinds (dependence and reassociation)."""

    run: object  # () -> Decided | list[tuple[str, Decided]]


@dataclass(frozen=True)
class AllOf:
    """Proved iff every part is: `parts()` returns the queries (built inside the goal's budget).
    They are decided in order; the first refutation is the answer; unknown parts make the goal
    unknown (their messages joined) unless a later part refutes it; when all are proved,
    `proved(answers)` (the parts' Decided answers) gives the answer."""

    parts: object  # () -> list of IslEmpty | Z3Implies | Procedure | Decided
    proved: object  # (list of Decided) -> Decided


@dataclass(frozen=True)
class Goal:
    """What must hold, as data: the obligation kind, its formal statement and how to decide
    it (IslEmpty, Z3Implies, Procedure or Decided). `discharge` turns it into Obligations."""

    kind: str
    statement: str
    query: object

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown obligation kind {self.kind!r}")
        if not isinstance(self.query, (IslEmpty, Z3Implies, Procedure, Decided, AllOf)):
            raise TypeError(f"goal {self.kind}: not a query: {self.query!r}")


def procedure(kind: str, statement: str, fn) -> Goal:
    """A goal decided by `fn()` (-> Decided) when discharged."""
    return Goal(kind, statement, Procedure(fn))


def formal_statement(fn) -> str:
    """The "Formal statement:" paragraph of a function's docstring, on one line ("" if none)."""
    doc = fn.__doc__ or ""
    at = doc.find("Formal statement")
    if at < 0:
        return ""
    text = doc[at:].split("\n\n")[0]
    return " ".join(text.split()).removeprefix("Formal statement").lstrip(" :(").strip()
