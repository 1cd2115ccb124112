"""A kernel's (or claim's) verification report, its JSON and its text: what a cached result is
rendered from, so rendering imports neither the verifier nor its engines."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..core.cex_text import cex_lines
from ..core.obligations import verdict


@dataclass
class KernelReport:
    file: str
    kernel: str
    obligations: list = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return verdict(self.obligations)

    @property
    def reassociates(self) -> bool:
        return any(o.reassociates for o in self.obligations)

    def to_json(self) -> dict:
        return {"file": self.file, "kernel": self.kernel, "verdict": self.verdict,
                "reassociates": self.reassociates, "obligations": [o.to_json() for o in self.obligations]}


def file_report_json(reports, filename: str) -> dict:
    """One object per file: claims and kernels together."""
    obls = [o for r in reports for o in r.obligations]
    return {"file": filename, "kernel": ", ".join(r.kernel for r in reports), "verdict": verdict(obls),
            "reassociates": any(r.reassociates for r in reports),
            "obligations": [o.to_json() for o in obls]}


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
