"""The verify driver: every op as translation validation of its (before, after) pair.

For each kernel: the kernel's own obligations (in_bounds, independence of its parallel loops,
race between hardware threads), then per schedule op the precondition (apply raised?), the
op's own obligations (its `OpSpec.obligations(ctx)`, ops/spec.py) and the generic ones: in_bounds,
coverage, dependence, reassociation and independence of newly parallel loops. An op's spec
narrows the generic set (`OpSpec.generic`, a sub-tuple of GENERIC) when its own obligations
replace them (a rewrite that changes what statements compute).
For each `claim A == B`: contraction equivalence with multiplicities.
"""
from __future__ import annotations

from collections import Counter

import time
from dataclasses import dataclass
from functools import cached_property

from polyhedral import checks
from polyhedral.model import KernelModel
from ..core import budget, ir
from ..core.target_limits import SHARED_LIMIT
from ..core.budget import DEFAULT_TIMEOUT
from ..core.errors import ScheduleError
from .discharge import discharge
from ..core.file_report import KernelReport
from .generic.in_bounds import in_bounds_goal
from .generic.independence import independence_goal
from .generic.launch_scope import launch_scope_goals
from .generic.race import barrier_goal, race_goal
from ..core.obligations import Goal, Obligation, Procedure

GENERIC = ("in_bounds", "coverage", "dependence", "reassociation", "independence")
# shared-memory bytes per block for hardware_limits (a one-element list so a CLI option can set it)


@dataclass
class OpContext:
    """What an op's `obligations(ctx)` gets: both programs, the op and model helpers."""

    program_before: ir.Program
    program_after: ir.Program
    kernel_name: str
    op: object
    op_index: int
    profile: str
    timeout: float
    deadline: float = 0.0
    shared_limit: int = SHARED_LIMIT  # bytes of shared memory per block

    # short names used by the op modules
    @property
    def before(self) -> ir.Program:
        return self.program_before

    @property
    def after(self) -> ir.Program:
        return self.program_after

    @property
    def kernel(self) -> str:
        return self.kernel_name

    @cached_property
    def model_before(self) -> KernelModel:
        return KernelModel(self.program_before, self.kernel_name, tag="B")

    @cached_property
    def model_after(self) -> KernelModel:
        return KernelModel(self.program_after, self.kernel_name, tag="A")


guarded = budget.guarded  # re-exported: fn() inside one obligation's budget

# the formal statements of the driver's goals (a check's answer may refine its statement)
STATEMENTS = {
    "coverage": "the op performs exactly the original statement instances (provenance is a bijection)",
    "dependence": "forall params, dependences (b1 -> b2) of before: the after instances of b1 run before "
                  "the after instances of b2",
    "hardware_limits": "the launch respects the target's thread, grid and shared-memory limits",
    "equivalence": "the two kernels compute the same values",
}


def check(kind: str, fn) -> Goal:
    """The driver's goal `kind` decided by the check `fn()` (a Decided, or a list of (kind,
    Decided) when one computation decides several kinds)."""
    return Goal(kind, STATEMENTS[kind], Procedure(fn))


def idempotent(model: KernelModel):
    return checks.idempotent_fn(model)


def kernel_goals(program, kernel_name, shared_limit=SHARED_LIMIT) -> list:
    """The kernel's own goals (op_index 0): in_bounds, independence, race."""
    model = KernelModel(program, kernel_name, tag="K")
    out = [in_bounds_goal(model, "kernel")]
    for loop, inside, depth in checks.parallel_loops(model):
        out.append(independence_goal(model, loop, inside, depth, "kernel"))
    return out + gpu_goals(program, kernel_name, model, "kernel", shared_limit)


def kernel_obligations(program, kernel_name, deadline, shared_limit=SHARED_LIMIT) -> list:
    """The kernel's own obligations, discharged."""
    return discharge(kernel_goals(program, kernel_name, shared_limit), deadline, 0, f"kernel {kernel_name}")


def _hardware_limits(program, kernel_name, shared_limit):
    from .gpu_limits import hardware_limits  # z3: loaded for kernels with hardware loops only

    return hardware_limits(program, kernel_name, shared_limit)


