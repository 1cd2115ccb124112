"""A shared or local tensor lives for one launch (README, Semantics: each top-level statement
of a kernel is one launch; a launch with hardware loops gets fresh shared and local memory,
as on a GPU and in the emulator). A value written to one in a launch and read in another,
where either launch has hardware loops, is gone by the time it is read.

Goal (kind `dataflow`), stated only for a kernel where some shared or local tensor is written
in one top-level statement and read in another, one of them with hardware loops: the verifier
does not yet decide whether such a read sees a value written in its own launch, so the goal
is `unknown` (never proved); a kernel without such a pair gets no goal. Found by `vsched fuzz`:
privatize's load loop retyped to `block.x` was proved legal while the accumulation, in the
next launch, read dead local copies.
"""
from __future__ import annotations

from .. import ir
from ..obligations import Decided, Goal

STATEMENT = ("shared and local tensors live for one launch: no value of one crosses the boundary of a "
             "launch with hardware loops")


def _accesses(program: ir.Program, stmt) -> tuple:
    """(hardware?, scratch tensors written, scratch tensors read) of one top-level statement."""
    scratch = {t.name for t in program.tensors if t.memory in ("shared", "local")}
    hw, written, read = False, set(), set()
    for n in ir.walk(stmt):
        if isinstance(n, ir.For) and ir.is_hardware(n.axis):
            hw = True
        elif isinstance(n, (ir.Assign, ir.Zero)) and n.tensor in scratch:
            written.add(n.tensor)
        elif isinstance(n, ir.Load) and n.tensor in scratch:
            read.add(n.tensor)
    return hw, written, read


def crossing(program: ir.Program, kernel_name: str) -> list:
    """Shared/local tensors written in one top-level statement and read in another, either of
    them with hardware loops (sorted names)."""
    parts = [_accesses(program, s) for s in program.kernel(kernel_name).body]
    out = set()
    for i, (hw_i, w_i, _) in enumerate(parts):
        for j, (hw_j, _, r_j) in enumerate(parts):
            if i != j and (hw_i or hw_j):
                out |= w_i & r_j
    return sorted(out)


def launch_scope_goals(program: ir.Program, kernel_name: str) -> list:
    """[] or the one `dataflow` goal (module docstring)."""
    names = crossing(program, kernel_name)
    if not names:
        return []
    return [Goal("dataflow", STATEMENT, Decided(
        "unknown", f"{', '.join(names)} (shared/local) is written in one launch and read in another, one of them "
        "with hardware loops: the value may be gone (each launch gets fresh shared and local memory), which "
        "the verifier does not decide", STATEMENT, engine="structural"))]
