"""A file's verification result as plain JSON-able data, and everything rendered from it.

`verify_source` parses and verifies one file and packs its reports (`pack_reports`): the
`FileReport`'s data (core/file_report.py), each source position a message or counterexample
quotes (a `Message`'s locations, a barrier's position) written as the index of its node in
the program's walk order. The proof cache stores exactly this form, keyed by the normalized
program: a cached result is read back against the file as it is now (`FileResult.nodes`,
`FileResult.sites`), so a file whose comments or layout changed still gets its own line
numbers, in messages and in SARIF regions alike. No text is rewritten: positions are data.
"""
from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from ..core.errors import Loc, VschedError
from ..core.exits import FINDING, INTERNAL, OK, UNKNOWN, USAGE
from ..core.file_report import FileReport
from ..core.message import loc_from_json, loc_json

if TYPE_CHECKING:  # in annotations only: rendering a cached result needs no IR (benchmarks/startup.py)
    from ..core import ir

# exit code of a file's status (README "CI gate"): legal/illegal/unknown: verified; "input":
# the file could not be read or parsed (or its verification raised a user error); "internal":
# a bug in verified_sched. The command exits with the worst by EXIT_RANK
EXIT = {"legal": OK, "illegal": FINDING, "unknown": UNKNOWN, "input": USAGE, "internal": INTERNAL}
EXIT_RANK = (OK, UNKNOWN, FINDING, USAGE, INTERNAL)  # least to most severe


@dataclass
class FileResult:
    path: str
    status: str
    text: str = ""  # the file's source
    reports: list = field(default_factory=list)  # pack_reports form
    seconds: float = 0.0  # wall time of this verification (0.0 when read from the cache)
    cached: bool = False
    error: str = ""  # for input and internal errors: the message (FILE:LINE:COL: ... when known)
    error_loc: Optional[tuple] = None  # (line, col) of an input error
    nodes: list = field(default_factory=list)  # [file, line, col] of every node's loc, walk order
    sites: list = field(default_factory=list)  # per report: {"loc": (l, c), "ops": [(l, c), ...]}

    @property
    def verified(self) -> bool:
        return self.status in ("legal", "illegal", "unknown")

    @property
    def report(self) -> FileReport:
        """The typed report every renderer reads, positions those of the file as it is now."""
        if not self.verified:
            return FileReport(self.path, error=self.error, error_kind=self.status,
                              error_loc=tuple(self.error_loc) if self.error_loc else None)
        data = {"file": self.path, "kernels": self.reports, "sites": self.sites}
        return FileReport.from_data(data, self.path, _node_reader(self.nodes))


def worst_exit(results) -> int:
    """The exit code of a run: the most severe status's (internal 4 > input 2 > illegal 1 >
    unknown 3 > legal 0); 0 for no results."""
    codes = [EXIT[r.status] for r in results] or [0]
    return max(codes, key=EXIT_RANK.index)


# ---------------------------------------------------------------- positions


def node_locs(program: ir.Program) -> list:
    """[file, line, col] of every node of the program that has a position, in a fixed walk
    order (the same order for two programs that are equal up to positions)."""
    out: list = []

    def visit(obj):
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            for f in dataclasses.fields(obj):
                value = getattr(obj, f.name)
                if f.name == "loc":
                    if isinstance(value, Loc):
                        out.append([value.file, value.line, value.col])
                else:
                    visit(value)
        elif isinstance(obj, (tuple, list)):
            for x in obj:
                visit(x)
        elif isinstance(obj, dict):
            for x in obj.values():
                visit(x)

    visit(program)
    return out


def program_sites(program: ir.Program) -> list:
    """Per report of `verify_program` (claims, then kernels, in program order): the position
    of the claim or kernel and of each of its schedule ops, as (line, col)."""

    def pos(node, default):
        loc = getattr(node, "loc", None)
        return (loc.line, loc.col) if isinstance(loc, Loc) else default

    sites = [{"loc": pos(c, (1, 1)), "ops": []} for c in program.claims]
    for k in program.kernels:
        here = pos(k, (1, 1))
        sched = program.schedule_for(k.name)
        sites.append({"loc": here, "ops": [pos(op, here) for op in (sched.ops if sched else ())]})
    return sites


