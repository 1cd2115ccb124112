"""A kernel's (or claim's) verification report (`core/file_report.KernelReport`), its JSON and its text: what a cached result is
rendered from, so rendering imports neither the verifier nor its engines."""
from __future__ import annotations

from ..core.cex_text import cex_lines
from ..core.file_report import FileReport, KernelReport


def file_report_json(reports, filename: str) -> dict:
    """One object per file: claims and kernels together (`FileReport.to_json`)."""
    return FileReport(filename, list(reports)).to_json()


def format_report(report: KernelReport) -> str:
    head = f"{report.file + ': ' if report.file else ''}{report.kernel}: {report.verdict.upper()}"
    if report.reassociates:
        head += " (reassociates a reduction)"
    lines = [head]
    current = None
    for o in report.obligations:
        if (o.op_index, o.op) != current:
            current = (o.op_index, o.op)
            lines.append(f"  [{o.op_index}] {o.op}" if o.op_index else f"  {o.op}")
        lines.append(f"    {o.status:<8} {o.kind:<14} {o.engine:<10} {o.seconds:7.3f}s  {o.message}")
        for line in cex_lines(o) if o.status == "refuted" else []:
            lines.append(f"        {line}")
    return "\n".join(lines)