def gpu_goals(program, kernel_name, model: KernelModel, label: str, shared_limit=SHARED_LIMIT,
              before=None) -> list:
    """barrier_uniformity (when the kernel has barriers), race and hardware_limits (when it has
    hardware loops) of one kernel: polyhedral/race.py, polyhedral/phases.py, gpu_limits.py."""
    out = []
    if model.barriers:
        out.append(barrier_goal(model))
    if any(lp.axis in ir.HW_AXES for st in model.stmts for lp in st.loops):
        out.append(race_goal(model, label))
        out.append(check("hardware_limits", lambda: _hardware_limits(program, kernel_name, shared_limit)))
    return out + launch_scope_goals(program, kernel_name, model, before)


def _new_parallel(mb: KernelModel, ma: KernelModel):
    """The parallel loops of the after-model to check: those whose (name, axis) was not
    parallel before, and every loop of a (name, axis) that more loops have after the op than
    before (one of two loops sharing a name, `retype j@2 as vectorized` while j@1 is
    vectorized, or copies of a parallel loop)."""
    before = Counter((lp.var, lp.axis) for lp, _, _ in checks.parallel_loops(mb))
    after = checks.parallel_loops(ma)
    now = Counter((lp.var, lp.axis) for lp, _, _ in after)
    return [x for x in after if now[x[0].var, x[0].axis] > before[x[0].var, x[0].axis]]


def generic_goals(ctx: OpContext) -> list:
    """The generic goals of one op (those its spec keeps: `OpSpec.generic`)."""
    from ..ops import op_spec
    generic = op_spec(ctx.op).generic
    out = []
    if "in_bounds" in generic:
        out.append(in_bounds_goal(ctx.model_after, "after", ctx.timeout))
    if "coverage" in generic:
        out.append(check("coverage", lambda: checks.coverage(ctx.model_before, ctx.model_after,
                                                             idempotent(ctx.model_after))))
    if "dependence" in generic or "reassociation" in generic:
        out.append(dependence_goal(ctx, tuple(k for k in ("dependence", "reassociation") if k in generic)))
    if "independence" in generic:
        for loop, inside, depth in _new_parallel(ctx.model_before, ctx.model_after):
            out.append(independence_goal(ctx.model_after, loop, inside, depth))
    return out + gpu_goals(ctx.program_after, ctx.kernel_name, ctx.model_after, "after", ctx.shared_limit,
                           ctx.program_before)


def dependence_goal(ctx: OpContext, kinds=("dependence", "reassociation")) -> Goal:
    """dependence and reassociation of one op (those of `kinds`): one procedure (value flow
    when the memory order changes: polyhedral/checks.py) deciding both."""
    def run():
        d, r = checks.dependence(ctx.model_before, ctx.model_after, ctx.profile)
        return [(k, f) for k, f in (("dependence", d), ("reassociation", r)) if k in kinds]
    return check("dependence", run)


def own_obligations(ctx: OpContext) -> list:
    """The op's own obligations (its module's goals), discharged. Building the goals is bounded
    by the deadline too (running out there is one `unknown` precondition); each goal gets a
    budget of its own when discharged. A ScheduleError propagates (the op does not apply)."""
    from ..ops import op_goals
    goals, reason = guarded(lambda: op_goals(ctx), ctx.deadline or float("inf"))  # 0: none, as for discharge
    if reason is not None:
        return [Obligation("precondition", ctx.op_index, ctx.op.text(), "the op's own obligations", "isl", "unknown",
                           0.0, reason)]
    return discharge(goals, ctx.deadline, ctx.op_index, ctx.op.text())


def op_obligations(ctx: OpContext) -> list:
    """The generic obligations of one op, discharged: proved on coalesced models where they
    can be (verify/coalesced.py), else on the original ones."""
    from .coalesced import coalesced_obligations

    def decide(c: OpContext, proofs_only: bool = False) -> list:
        return discharge(generic_goals(c), c.deadline, c.op_index, c.op.text(), proofs_only)
    return coalesced_obligations(ctx, decide) or decide(ctx)


def verify_kernel(program: ir.Program, kernel_name: str, profile: str, timeout: float, filename="",
                  shared_limit: int = SHARED_LIMIT) -> KernelReport:
    from ..ops import apply_memo

    # isl's budget shrinks for very many params; the schedule's prefixes are applied once
    with budget.program(len(program.params)), apply_memo.active():
        return _verify_kernel(program, kernel_name, profile, timeout, filename, shared_limit)


