"""Per-file renderings of a verify run for `--format text|json|github` (SARIF: sarif.py),
and the run summary.

text: the human report of each claim and kernel (the file's first with column headers, the
legend line before the run's first report: report/legend.py), on illegal or unknown a line
saying what to do next, then `FILE: verdict` (as `vsched verify` always printed).
json: one `FileReport.to_json` object per line. github: one GitHub Actions
workflow command per refuted (`::error`) or unknown (`::warning`) obligation, at the op's
line and column, which GitHub shows as an annotation on the file.
"""
from __future__ import annotations

import json

from .results import finding_text, text_report


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, path: str, line, col, title: str, message: str) -> str:
    """One GitHub Actions annotation command (`::error file=...,line=...,col=...::message`)."""
    props = [f"file={_escape_property(path)}"]
    if line is not None:
        props += [f"line={int(line)}", f"col={int(col)}"]
    props.append(f"title={_escape_property(title)}")
    return f"::{level} {','.join(props)}::{_escape_data(message)}"


def github_lines(result) -> list:
    report = result.report
    if report.verdict == "error":
        line, col = report.error_loc if report.error_loc else (None, None)
        return [annotation("error", report.file, line, col, f"vsched {report.error_kind} error", report.error)]
    out = []
    for kernel, o, line, col in report.findings():
        level = "error" if o.status == "refuted" else "warning"
        out.append(annotation(level, report.file, line, col, f"vsched {o.kind}",
                              finding_text(kernel, o)))
    return out


def render(result, fmt: str, first: bool = False, timeout: float | None = None) -> str:
    """The text one verified or failed file contributes to stdout in format `fmt` (without a
    trailing newline; empty when nothing), for text, json and github. text: `first` (the
    run's first report) adds the legend; `timeout` is named in the advice on unknown."""
    if fmt == "github":
        return "\n".join(github_lines(result))
    if not result.verified:
        return ""
    if fmt == "json":
        return json.dumps(result.report.to_json())
    return text_report(result, first, timeout)


def summary(results, wall: float) -> str:
    """`vsched: N files in Ts: a legal, b illegal, c unknown, d errors (...)`, then the slowest."""
    count = {s: 0 for s in ("legal", "illegal", "unknown")}
    errors = 0
    for r in results:
        if r.verified:
            count[r.status] += 1
        else:
            errors += 1
    cached = sum(r.cached for r in results)
    lines = [f"vsched: {len(results)} files in {wall:.2f}s: {count['legal']} legal, {count['illegal']} illegal, "
             f"{count['unknown']} unknown, {errors} errors ({cached} from the proof cache)"]
    slow = sorted((r for r in results if r.verified and not r.cached), key=lambda r: -r.seconds)[:3]
    if slow:
        lines.append("vsched: slowest: " + ", ".join(f"{r.path} {r.seconds:.2f}s" for r in slow))
    return "\n".join(lines)
