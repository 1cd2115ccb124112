"""SARIF 2.1.0 (OASIS static analysis results format) of a verify run, for code scanning.

One run, tool `vsched` with one rule per obligation kind; one result per refuted (level
`error`) or unknown (level `warning`) obligation, located at the schedule op's line and
column (the claim's or kernel's for their own obligations), with the obligation's data and
counterexample under `properties`. Files that could not be read or parsed, and internal
errors, are tool execution notifications (and make `executionSuccessful` false).
"""
from __future__ import annotations

import hashlib
from pathlib import PurePath
from urllib.parse import quote

from ..core.obligations import KINDS
from ..core.version import package_version
from .results import finding_text

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

# kind -> (short description, help): what the obligation proves and what a refutation means
RULES = {
    "precondition": ("The schedule op applies to the kernel",
                     "The op's loops or tensors exist, the nest has the shape the op needs and its arguments "
                     "are valid. When refuted, the rest of that kernel's schedule is not checked: fix the op "
                     "(or an earlier one that renamed or removed what it names)."),
    "in_bounds": ("Every access stays inside its tensor's storage",
                  "Each read and write, where it is evaluated, addresses a cell of the tensor's storage "
                  "(dims plus padding). A refutation names the sizes, the instance and the cell outside "
                  "storage; add padding, a guard or a tail strategy that keeps the access inside."),
    "coverage": ("Every original instance runs exactly once",
                 "The rewritten nest executes each instance of the original exactly once (or recomputes "
                 "an idempotent one with equal values). A refutation names a missing or duplicated "
                 "instance at concrete sizes."),
    "dependence": ("Every dependence keeps its order",
                   "Each read-after-write, write-after-read and write-after-write dependence of the "
                   "original still runs in the same order after the op. A refutation names the two "
                   "instances, the cell and their order before and after the op; `vsched run FILE --size "
                   "...` at the counterexample's sizes shows the difference."),
    "reassociation": ("Reductions keep their order, or the profile allows reordering them",
                      "Two updates of one accumulation keep their order unless the active profile permits "
                      "reassociation (default and approximate do; reproducible does not for + and *)."),
    "independence": ("Iterations of a parallel loop do not conflict",
                     "No two iterations of a vectorized, block or thread loop touch one cell with one of "
                     "them writing. A refutation names the two iterations and the cell."),
    "race": ("No two threads conflict within a barrier phase",
             "Threads of a block order their accesses only through barriers; a refutation names two "
             "threads accessing one cell in the same phase, one of them writing."),
    "barrier_uniformity": ("Every barrier is reached by all threads of its block or by none",
                           "A barrier under a thread-dependent condition deadlocks or misbehaves on a GPU; "
                           "the refutation names a thread that reaches it and one that does not."),
    "dataflow": ("A staged or privatized read sees the source value",
                 "Each read of a staged tile or private accumulator gets the value the original read would "
                 "have seen."),
    "bijection": ("A layout map is one-to-one and stays in its range",
                  "A swizzle or padded stride maps distinct cells to distinct cells inside the tile."),
    "privatize_condition": ("No untouched accumulator is stored back over another update",
                            "A privatized accumulator written back by a thread that did not update it would "
                            "overwrite another instance's result."),
    "injective_partials": ("Distinct iterations use distinct partial cells",
                           "split_reduction's blocks each accumulate into their own partial cell."),
    "equivalence": ("Two computations add the same terms with the same multiplicities",
                    "For claims, tensorize and split_reduction: both sides compute each output cell from "
                    "the same terms, each counted as often; a refutation names the cell and the missing "
                    "or extra term. For Winograd: the algebraic identity holds."),
    "exactness": ("Both forms are exact for the declared input ranges",
                  "Winograd with declared `inputs` ranges: every intermediate is exact in f32, so the "
                  "rewrite is bitwise equal to the direct form."),
    "hardware_limits": ("Threads and shared memory per block fit the device",
                        "For all sizes, a block's threads and shared-memory bytes stay within the limits "
                        "(`--shared-limit`)."),
    "profile": ("The op is allowed under the active profile",
                "Some rewrites change rounding (Winograd) and need the approximate profile."),
}


def artifact_uri(path: str) -> str:
    """A relative path as a relative URI reference (for code scanning, relative to the
    checkout); an absolute one as a file: URI."""
    p = PurePath(path)
    if p.is_absolute():
        from pathlib import Path

        return Path(path).as_uri()
    return quote(p.as_posix())


def rules() -> list:
    return [{"id": kind, "name": kind, "shortDescription": {"text": RULES[kind][0]},
             "fullDescription": {"text": RULES[kind][0] + "."},
             "help": {"text": RULES[kind][1]},
             "defaultConfiguration": {"level": "error"}} for kind in KINDS]


def _fingerprint(path: str, kernel: str, o) -> str:
    text = "\0".join([path, kernel, str(o.op_index), o.op, o.kind])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def result_objects(report) -> list:
    """SARIF results of one verified FileReport."""
    out = []
    for kernel, o, line, col in report.findings():
        refuted = o.status == "refuted"
        out.append({
            "ruleId": o.kind,
            "ruleIndex": KINDS.index(o.kind),
            "level": "error" if refuted else "warning",
            "message": {"text": finding_text(kernel, o)},
            "locations": [{
                "physicalLocation": {"artifactLocation": {"uri": artifact_uri(report.file)},
                                     "region": {"startLine": int(line), "startColumn": int(col)}},
                "logicalLocations": [{"name": kernel, "kind": "function"}],
            }],
            "partialFingerprints": {"vschedObligation/v1": _fingerprint(report.file, kernel, o)},
            "properties": {"kernel": kernel, "op": o.op, "opIndex": o.op_index, "status": o.status,
                           "engine": o.engine, "statement": o.statement, "seconds": o.seconds,
                           "counterexample": None if o.counterexample is None else o.counterexample.to_json()},
        })
    return out


def _notification(report) -> dict:
    note = {"level": "error", "message": {"text": report.error},
            "properties": {"status": report.error_kind}}
    if report.error_kind == "input":
        line, col = report.error_loc or (1, 1)
        note["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": artifact_uri(report.file)},
                                                   "region": {"startLine": int(line), "startColumn": int(col)}}}]
    return note


def sarif_document(file_results) -> dict:
    """The SARIF log of a whole run (FileResults in input order)."""
    results, notes = [], []
    for report in (r.report for r in file_results):
        if report.verdict == "error":
            notes.append(_notification(report))
        else:
            results += result_objects(report)
    version = package_version()
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "vsched", "fullName": "verified_sched verifier", "version": version,
                                "semanticVersion": version, "rules": rules()}},
            "invocations": [{"executionSuccessful": not notes, "toolExecutionNotifications": notes}],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