def _verify_kernel(program, kernel_name, profile, timeout, filename, shared_limit) -> KernelReport:
    report = KernelReport(filename, kernel_name)
    deadline = time.perf_counter() + timeout
    report.obligations += kernel_obligations(program, kernel_name, deadline, shared_limit)
    sched = program.schedule_for(kernel_name)
    if sched is None:
        return report
    from ..ops import apply_op
    current = program
    from ..ops.common import pin_provenance
    for k, op in enumerate(sched.ops, start=1):
        current = pin_provenance(current, kernel_name)  # the before side as apply_op sees it
        t0 = time.perf_counter()
        try:
            after, reason = guarded(lambda: apply_op(current, kernel_name, op), deadline)
        except ScheduleError as exc:
            report.obligations.append(Obligation("precondition", k, op.text(), "the op applies to the kernel",
                                                 "structural", "refuted", time.perf_counter() - t0, exc.message))
            return _confirmed(report, program, kernel_name, profile)
        if reason is not None:  # the op's own simplification ran out: nothing after it is checked
            report.obligations.append(Obligation("precondition", k, op.text(), "the op applies to the kernel",
                                                 "isl", "unknown", time.perf_counter() - t0, reason))
            return _confirmed(report, program, kernel_name, profile)
        report.obligations.append(Obligation("precondition", k, op.text(), "the op applies to the kernel",
                                             "structural", "proved", time.perf_counter() - t0, "applies"))
        ctx = OpContext(current, after, kernel_name, op, k, profile, timeout, deadline, shared_limit)
        try:
            own = own_obligations(ctx)
        except ScheduleError as exc:
            own = [Obligation("precondition", k, op.text(), "the op applies", "structural", "refuted", 0.0,
                              exc.message)]
        report.obligations += own
        report.obligations += op_obligations(ctx)
        current = after
    from .refute_run import refute_unknowns
    _confirmed(report, program, kernel_name, profile)
    report.obligations = refute_unknowns(program, kernel_name, report.obligations, profile)
    return report


def _confirmed(report: KernelReport, program, kernel_name, profile) -> KernelReport:
    """The report with the refutations of the ops before the last one checked confirmed by
    running (refute_run.confirm_refutations), also when a later op fails to apply."""
    from .refute_run import confirm_refutations
    report.obligations = confirm_refutations(program, kernel_name, report.obligations, profile)
    return report


def verify_claim(program: ir.Program, claim: ir.Claim, profile: str, timeout: float, filename="") -> KernelReport:
    text = f"claim {claim.a} == {claim.b}"
    report = KernelReport(filename, f"{claim.a} == {claim.b}")
    deadline = time.perf_counter() + timeout

    def run():
        from ..values import claims_value  # z3 and the value terms: loaded for claims only

        ma = KernelModel(program, claim.a, tag="A")
        mb = KernelModel(program, claim.b, tag="B")
        return claims_value.equivalence(ma, mb, profile, timeout)
    with budget.program(len(program.params)):
        # one kernel an op's rewrite of the other (an op module's `claim_goals` hook, e.g.
        # winograd's): that op's own goals decide the claim; else the value comparison
        goals, reason = guarded(lambda: op_claim_goals(program, claim, profile, timeout), deadline)
        if goals is None or reason is not None:
            goals = [check("equivalence", run)]
        report.obligations += discharge(goals, deadline, 0, text)
    from .refute_run import confirm_claim
    report.obligations = confirm_claim(program, claim, report.obligations, profile)
    return report


def op_claim_goals(program: ir.Program, claim: ir.Claim, profile: str, timeout: float):
    """The goals of the first op whose `claim_goals` hook (OpSpec) decides `claim` (one kernel is
    that op's rewrite of the other), or None."""
    from ..ops.registry import SPECS
    for spec in SPECS:
        hook = spec.claim_goals
        goals = hook(program, claim.a, claim.b, profile, timeout) if hook is not None else None
        if goals is not None:
            return goals
    return None


def verify_program(program: ir.Program, profile: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                   filename: str = "", shared_limit: int = SHARED_LIMIT) -> list:
    """One KernelReport per claim and per kernel of the program (`shared_limit`: bytes of
    shared memory a block may use, for `hardware_limits`)."""
    prof = profile or program.profile or "default"
    reports = [verify_claim(program, c, prof, timeout, filename) for c in program.claims]
    for k in program.kernels:
        reports.append(verify_kernel(program, k.name, prof, timeout, filename, shared_limit))
    return reports
