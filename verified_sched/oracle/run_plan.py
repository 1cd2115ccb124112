"""Which backends `vsched run` uses on each side of a comparison, and how an outcome is named.

One rule for both sides: the serial C backend runs hardware loops one
iteration after another and treats barriers as no-ops, so it means a GPU kernel correctly only
when no barrier sits inside a hardware loop. Such a kernel never runs in serial C, neither as
the candidate nor as the reference: the candidate goes to the GPU emulator (threads phase by
phase), the reference to the emulator too, or to the interpreter where the candidate is that
very kernel in the emulator (a backend is never its own reference). The labels printed name
the backends that actually ran.

Serial C also keeps one array per shared or local tensor for the whole kernel, not one per
block (shared) or per thread (local). That means the kernel correctly as long as each block
(thread) runs to its end before the next starts and reads only what it stored itself; it
does not when a serial or unrolled loop encloses the hardware loop, since a block's (thread's)
values then live on across that loop's iterations while the other blocks (threads) overwrite
the one array (README Semantics, "Launch scope"; issue 20). Such a kernel is declined by
serial C the same way (`per_copy_memory`).
"""
from __future__ import annotations

from ..core import ir

BACKEND = {"c": "C", "interp": "interpreter", "emulate": "GPU emulator", "cuda": "CUDA", "iree": "IREE"}


def needs_phases(program: ir.Program, kernel: str) -> bool:
    """Whether a barrier sits inside a hardware (block or thread) loop of `kernel`."""
    body = program.kernel(kernel).body
    return any(ir.is_hardware(n.axis) and ir.nodes_of(n.body, ir.Barrier) for n in ir.nodes_of(body, ir.For))


def per_copy_memory(program: ir.Program, kernel: str) -> bool:
    """Whether a shared tensor is accessed inside a block loop, or a local tensor inside any
    hardware loop, that a serial or unrolled loop encloses: its per-block (per-thread) values
    outlive one iteration of that loop, which serial C's one array cannot keep."""
    mem = {t.name: t.memory for t in program.tensors if t.memory in ("shared", "local")}
    if not mem:
        return False
    for sc in ir.walk_scoped(program.kernel(kernel).body):
        names = {n.tensor for n in ir.nodes_of(sc.stmt, (ir.Load, ir.Assign, ir.Zero))}
        kinds = {("block",) if mem[t] == "shared" else ("block", "thread") for t in names if t in mem}
        if not kinds:
            continue
        serial_above = False
        for lp in sc.loops:
            if not ir.is_hardware(lp.axis):
                serial_above = True
            elif serial_above and any(lp.axis.startswith(k) for ks in kinds for k in ks):
                return True
    return False


def serial_c_declines(program: ir.Program, kernel: str) -> bool:
    """Whether serial C cannot mean `kernel` (barriers in hardware loops, or per-copy shared
    or local values across a serial loop): another backend runs it."""
    return needs_phases(program, kernel) or per_copy_memory(program, kernel)


def choose_targets(p_ref: ir.Program, ref: str, p_cand: ir.Program, cand: str,
                   t_ref: str, t_cand: str) -> tuple:
    """(ref target, cand target, notes): the requested targets, with serial C replaced where
    the kernel has barriers inside hardware loops."""
    notes = []
    if t_cand == "c" and serial_c_declines(p_cand, cand):
        t_cand = "emulate"
        notes.append(f"vsched: note: {cand} has {_why(p_cand, cand)}; running it with --target {t_cand}")
    if t_ref == "c" and serial_c_declines(p_ref, ref):
        same = p_ref is p_cand and ref == cand
        t_ref = "interp" if (same and t_cand == "emulate") else "emulate"
        notes.append(f"vsched: note: the reference {ref} has {_why(p_ref, ref)}; "
                     f"running it in the {BACKEND[t_ref]} instead of serial C")
    return t_ref, t_cand, notes


def _why(program: ir.Program, kernel: str) -> str:
    if needs_phases(program, kernel):
        return "barriers inside hardware loops"
    return "shared or local values that outlive an iteration of a serial loop around its hardware loops"


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
