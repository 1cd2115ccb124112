"""`vsched run --target iree`: which side of each comparison runs through IREE.

The candidate of each job runs in IREE when linalg can express it (IREE takes kernels as
written, so a schedule's job becomes the kernel as written in C vs through IREE); otherwise the reference side does when it can (a claim is
symmetric); otherwise the job stays C vs C with a note. A comparison with an accumulation on
either side is within the reassociation tolerance (IREE vectorizes reductions); the rest must
agree bitwise.
"""
from __future__ import annotations

import sys

from verified_sched.oracle.compare import tolerance
from verified_sched.core import ir
from verified_sched.core.errors import VschedError

from .torch_export import STEMS



def expressible(program: ir.Program, kernel: str) -> str | None:
    """None when `kernel` emits as linalg at the first example sizes, else the reason."""
    from verified_sched.analysis.sizes import example_sizes

    from .emit import emit_mlir

    try:
        emit_mlir(program, example_sizes(program, 1)[0], [kernel])
    except VschedError as e:
        return e.message
    return None


def has_accumulation(program: ir.Program, kernel: str) -> bool:
    """An accumulation (IREE vectorizes reductions), or a call of a function IREE approximates
    with its own polynomials (tanh, erf, pow: not bitwise libm's): compared within tolerance."""
    return any((isinstance(n, ir.Assign) and ir.accumulation(n) is not None) or
               (isinstance(n, ir.Call) and n.fn in APPROXIMATED)
               for n in ir.walk(program.kernel(kernel).body))


APPROXIMATED = ("tanh", "erf", "pow")




def iree_jobs(jobs: list) -> list:
    """Rewrite cli._jobs' (label, p_ref, ref, p_cand, cand, t_ref, t_cand, rtol) for IREE."""
    out = []
    for label, p_ref, ref, p_cand, cand, t_ref, _, rtol in jobs:
        if label.startswith("schedule of"):  # IREE takes kernels as written: compare those
            p_cand, label = p_ref, f"kernel {ref} as written (C vs IREE)"
        swap = p_cand is p_ref and ref.startswith(STEMS) and not cand.startswith(STEMS)
        if swap and expressible(p_ref, ref) is None:
            ref, cand = cand, ref  # the torch-mlir lowering is the one under test: it runs in IREE
            label += f" ({ref} in C, {cand} through IREE)"
        why = expressible(p_cand, cand)
        target = "iree"
        if why is not None and p_cand is p_ref and expressible(p_ref, ref) is None:
            ref, cand = cand, ref
            label += f" ({ref} in C, {cand} through IREE)"
        elif why is not None:
            target = "c"
            print(f"vsched: note: {label}: {why}; comparing in C only", file=sys.stderr)
        if rtol is None and target == "iree" and (has_accumulation(p_ref, ref) or has_accumulation(p_cand, cand)):
            rtol = max(tolerance(p_ref, [ref]), tolerance(p_cand, [cand]))
        out.append((label, p_ref, ref, p_cand, cand, "c", target, rtol))
        out += direct_jobs(p_cand, cand if target == "iree" else None)
    return out


def direct_jobs(program: ir.Program, cand: str | None) -> list:
    """A frontend's lowering run through IREE (`torch_mlir_<g>_grad` or `turbine_<g>_grad` of a
    `conv-backward --against FRONTEND` file) is also compared with the file's direct kernel
    `<g>_grad` in C, the kernel proved equal to the chain rule (within the reassociation
    tolerance)."""
    if cand is None or not cand.startswith(STEMS):
        return []
    stem = next(s for s in STEMS if cand.startswith(s))
    direct = cand[len(stem):]
    if direct not in {k.name for k in program.kernels}:
        return []
    rtol = max(tolerance(program, [direct]), tolerance(program, [cand]))
    what = "iree-turbine" if stem == "turbine_" else "torch-mlir"
    return [(f"{what} lowering {cand} (IREE) vs the direct kernel {direct} (C)", program, direct, program, cand,
             "c", "iree", rtol)]
