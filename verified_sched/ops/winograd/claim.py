"""`claim A == B` where one kernel is the Winograd rewrite of the other.

Value trees cannot prove such a claim: Winograd's transforms compute the convolution through
an algebraic identity (scaled sums of input and filter tiles), not through the same terms in
another order. The `winograd` op (or `winograd block`) proves exactly that identity (proofs.py: coverage,
bounds, the transform identity per tile position by z3, the profile and, with declared input
ranges, exactness). A claim reuses those proofs unchanged when one side IS that rewrite of the
other: the rewrite of the other kernel (`rewrite_kernel`) is structurally equal to it, up to
statement ids and provenance (which only name instances for the verifier; `vsched show`
prints neither, so a printed scheduled program re-parsed has parser ids) and the names of
loop iterators (a partition before the rewrite renames them), and the tensors the
rewrite mints are declared as the rewrite declares them. Then the op's obligations of the
pair (other kernel, its rewrite) are the claim's, and the claim is proved exactly where the op
is: under the approximate profile (under another profile the `profile` obligation is refuted,
as for the op, and `vsched run` cannot replay it since the results agree within tolerance;
the claim path therefore leaves such a claim `unknown`).
"""
from __future__ import annotations

import dataclasses

from ...core import budget, ir
from ...core.obligations import Decided, Goal
from .apply import rewrite_kernel
from .exact import declared_ranges
from .proofs import winograd_goals


def tensors_of(kernel: ir.Kernel) -> set:
    """Names of the tensors a kernel reads, writes or zeroes."""
    out = set()
    for n in ir.walk(kernel.body):
        if isinstance(n, (ir.Load, ir.Assign, ir.Zero)):
            out.add(n.tensor)
    return out


def _anonymous(body: tuple) -> tuple:
    """The body with statement ids and provenance cleared (they carry no meaning for a run)."""
    def fn(n):
        if isinstance(n, ir.Assign) and (n.sid or n.provenance):
            return dataclasses.replace(n, sid="", provenance=())
        return None
    return tuple(ir.rewrite(s, fn) for s in body)


def _alpha(body: tuple) -> tuple | None:
    """The body with every loop iterator renamed by its binding position (`%0`, `%1`, ...:
    no identifier can be spelled so), its uses inside the loop renamed alike: two bodies equal
    after it are equal up to the names of their loop iterators, which mean nothing for a run
    (a partition before the rewrite renames `n` to `np0_0`, and the rewrite names its loops
    after it). None for a body with a tensor-core block (its lane names a loop too)."""
    count = iter(range(1 << 30))

    def go(stmts: tuple, env: dict):
        out = []
        for s in stmts:
            if isinstance(s, ir.For):
                name = f"%{next(count)}"
                out.append(dataclasses.replace(s, var=name, lo=ir.substitute(s.lo, env), hi=ir.substitute(s.hi, env),
                                               body=go(s.body, {**env, s.var: ir.Var(name)})))
            elif isinstance(s, ir.If):
                out.append(dataclasses.replace(s, cond=ir.substitute(s.cond, env), then=go(s.then, env),
                                               orelse=go(s.orelse, env)))
            elif isinstance(s, ir.TensorCore):
                raise LookupError
            else:
                out.append(ir.substitute(s, env))
        return tuple(out)
    try:
        return go(body, {})
    except LookupError:
        return None


def rewrite_pair(program: ir.Program, new: str, old: str, block: bool = False):
    """(before, after) programs of the `winograd` op (`winograd block` with `block`) that turns
    kernel `old` into kernel `new` (the after side is the op's own rewrite, with its statement
    ids), or None when `new` is not that rewrite of `old`."""
    knew, kold = program.kernel(new), program.kernel(old)
    only_new = tensors_of(knew) - tensors_of(kold)
    before = dataclasses.replace(program, tensors=tuple(t for t in program.tensors if t.name not in only_new),
                                 kernels=(kold,), schedules=(), claims=())
    after, minted, _ = rewrite_kernel(before, old, block)
    if not minted:
        return None
    mine, theirs = _anonymous(after.kernel(old).body), _anonymous(knew.body)
    if mine != theirs and (_alpha(mine) is None or _alpha(mine) != _alpha(theirs)):
        return None
    declared = {t.name: t for t in program.tensors}
    minted_tensors = [t for t in after.tensors if t.name in only_new]
    if {t.name for t in minted_tensors} != only_new or any(declared[t.name] != t for t in minted_tensors):
        return None
    return before, after


def claim_goals(program: ir.Program, a: str, b: str, profile: str,
                timeout: float = budget.DEFAULT_TIMEOUT) -> list | None:
    """The op's `claim_goals` hook (`verify.driver.verify_claim` asks every op module): the winograd
    goals deciding `claim a == b` when one kernel is the Winograd rewrite of the other; None
    otherwise (the value comparison decides). Under a profile other than approximate: one
    `unknown` equivalence (see the module docstring)."""
    for new, old, block in ((a, b, False), (b, a, False), (a, b, True), (b, a, True)):
        pair = rewrite_pair(program, new, old, block)
        if pair is None:
            continue
        if profile != "approximate":
            return [Goal("equivalence", f"{new} is the winograd rewrite of {old}", Decided(
                "unknown", f"{new} is the winograd rewrite of {old}: an algebraic identity that changes "
                f"rounding, proved only under the approximate profile (active: {profile})", engine="structural"))]
        before, after = pair
        return winograd_goals(before, after, old, profile, timeout, declared_ranges(program), block=block)
    return None
