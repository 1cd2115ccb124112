"""in_bounds of an access whose index is integer but not affine (isl cannot state it).

Formal statement: for all sizes satisfying the constraints and every instance (loop bounds
and affine guards of the statement), 0 <= index_d < storage_d for every dimension d. Asked
of z3 as the satisfiability of its negation; a model is the counterexample.
"""
from __future__ import annotations

import z3

from .intexpr import NoTerm, cond, term
from .solver import Decision, decide


def access_in_bounds(params, constraints, loops, guards, index, storage, timeout=10.0) -> Decision:
    """`loops`: (var, lo, hi) outermost first; `guards`: IR conditions (a guard without an
    integer meaning makes a refutation unknown, never a proof); `storage`: extents."""
    env = {p: z3.Int(p) for p in params}
    facts, loose = [], False
    try:
        facts += [cond(c, env) for c in constraints]
        for var, lo, hi in loops:
            v = env.setdefault(var, z3.Int(var))
            facts += [term(lo, env) <= v, v < term(hi, env)]
        goal = z3.And(*[z3.And(0 <= term(e, env), term(e, env) < term(d, env)) for e, d in zip(index, storage)])
    except NoTerm as exc:
        return Decision("unknown", None, str(exc))
    for g in guards:
        try:
            facts.append(cond(g, env))
        except NoTerm:
            loose = True  # dropping a guard only adds instances: proofs stay sound
    d = decide(facts, goal, timeout)
    if d.status == "refuted" and loose:
        return Decision("unknown", None, "the out-of-bounds instance needs a data-dependent guard to hold")
    return d
