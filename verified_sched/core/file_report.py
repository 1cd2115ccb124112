"""One file's verification result, typed: what every renderer (text, json, sarif, github,
html, explain) reads, and the one place a verdict is derived.

`KernelReport`: the obligations of one kernel or claim. `FileReport`: a file's kernel and
claim reports (or the error that stopped it), with the positions of its claims, kernels and
schedule ops (`sites`: where a finding is annotated); its `verdict` is legal, illegal,
unknown or error (`verdict_of`: legal iff every obligation is proved, illegal if one is
refuted, else unknown).

`to_json()` is `vsched verify --json`'s object (as it always was). `to_data(where)` is the
whole result as JSON data, every source position written by `where(loc)`, and
`from_data(data, file, where)` reads it back: the proof cache stores a result with each
position as the index of its program node (report/results.py), so a cached result renders for
the file as it is now exactly as a fresh one does.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .counterexample import Counterexample
from .message import Message, loc_from_json, loc_json
from .obligations import Obligation

def verdict_of(statuses) -> str:
    """The verdict of obligation statuses: legal iff every one is proved; illegal if one is
    refuted; else unknown."""
    statuses = list(statuses)
    if "refuted" in statuses:
        return "illegal"
    if all(s == "proved" for s in statuses):
        return "legal"
    return "unknown"


@dataclass
class KernelReport:
    file: str
    kernel: str
    obligations: list = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return verdict_of(o.status for o in self.obligations)

    @property
    def reassociates(self) -> bool:
        return any(o.reassociates for o in self.obligations)

    def to_json(self) -> dict:
        return {"file": self.file, "kernel": self.kernel, "verdict": self.verdict,
                "reassociates": self.reassociates, "obligations": [o.to_json() for o in self.obligations]}


_FIELDS = ("kind", "op_index", "op", "statement", "engine", "status", "seconds", "reassociates")


def _obligation_data(o: Obligation, where) -> dict:
    out = {f: getattr(o, f) for f in _FIELDS}
    out["message"] = o.msg.to_json(where)
    out["counterexample"] = None if o.counterexample is None else o.counterexample.to_json(where)
    return out


def _obligation(data: dict, where) -> Obligation:
    msg = Message.from_json(data["message"], where)
    cex = Counterexample.from_json(data["counterexample"], where)
    return Obligation(**{f: data[f] for f in _FIELDS}, message=msg, counterexample=cex)


@dataclass
class FileReport:
    file: str
    kernels: list = field(default_factory=list)  # KernelReport, claims first, in program order
    sites: list = field(default_factory=list)  # per kernel report: {"loc": (l, c), "ops": [(l, c), ...]}
    error: str = ""  # what stopped it: FILE:LINE:COL: message (an input error) or an internal error
    error_kind: str = ""  # "input" | "internal" when `error`
    error_loc: tuple | None = None  # (line, col) of an input error

    @property
    def obligations(self) -> list:
        return [o for r in self.kernels for o in r.obligations]

    @property
    def verdict(self) -> str:
        """legal | illegal | unknown (of every obligation: `verdict_of`), or error."""
        if self.error_kind:
            return "error"
        return verdict_of(o.status for o in self.obligations)

    @property
    def reassociates(self) -> bool:
        return any(r.reassociates for r in self.kernels)

    def to_json(self) -> dict:
        """`vsched verify --json`'s object: claims and kernels together."""
        return {"file": self.file, "kernel": ", ".join(r.kernel for r in self.kernels), "verdict": self.verdict,
                "reassociates": self.reassociates, "obligations": [o.to_json() for o in self.obligations]}

    def findings(self):
        """(kernel, Obligation, line, col) of every refuted or unknown obligation, in report
        order; the line and column are the op's (op_index >= 1), else the claim's or kernel's."""
        for n, rep in enumerate(self.kernels):
            site = self.sites[n] if n < len(self.sites) else {"loc": (1, 1), "ops": []}
            for o in rep.obligations:
                if o.status == "proved":
                    continue
                k = o.op_index
                line, col = site["ops"][k - 1] if 1 <= k <= len(site["ops"]) else site["loc"]
                yield rep.kernel, o, line, col

    def to_data(self, where=loc_json) -> dict:
        """The whole report as JSON data, each source position written by `where(loc)`."""
        return {"file": self.file, "sites": self.sites, "error": self.error, "error_kind": self.error_kind,
                "error_loc": self.error_loc,
                "kernels": [{"kernel": r.kernel, "obligations": [_obligation_data(o, where) for o in r.obligations]}
                            for r in self.kernels]}

    @classmethod
    def from_data(cls, data: dict, file: str | None = None, where=loc_from_json) -> FileReport:
        """The report of `to_data`'s form (for `file` when given), each position read by `where`."""
        file = data["file"] if file is None else file
        kernels = [KernelReport(file, r["kernel"], [_obligation(o, where) for o in r["obligations"]])
                   for r in data["kernels"]]
        loc = data.get("error_loc")
        return cls(file, kernels, [_site(s) for s in data.get("sites") or []], data.get("error", ""),
                   data.get("error_kind", ""), tuple(loc) if loc else None)


def _site(s: dict) -> dict:
    return {"loc": tuple(s["loc"]), "ops": [tuple(x) for x in s["ops"]]}
