"""Which backends `vsched run` uses on each side of a comparison, and how an outcome is named.

One rule for both sides: the serial C backend runs hardware loops one
iteration after another and treats barriers as no-ops, so it means a GPU kernel correctly only
when no barrier sits inside a hardware loop. Such a kernel never runs in serial C, neither as
the candidate nor as the reference: the candidate goes to the GPU emulator (threads phase by
phase), the reference to the emulator too, or to the interpreter where the candidate is that
very kernel in the emulator (a backend is never its own reference). The labels printed name
the backends that actually ran.
"""
from __future__ import annotations

from . import ir

BACKEND = {"c": "C", "interp": "interpreter", "emulate": "GPU emulator", "cuda": "CUDA", "iree": "IREE"}


def needs_phases(program: ir.Program, kernel: str) -> bool:
    """Whether a barrier sits inside a hardware (block or thread) loop of `kernel`."""
    body = program.kernel(kernel).body
    return any(isinstance(n, ir.For) and ir.is_hardware(n.axis) and
               any(isinstance(b, ir.Barrier) for b in ir.walk(n.body)) for n in ir.walk(body))


def choose_targets(p_ref: ir.Program, ref: str, p_cand: ir.Program, cand: str,
                   t_ref: str, t_cand: str) -> tuple:
    """(ref target, cand target, notes): the requested targets, with serial C replaced where
    the kernel has barriers inside hardware loops."""
    notes = []
    if t_cand == "c" and needs_phases(p_cand, cand):
        t_cand = "emulate"
        notes.append(f"vsched: note: {cand} has barriers inside hardware loops; running it with "
                     f"--target {t_cand}")
    if t_ref == "c" and needs_phases(p_ref, ref):
        same = p_ref is p_cand and ref == cand
        t_ref = "interp" if (same and t_cand == "emulate") else "emulate"
        notes.append(f"vsched: note: the reference {ref} has barriers inside hardware loops; "
                     f"running it in the {BACKEND[t_ref]} instead of serial C")
    return t_ref, t_cand, notes


def name_backends(report, t_ref: str, t_cand: str) -> None:
    """Let the report's text say which backend ran each side."""
    report.ref = f"{report.ref} ({BACKEND[t_ref]})"
    report.cand = f"{report.cand} ({BACKEND[t_cand]})"


def outcome(report) -> str:
    """'ok', 'VACUOUS' (equal, but every output is zero or poison in both runs: the comparison
    showed nothing; a failure) or 'DIFFERENT'."""
    if report.ok:
        return "ok"
    return "VACUOUS" if report.equal else "DIFFERENT"
