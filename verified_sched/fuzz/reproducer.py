"""A finding as a self-contained `.vs` reproducer: the shrunk program (with its schedule), an
`# expect:` line (the verdict the verifier must reach), the sizes that show the finding and
the command that reproduces it; plus `reproduce(path)`, which re-checks such a file."""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..core.budget import DEFAULT_TIMEOUT
from ..core.printer import print_program
from ..ops.registry import SPECS

EXPECT = {"verifier": "illegal", "counterexample": None, "backend": "legal", "crash": None}


def _sizes_text(sizes: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in sizes.items())


def sizes_line(sizes: list) -> str:
    """The `# fuzz-sizes:` line of a reproducer (read back by `read_sizes`)."""
    return f"# fuzz-sizes: {'; '.join(_sizes_text(s) for s in sizes)}"


# the ops that add or replace statements (OpSpec.structural), in registry order
STRUCTURAL = tuple(s.keyword for s in SPECS if s.structural)


def signature(kind: str, ops: list, obligation: str = "", op: str = "", message: str = "") -> str:
    """What makes two findings the same (with their kind and op: `finding_key`): for a
    counterexample finding the obligation kind, the op it belongs to and the structural ops
    of the schedule (those that add statements or tensors); for a backend finding how the
    backend failed (wrong values, or the exception it raised), whatever the schedule, since
    the bug is the backend's; for the other kinds the set of ops of the schedule. Loop-only
    ops around a bug (another split, a retype) do not make a new finding."""
    if kind == "counterexample":
        extra = "+".join(sorted({o for o in ops if o in STRUCTURAL})) or "loops"
        return f"{kind}:{obligation}:{op}:{extra}"
    if kind == "backend":
        m = re.search(r"the backend raised (\w+)", message)
        return f"{kind}:{'raised ' + m.group(1) if m else 'differs'}"
    return f"{kind}:{'+'.join(sorted(set(ops))) or 'no-ops'}"


def finding_key(record: dict) -> tuple:
    """(kind, op, signature): findings with the same key are one finding, counted."""
    return record["kind"], record.get("op", ""), record["signature"]


def finding_record(ex, outcome, cfg, flaky: bool = False) -> dict:
    f = outcome.finding
    text = print_program(ex.program)
    name = f"{f.kind}-{hashlib.sha256(text.encode()).hexdigest()[:10]}.vs"
    sizes = f.sizes or list(ex.sizes)
    size_arg = _sizes_text(sizes[0]) if sizes and sizes[0] else ""
    if f.kind == "verifier":
        target = {"emulate": " --target emulate --races", "interp": " --target interp"}.get(f.target, "")
        cmd = (f"vsched verify {name}   # says legal\n# then: vsched run {name} --size {size_arg}{target}"
               f"   # DIFFERENT or FAILED")
        expect = "illegal"
    elif f.kind == "counterexample":
        cmd = (f"vsched verify {name}   # refutes {f.obligation} at {size_arg}\n"
               f"# then: vsched run {name} --size {size_arg}   # but the kernels agree there")
        expect = f"illegal {f.obligation}"
    elif f.kind == "backend":
        cmd = f"vsched fuzz --reproduce {name} --backend {cfg.backend}"
        expect = "legal"
    else:
        cmd = f"vsched verify {name}   # raises"
        expect = None
    lines = [f"# vsched fuzz finding: {f.kind}" + (" (flaky: did not fail again when replayed)" if flaky else "")]
    lines += ["# " + line for line in f.message.splitlines()[:12]]
    lines.append(sizes_line(sizes))
    lines.append(f"# reproduce: {cmd}")
    if expect:
        lines.append(f"# expect: {expect}")
    return {"kind": f.kind, "message": f.message, "op": f.op,
            "signature": signature(f.kind, outcome.ops, f.obligation, f.op, f.message),
            "name": name, "text": "\n".join(lines) + "\n" + text, "sizes": sizes, "ops": outcome.ops,
            "lines": text.count("\n"), "flaky": flaky}


def write(record: dict, folder: Path, cwd: str | None = None) -> Path:
    """Write the reproducer into `folder`; its `# reproduce:` commands name it by its path
    from `cwd` (where the campaign was started), so they run as printed from there."""
    import os
    import shlex

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / record["name"]
    shown = str(path.resolve())
    if cwd:
        rel = os.path.relpath(path.resolve(), Path(cwd).resolve())
        shown = shown if rel.startswith("..") else rel
    shown = shlex.quote(shown)
    lines = [re.sub(rf"(?<![\w./-]){re.escape(record['name'])}(?![\w.-])", shown, line)
             if line.startswith(("# reproduce:", "# then:")) else line
             for line in record["text"].split("\n")]
    path.write_text("\n".join(lines))
    return path


def read_sizes(text: str) -> list:
    """The size sets of a reproducer's `# fuzz-sizes:` line (empty when none)."""
    m = re.search(r"^# fuzz-sizes: (.*)$", text, re.M)
    if not m:
        return []
    out = []
    for part in m.group(1).split(";"):
        part = part.strip()
        if part:
            out.append({k: int(v) for k, v in (kv.split("=") for kv in part.split(","))})
    return out


def reproduce(path: str, backend=None, timeout: float = DEFAULT_TIMEOUT):
    """Re-check a reproducer (or any .vs file with one scheduled kernel): the Outcome."""
    from ..dsl import parse_file
    from ..core.errors import UsageError
    from ..analysis.sizes import example_sizes
    from .check import check_example

    program = parse_file(path)
    if not program.schedules:
        raise UsageError(f"{path}: no schedule to check")
    sizes = read_sizes(Path(path).read_text()) or example_sizes(program, 3)
    return check_example(program, program.schedules[0].kernel, sizes, backend, timeout)
