"""The `in_bounds` goal of a kernel (as it stands, or after an op), as data.

Formal statement: for all params satisfying the constraints, every instance s of the
(may-)domain and every access T[f(s)] of it: 0 <= f(s) < dims(T) + pad(T) per dimension; and
every loop bound, index expression, integer comparison and shared/local cell count fits int64
for every admitted size (verified_sched/analysis/int_range.py).

One `AllOf` conjunction, decided in this order by `discharge`:
1. per affine access, `IslEmpty`: the access's cells outside the storage box (polyhedral/
   polyhedral/checks.py `access_violations`); a sample point is the witness (a statement with loop bounds
   that depend on data only approximates its instances: unknown, not refuted);
2. per integer access isl cannot state (products of sizes) and per dynamic index (reads as
   symbols bounded by the enclosing guards and the tensor's declared `inputs` range),
   `Z3Implies` (smt/bounds.py `access_query`); a model is the witness, unless the values that
   break it are data nobody promised (unknown);
3. the int64 range of index arithmetic (int_range.prove, structural).
"""
from __future__ import annotations

import math

from polyhedral import checks
from polyhedral.model import KernelModel
from ...analysis import int_range
from ...core import ir
from ...core.budget import DEFAULT_TIMEOUT
from ...core.obligations import AllOf, Decided, Goal, IslEmpty, Procedure, Z3Implies

STATEMENT = ("forall params, instances s: every access f_s(s) lies in [0, dims + pad) of its tensor; "
             + int_range.STATEMENT)


def in_bounds_goal(model: KernelModel, label: str, timeout: float = DEFAULT_TIMEOUT) -> Goal:
    """The in_bounds goal of `model`'s kernel (`label` names the side in counterexamples:
    "kernel", "after")."""
    counts = {}

    def parts() -> list:
        affine, pending, total = checks.split_accesses(model)
        counts.update(total=total, z3=len(pending))
        out = [IslEmpty(lambda st=st, acc=acc: checks.access_violations(model, st, acc),
                        lambda pt, st=st, acc=acc: checks.access_witness(model, st, acc, pt, label))
               for st, acc in affine]
        out += [_z3_part(model, st, acc, label, timeout) for st, acc in pending]
        return out + [Procedure(lambda: _int64(model))]

    def proved(answers: list) -> Decided:  # every part proved
        message = f"{counts['total']} accesses stay within storage"
        if counts["z3"]:
            return Decided("proved", message + f" ({counts['z3']} non-affine decided by z3)", engine="z3")
        return Decided("proved", message)
    return Goal("in_bounds", STATEMENT, AllOf(parts, proved))


def in_bounds(model: KernelModel, label: str = "after", timeout: float = DEFAULT_TIMEOUT):
    """The goal discharged on its own (no deadline): its Obligation."""
    from ..discharge import discharge
    return discharge([in_bounds_goal(model, label, timeout)], 0.0)[0]


def _z3_part(model: KernelModel, st, acc, label: str, timeout: float) -> Z3Implies:
    from smt.bounds import LOOSE, access_query, read_symbols
    from smt.intexpr import NoTerm

    prog = model.program
    dynamic = any(isinstance(n, ir.Load) for n in ir.walk(acc.index))
    loose = []

    def query():
        stable = {t.name for t in prog.tensors} - {a.tensor for s in model.stmts for a in s.accesses if a.write}
        ranges = {n: (math.ceil(r.lo), math.floor(r.hi)) for r in prog.inputs if r.grid_exp == 0
                  for n in r.tensors}
        loops = [(lp.var, lp.lo, lp.hi) for lp in st.loops]
        # where the access is evaluated: under its lazy context (where branch, condition)
        guards = list(st.guards if acc.context is None else acc.context)
        facts = []
        try:
            facts, goal, dropped = access_query(prog.params, prog.constraints, loops, guards, acc.index,
                                                prog.tensor(acc.tensor).storage_dims(),
                                                read_symbols(facts, stable, ranges), facts)
        except NoTerm as exc:
            return Decided("unknown", f"{st.sid}: access to {acc.tensor} not decided ({exc})", engine="z3")
        loose.append(dropped)
        return facts, goal

    def witness(model_values: dict) -> Decided:
        if loose and loose[0]:
            return Decided("unknown", f"{st.sid}: access to {acc.tensor} not decided ({LOOSE})", engine="z3")
        if dynamic:
            # the values that break it are data nobody promised: not a replayable refutation
            return Decided("unknown", f"{st.sid}: dynamic index into {acc.tensor} may leave storage (no guard "
                           "or declared `inputs` range bounds it)", engine="z3")
        return checks.z3_access_witness(model, st, acc, model_values, label)

    return Z3Implies(query, witness, "in bounds", timeout, f"{st.sid}: access to {acc.tensor} not decided")


def _int64(model: KernelModel) -> Decided:
    status, message, cex = int_range.prove(model.program, model.kernel.name)
    return Decided(status, message, counterexample=cex, engine="structural")