def _node_writer(nodes: list):
    """loc -> {"node": n} (its node's index in walk order), or the loc itself as data."""
    index: dict = {}
    for n, (file, line, col) in enumerate(nodes):
        index.setdefault(Loc(file, line, col), n)
    return lambda loc: {"node": index[loc]} if loc in index else loc_json(loc)


def _node_reader(nodes: list):
    def read(data: dict) -> Loc:
        if "node" in data:
            n = data["node"]
            return Loc(*nodes[n]) if 0 <= n < len(nodes) else Loc("?", 0, 0)
        return loc_from_json(data)
    return read


# ---------------------------------------------------------------- packing


def pack_reports(reports, program: ir.Program, filename: str) -> list:
    """KernelReports as JSON data (FileReport.to_data's kernels), each source position the
    index of its node in `node_locs(program)`."""
    data = FileReport(filename, list(reports)).to_data(_node_writer(node_locs(program)))
    return json.loads(json.dumps(data["kernels"], default=str))


def has_unknown(packed: list) -> bool:
    return any(o["status"] == "unknown" for r in packed for o in r["obligations"])


def text_report(result: FileResult, first: bool = False, timeout: float | None = None) -> str:
    """The human report of `vsched verify` for one verified file: its kernels' reports (the
    first with the column headers; the legend before it when `first`, the run's first
    report), on illegal or unknown what to do next (report/legend.py), and its verdict."""
    from ..verify.kernel_report import format_report
    from .legend import header, legend, next_step

    report = result.report
    lines = [legend()] if first else []
    for n, kernel in enumerate(report.kernels):
        text = format_report(kernel)
        if n == 0:
            head, _, rest = text.partition("\n")
            text = "\n".join([head, header(), rest] if rest else [head, header()])
        lines.append(text)
    advice = next_step(result.path, report.verdict, timeout)
    if advice:
        lines.append(advice)
    lines.append(f"{result.path}: {report.verdict}")  # the last line, as always (scripts read it)
    return "\n".join(lines)


def finding_text(kernel: str, o) -> str:
    """One line for a refuted or unknown obligation: kind, status, where, the message."""
    where = o.op if o.op_index == 0 else f"op {o.op_index} `{o.op}` of kernel {kernel}"
    return f"{o.kind} {o.status} in {where}: {o.message}"


# ---------------------------------------------------------------- one file


def parse_source(path: str, text: str):
    """(program, None) or (None, (message, (line, col) or None)) for a user error."""
    from ..dsl import parse_text

    try:
        program = parse_text(text, path)
        if not program.kernels:
            return None, (f"{path}:1:1: no kernel in this file (a .vs file needs at least one "
                          "`kernel NAME { ... }`)", (1, 1))
        return program, None
    except VschedError as e:
        where = (e.loc.line, e.loc.col) if e.loc is not None else None
        return None, (str(e) if e.loc is not None else f"{path}: {e.message}", where)


def verify_source(path: str, text: str, profile, timeout: float, shared_limit: int) -> dict:
    """Parse and verify one file's text; a JSON-able dict: {"status", "reports", "seconds",
    "nodes", "sites"} (FileResult's fields)
    or {"status": "input"|"internal", "error", "error_loc"}. Never raises for a bad file; a
    bug (any other exception) becomes an "internal" status with its message."""
    from ..verify import driver as verify

    t0 = time.perf_counter()
    program, err = parse_source(path, text)
    if err is not None:
        return {"status": "input", "error": err[0], "error_loc": err[1]}
    try:
        reports = verify.verify_program(program, profile=profile, timeout=timeout, filename=path,
                                        shared_limit=shared_limit)
    except VschedError as e:
        return {"status": "input", "error": str(e) if e.loc is not None else f"{path}: {e.message}",
                "error_loc": (e.loc.line, e.loc.col) if e.loc is not None else None}
    except (RecursionError, MemoryError) as e:  # an input beyond what can be held: exit 2
        why = ("nests too deeply (Python's recursion limit)" if isinstance(e, RecursionError)
               else "needs more memory than is available")
        return {"status": "input", "error": f"vsched: error: {path}: the input {why}", "error_loc": None}
    except Exception as e:  # a bug in verified_sched: reported (exit 4), the other files go on
        return {"status": "internal", "error": f"{path}: internal error: {type(e).__name__}: {e}",
                "error_loc": None}
    return {"status": FileReport(path, reports).verdict, "reports": pack_reports(reports, program, path),
            "seconds": time.perf_counter() - t0, "nodes": node_locs(program), "sites": program_sites(program)}
