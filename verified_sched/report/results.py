"""A file's verification result as plain JSON-able data, and everything rendered from it.

`verify_source` parses and verifies one file and packs its reports (`pack_reports`): every
obligation field, with each source position quoted in a message replaced by a placeholder
(the n-th position of the program's nodes in walk order). The proof cache stores exactly
this form, keyed by the normalized program: a cached result is rendered against the file
as it is now (`FileResult.loc_strings`, `FileResult.sites`), so a file whose comments or
layout changed still gets its own line numbers, in messages and in SARIF regions alike.
"""
from __future__ import annotations

import dataclasses
import json
import re
import time
from dataclasses import dataclass, field
from typing import Optional

from ..core import ir
from ..core.errors import Loc, VschedError
from ..core.exits import FINDING, INTERNAL, OK, UNKNOWN, USAGE
from ..core.obligations import Obligation

# exit code of a file's status (README "CI gate"): legal/illegal/unknown: verified; "input":
# the file could not be read or parsed (or its verification raised a user error); "internal":
# a bug in verified_sched. The command exits with the worst by EXIT_RANK
EXIT = {"legal": OK, "illegal": FINDING, "unknown": UNKNOWN, "input": USAGE, "internal": INTERNAL}
EXIT_RANK = (OK, UNKNOWN, FINDING, USAGE, INTERNAL)  # least to most severe
_FIELDS = ("kind", "op_index", "op", "statement", "engine", "status", "seconds", "message",
           "counterexample", "reassociates")
_MARK = "\x00loc{}\x00"
_MARK_RE = re.compile("\x00loc(\\d+)\x00")


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
    loc_strings: list = field(default_factory=list)  # str(loc) of every node, walk order
    sites: list = field(default_factory=list)  # per report: {"loc": (l, c), "ops": [(l, c), ...]}

    @property
    def verified(self) -> bool:
        return self.status in ("legal", "illegal", "unknown")


def worst_exit(results) -> int:
    """The exit code of a run: the most severe status's (internal 4 > input 2 > illegal 1 >
    unknown 3 > legal 0); 0 for no results."""
    codes = [EXIT[r.status] for r in results] or [0]
    return max(codes, key=EXIT_RANK.index)


# ---------------------------------------------------------------- positions


def node_locs(program: ir.Program) -> list:
    """str(loc) of every node of the program that has one, in a fixed walk order (the same
    order for two programs that are equal up to positions)."""
    out: list = []

    def visit(obj):
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            for f in dataclasses.fields(obj):
                value = getattr(obj, f.name)
                if f.name == "loc":
                    if isinstance(value, Loc):
                        out.append(str(value))
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


def _map_strings(obj, fn):
    if isinstance(obj, str):
        return fn(obj)
    if isinstance(obj, list):
        return [_map_strings(x, fn) for x in obj]
    if isinstance(obj, dict):
        return {k: _map_strings(v, fn) for k, v in obj.items()}
    return obj


def _hide_locs(obj, locs: list, filename: str):
    if not filename or not locs:
        return obj
    index: dict = {}
    for n, s in enumerate(locs):
        index.setdefault(s, n)
    pattern = re.compile("|".join(re.escape(s) for s in sorted(index, key=len, reverse=True)) + r"(?!\d)")
    return _map_strings(obj, lambda s: pattern.sub(lambda m: _MARK.format(index[m.group(0)]), s)
                        if filename in s else s)


def _show_locs(obj, locs: list):
    def sub(s):
        if "\x00" not in s:
            return s
        return _MARK_RE.sub(lambda m: locs[int(m.group(1))] if int(m.group(1)) < len(locs) else "?", s)
    return _map_strings(obj, sub)


# ---------------------------------------------------------------- packing


def pack_reports(reports, program: ir.Program, filename: str) -> list:
    """KernelReports as JSON-able dicts, source positions in strings made placeholders."""
    packed = []
    for r in reports:
        obls = [{f: getattr(o, f) for f in _FIELDS} for o in r.obligations]
        packed.append({"kernel": r.kernel, "obligations": obls})
    packed = json.loads(json.dumps(packed, default=str))
    return _hide_locs(packed, node_locs(program), filename)


def kernel_reports(result: FileResult) -> list:
    """The result's reports as verify.KernelReport objects (for verify.format_report and
    verify.file_report_json), positions filled in for the file as it is now."""
    from ..verify.kernel_report import KernelReport

    out = []
    for rep in _show_locs(result.reports, result.loc_strings):
        obls = [Obligation(**{f: o[f] for f in _FIELDS}) for o in rep["obligations"]]
        out.append(KernelReport(result.path, rep["kernel"], obls))
    return out


def verdict_of(packed: list) -> str:
    from types import SimpleNamespace

    from ..core.obligations import verdict

    return verdict([SimpleNamespace(status=o["status"]) for r in packed for o in r["obligations"]])


def has_unknown(packed: list) -> bool:
    return any(o["status"] == "unknown" for r in packed for o in r["obligations"])


def merged_json(result: FileResult) -> dict:
    """`vsched verify --json`'s object for the file (verify.file_report_json)."""
    from ..verify.kernel_report import file_report_json

    return file_report_json(kernel_reports(result), result.path)


def text_report(result: FileResult, first: bool = False, timeout: float | None = None) -> str:
    """The human report of `vsched verify` for one verified file: its kernels' reports (the
    first with the column headers; the legend before it when `first`, the run's first
    report), on illegal or unknown what to do next (gate/legend.py), and its verdict."""
    from ..verify.kernel_report import format_report
    from .legend import header, legend, next_step

    lines = [legend()] if first else []
    for n, report in enumerate(kernel_reports(result)):
        text = format_report(report)
        if n == 0:
            head, _, rest = text.partition("\n")
            text = "\n".join([head, header(), rest] if rest else [head, header()])
        lines.append(text)
    advice = next_step(result.path, result.status, timeout)
    if advice:
        lines.append(advice)
    lines.append(f"{result.path}: {result.status}")  # the last line, as always (scripts read it)
    return "\n".join(lines)


def findings(result: FileResult):
    """(report name, obligation dict, line, col) of every refuted or unknown obligation, in
    report order, positions filled in; the line and column are the op's (op_index >= 1),
    else the claim's or the kernel's."""
    reports = _show_locs(result.reports, result.loc_strings)
    for n, rep in enumerate(reports):
        site = result.sites[n] if n < len(result.sites) else {"loc": (1, 1), "ops": []}
        for o in rep["obligations"]:
            if o["status"] == "proved":
                continue
            k = o["op_index"]
            line, col = site["ops"][k - 1] if 1 <= k <= len(site["ops"]) else site["loc"]
            yield rep["kernel"], o, line, col


def finding_text(kernel: str, o: dict) -> str:
    """One line for a refuted or unknown obligation: kind, status, where, the message."""
    where = o["op"] if o["op_index"] == 0 else f"op {o['op_index']} `{o['op']}` of kernel {kernel}"
    return f"{o['kind']} {o['status']} in {where}: {o['message']}"


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
    "loc_strings", "sites"} (FileResult's fields)
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
    packed = pack_reports(reports, program, path)
    return {"status": verdict_of(packed), "reports": packed, "seconds": time.perf_counter() - t0,
            "loc_strings": node_locs(program), "sites": program_sites(program)}
