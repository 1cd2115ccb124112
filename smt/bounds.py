"""in_bounds of an access whose index is integer but not affine (isl cannot state it).

Formal statement: for all sizes satisfying the constraints and every instance (loop bounds
and affine guards of the statement), 0 <= index_d < storage_d for every dimension d. Asked
of z3 as the satisfiability of its negation; a model is the counterexample.
"""
from __future__ import annotations

import z3

from .intexpr import NoTerm, cond, term


def read_symbols(facts: list, stable=frozenset(), ranges=None):
    """A `load` function for intexpr.term: each read of an integer tensor becomes a z3 symbol,
    bounded by the tensor's declared value range (else the i32 range). Reads of a tensor the
    kernel never writes (`stable`) with equal index expressions share one symbol — within one
    instance they read the same cell, which holds the same value; any other read gets a fresh
    symbol, so nothing is assumed about values a kernel may change in between."""
    ranges = ranges or {}
    symbols = {}

    def load(node):
        key = node if node.tensor in stable else object()
        if key not in symbols:
            v = symbols[key] = z3.Int(f"{node.tensor}#{len(symbols)}")
            lo, hi = ranges.get(node.tensor, (-2 ** 31, 2 ** 31 - 1))
            facts.extend([lo <= v, v <= hi])
        return symbols[key]
    return load


def access_query(params, constraints, loops, guards, index, storage, load=None, facts=None):
    """(facts, goal, loose) stating in_bounds of one access for z3: `loops` (var, lo, hi)
    outermost first; `guards` IR conditions (one without an integer meaning is dropped, which
    only adds instances, and `loose` is then True: a refutation is not replayable, a proof
    stays sound); `storage` extents; `load` and `facts`: reads as symbols (read_symbols) and
    the facts it collects about them. NoTerm when the index or a bound has no integer term."""
    env = {p: z3.Int(p) for p in params}
    facts, loose = (facts if facts is not None else []), False
    facts += [cond(c, env) for c in constraints]
    for var, lo, hi in loops:
        v = env.setdefault(var, z3.Int(var))
        facts += [term(lo, env) <= v, v < term(hi, env)]
    goal = z3.And(*[z3.And(0 <= term(e, env, load), term(e, env, load) < term(d, env))
                    for e, d in zip(index, storage)])
    for g in guards:
        try:
            facts.append(cond(g, env, load))
        except NoTerm:
            loose = True
    return facts, goal, loose


LOOSE = "the out-of-bounds instance needs a data-dependent guard to hold"
