"""The words of `vsched verify`'s text report, for a reader who meets them the first time: the
column headers, a one-line legend (printed before the first report of a run), what each
obligation kind proves (`vsched explain KIND`), and the line that says what to do next on an
illegal or unknown file. tests/test_verify_legend.py checks the kinds and engines here against
verified_sched/core/obligations.py."""
from __future__ import annotations

# one line per obligation kind (README "Verification" has the full statements)
KINDS = {
    "precondition": "the op applies: its loops and tensors exist, the nest has the shape it needs",
    "in_bounds": "every access stays inside its tensor's storage (padding included)",
    "coverage": "every original instance runs exactly once after the op (or writes equal values)",
    "dependence": "every read keeps its last writer, every cell its final writer (the values are kept)",
    "reassociation": "accumulations into one cell keep their order, or reordering is exact or allowed",
    "independence": "no two iterations of a vectorized, block or thread loop conflict",
    "race": "no two GPU threads conflict within a barrier phase",
    "barrier_uniformity": "every barrier is reached by all threads of its block or by none",
    "dataflow": "a staged or privatized read sees the value the original read",
    "bijection": "a layout map (swizzle) is one-to-one and stays in its range",
    "privatize_condition": "no thread stores back an untouched accumulator over another's update",
    "injective_partials": "distinct iterations of split_reduction use distinct partial cells",
    "equivalence": "two computations (or the two kernels of a claim) give the same values",
    "exactness": "both forms are exact in f32 for the declared input ranges (Winograd)",
    "hardware_limits": "threads and shared memory per block fit the device for all sizes",
    "profile": "the op is allowed under the active profile",
}

ENGINES = {
    "isl": "integer sets (polyhedral, exact)",
    "z3": "the SMT solver",
    "structural": "by the program's structure",
    "run": "found by running the kernels",
}

STATUSES = {"proved": "for all sizes", "refuted": "with a counterexample", "unknown": "not decided: never legal"}


def header() -> str:
    """The column headers, aligned with verify/kernel_report.format_report's obligation lines."""
    return f"    {'status':<8} {'kind':<14} {'engine':<10} {'seconds':>8}  message"


def legend() -> str:
    """One line naming the statuses, kinds and engines of the report."""
    statuses = ", ".join(f"{s} ({w})" for s, w in STATUSES.items())
    engines = ", ".join(f"{e} = {w}" for e, w in ENGINES.items())
    return f"legend: {statuses}; kind: what is proved (`vsched explain KIND`); engine: {engines}"


def explain_kind(kind: str) -> str:
    """`vsched explain KIND`: what the kind proves."""
    return f"{kind}: {KINDS[kind]} (docs/verification.md)"


def next_step(path: str, status: str, timeout: float | None = None) -> str | None:
    """What to do about an illegal or unknown file (None when legal)."""
    if status == "illegal":
        return (f"{path}: next: each refuted obligation above carries a counterexample; `vsched explain "
                f"{path} --op K -o page.html` draws op K's, `vsched run {path}` runs both versions")
    if status == "unknown":
        budget = f" (now {timeout:g} s)" if timeout else ""
        return (f"{path}: next: unknown is not legal; retry with a larger --timeout{budget}, or split the "
                f"schedule into smaller steps; `vsched explain KIND` says what a kind needs")
    return None
