"""`vsched check-pass`: translation validation of MLIR loop passes for all sizes.

    vsched check-pass FILE.mlir --pass PIPELINE [--iree-opt PATH]   run the pipeline, then check
    vsched check-pass BEFORE.mlir --after AFTER.mlir                check a pair made by any tool
    vsched check-pass FILE.mlir --pass PIPELINE --each-pass          each pass separately

Both functions are imported (affine_import.py) into one program: kernel `before`, kernel
`after` over the same argument tensors and params, and `claim after == before`. The params at
which `before` stays in bounds (pass_precondition.py) become constraints: MLIR leaves the other
sizes undefined. `vsched verify` then proves, for all sizes: the claim (every observable cell
holds the same value: the same expression tree, a reduction's terms in the same order unless
the profile licenses reassociation) and each kernel's own obligations (after stays in bounds
where before does). A refuted claim is kept only when running both kernels in C shows it (the
verifier's replay); the program is written (`-o`, else a temporary file) so that `vsched run`
replays the counterexample. Exit 0 proved, 1 refuted, 3 unknown, 2 usage/input errors.
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

from verified_sched.core import ir
from verified_sched.core.errors import UsageError

from .affine_import import import_affine_functions, program_of
from .affine_values import find_iree_opt
from .pass_precondition import in_bounds_constraints


@dataclass
class PassCheck:
    """The outcome of one before/after pair."""

    verdict: str  # proved | refuted | unknown
    program_text: str
    reports: list
    note: str = ""

    @property
    def exit_code(self) -> int:
        return {"proved": 0, "refuted": 1}.get(self.verdict, 3)


def pipeline_arg(pipeline: str) -> str:
    """A --pass-pipeline argument: a bare list of passes runs on each func.func."""
    p = pipeline.strip()
    if p.startswith("builtin.module("):
        return p
    return f"builtin.module(func.func({p}))"


def run_pipeline(text: str, pipeline: str, tool: str | None = None, extra=()) -> subprocess.CompletedProcess:
    found = find_iree_opt(tool)
    if found is None:
        raise UsageError("check-pass --pass needs iree-opt (pip install '.[iree]') or --iree-opt PATH")
    try:
        r = subprocess.run([found, f"--pass-pipeline={pipeline_arg(pipeline)}", *extra, "-"], input=text,
                           capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise UsageError(f"cannot run {found}: {e}") from None
    if r.returncode != 0:
        message = (r.stderr.strip().splitlines() or ["failed"])[0].replace("<stdin>", "input")
        raise UsageError(f"{os.path.basename(found)} --pass-pipeline={pipeline_arg(pipeline)}: {message[:400]}")
    return r


def claim_program(before_text: str, after_text: str, before_name: str = "<before>", after_name: str = "<after>",
                  func: str | None = None, profile: str | None = None, iree_opt: str | None = None,
                  assume=()) -> ir.Program:
    """The program `kernel before`, `kernel after`, `claim after == before` (parsed, with the
    in-bounds precondition of before among its constraints)."""
    from verified_sched.dsl.parser import parse_text
    from verified_sched.core.printer import print_program

    bs = import_affine_functions(before_text, before_name, iree_opt=iree_opt)
    b = _pick(bs, func, before_name)
    as_ = import_affine_functions(after_text, after_name, prefix="a_", arg_names=b.args, iree_opt=iree_opt)
    a = _pick(as_, b.name, after_name)
    if len(a.args) != len(b.args):
        raise UsageError(f"{after_name}: function @{a.name} has {len(a.args)} arguments, the before one "
                         f"{len(b.args)}")
    b.name, a.name = "before", "after"
    program = program_of([b, a], ("after", "before"), profile)
    if assume:  # constraints the caller knows of the params (the fuzzer: its program's own)
        from dataclasses import replace
        program = replace(program, constraints=program.constraints + tuple(assume))
    program = parse_text(print_program(program), "check.vs")
    extra = in_bounds_constraints(program, "before")
    if extra:
        from dataclasses import replace
        program = replace(program, constraints=program.constraints + tuple(extra))
        program = parse_text(print_program(program), "check.vs")
    return program


def _pick(funcs: list, name: str | None, where: str):
    if name is None:
        return funcs[0]
    for f in funcs:
        if f.name == name:
            return f
    raise UsageError(f"{where}: no function @{name}")


def check_pair(before_text: str, after_text: str, before_name="<before>", after_name="<after>", func=None,
               profile: str | None = None, timeout: float | None = None, iree_opt=None, assume=()) -> PassCheck:
    from verified_sched.core.budget import DEFAULT_TIMEOUT
    from verified_sched.core.printer import print_program
    from verified_sched.verify.driver import verify_program

    program = claim_program(before_text, after_text, before_name, after_name, func, profile, iree_opt, assume)
    text = print_program(program)
    reports = verify_program(program, profile, timeout or DEFAULT_TIMEOUT, "check.vs")
    by = {r.kernel: r for r in reports}
    claim = by.get("after == before")
    after, before = by.get("after"), by.get("before")
    note = ""
    if before is not None and before.verdict == "illegal":
        note = ("the before function itself is refuted (its report: an access outside a memref at sizes the "
                "constraints cannot exclude, or a parallel loop whose iterations conflict)")
        return PassCheck("unknown", text, reports, note)
    verdicts = [r.verdict for r in (claim, after) if r is not None]
    if "illegal" in verdicts:
        return PassCheck("refuted", text, reports)
    if all(v == "legal" for v in verdicts):
        return PassCheck("proved", text, reports)
    return PassCheck("unknown", text, reports)


def split_dumps(stderr: str) -> list:
    """[(pass title, IR text)] of `--mlir-print-ir-after-all` output."""
    out, title, lines = [], None, []
    for line in stderr.splitlines():
        if line.startswith("// -----// IR Dump After "):
            if title is not None:
                out.append((title, "\n".join(lines)))
            title = line[len("// -----// IR Dump After "):].split(" //")[0].strip()
            lines = []
        elif title is not None:
            lines.append(line)
    if title is not None:
        out.append((title, "\n".join(lines)))
    return out
