"""hardware_limits: the launch geometry and shared memory of a GPU kernel fit the hardware.

Formal statement, per launch (top-level statement with hardware loops), for all parameter
values satisfying the constraints and every block index of the grid:
- each thread axis extent (the maximum upper bound of its loops, as codegen/gpu_lowering.py
  sizes blockDim) is <= its cap (x, y: 1024; z: 64) and their product is <= 1024;
- each grid axis extent is <= its cap (x: 2^31 - 1; y, z: 65535) when it is a constant; a
  size-dependent grid is checked by the launcher at run time (codegen/cuda.py refuses an
  oversized grid with an error, never a wrong result), since an unbounded size parameter would
  otherwise refute every blocked kernel;
- the shared tensors the launch uses take <= `shared_limit` bytes (default 48 KiB): storage
  cells * element bytes * pipeline depth. The stage op records a pipeline=2 tile as a leading
  dimension of 2 (already in its storage); a tensor attribute `pipeline` is honoured if set.
Decided by z3 (with a timeout) over the affine/integer extents: exact for symbolic sizes,
refuted with the sizes (and block) where a limit is exceeded, unknown when z3 gives up.
"""
from __future__ import annotations

import z3

from verified_sched.core.obligations import Decided
from smt.intexpr import NoTerm, cond, term
from smt.solver import solver, model_dict
from ..core import budget, ir
from ..core.counterexample import Counterexample, Instance

from ..core.target_limits import ELEMENT_BYTES, GRID_CAPS, SHARED_LIMIT, THREAD_CAPS, THREADS_PER_BLOCK  # noqa: F401

STATEMENT = ("forall params, launches and blocks: thread extents <= (1024, 1024, 64) with product <= 1024, "
             "grid extents <= (2^31-1, 65535, 65535), shared bytes * pipeline depth <= the limit")


def _max(terms):
    out = terms[0]
    for t in terms[1:]:
        out = z3.If(t >= out, t, out)
    return out


def _launch_checks(program: ir.Program, stmt, k: int, shared_limit: int, env: dict):
    """(description, z3 goal that must hold, hint) triples of one launch."""
    loops = [n for n in ir.nodes_of(stmt, ir.For) if n.axis in ir.HW_AXES]
    if not loops:
        return [], []
    facts = []
    ext = {}
    benv = dict(env)
    for ax in GRID_CAPS:
        his = [n.hi for n in loops if n.axis == ax]
        if his:
            ext[ax] = _max([term(h, env) for h in his])
            coord = z3.Int(f"{ax.replace('.', '_')}_{k}")
            facts += [coord >= 0, coord < ext[ax]]
            for n in loops:
                if n.axis == ax:
                    benv[n.var] = coord
    for ax in THREAD_CAPS:
        his = [n.hi for n in loops if n.axis == ax]
        if his:
            ext[ax] = _max([term(h, benv) for h in his])
    goals = []
    const_grid = {ax for ax in GRID_CAPS if ax in ext and not any(ir.free_vars(n.hi) for n in loops if n.axis == ax)}
    for ax, cap in {**GRID_CAPS, **THREAD_CAPS}.items():
        if ax in ext and (ax in THREAD_CAPS or ax in const_grid):
            goals.append((f"launch {k}: the {ax} extent is <= {cap}", ext[ax] <= cap))
    threads = [z3.If(ext[a] > 1, ext[a], 1) for a in THREAD_CAPS if a in ext]
    if threads:
        prod = threads[0]
        for t in threads[1:]:
            prod = prod * t
        goals.append((f"launch {k}: threads per block <= {THREADS_PER_BLOCK}", prod <= THREADS_PER_BLOCK))
    used = {n.tensor for n in ir.nodes_of(stmt, (ir.Load, ir.Assign, ir.Zero))}
    total = z3.IntVal(0)
    names = []
    for t in program.tensors:
        if t.memory == "shared" and t.name in used:
            cells = z3.IntVal(1)
            for d in t.storage_dims():
                cells = cells * term(d, env)
            total = total + cells * ELEMENT_BYTES[t.prec] * int(getattr(t, "pipeline", 1) or 1)
            names.append(t.name)
    if names:
        goals.append((f"launch {k}: shared memory of {', '.join(names)} <= {shared_limit} bytes",
                      total <= shared_limit))
    return facts, goals


def hardware_limits(program: ir.Program, kernel_name: str, shared_limit: int = SHARED_LIMIT,
                    timeout: float = 5.0) -> Decided:
    kernel = program.kernel(kernel_name)
    env = {p: z3.Int(p) for p in program.params}
    try:
        base = [cond(c, env) for c in program.constraints]
    except NoTerm as exc:
        return Decided("unknown", f"a size constraint has no integer meaning ({exc})", STATEMENT, engine="z3")
    n = 0
    for k, stmt in enumerate(kernel.body):
        try:
            facts, goals = _launch_checks(program, stmt, k, shared_limit, env)
        except NoTerm as exc:
            return Decided("unknown", f"launch {k}: an extent or tile size depends on data ({exc})", STATEMENT,
                           engine="z3")
        for text, goal in goals:
            n += 1
            s = solver(timeout)
            s.add(*base, *facts, z3.Not(goal))
            r = s.check()
            if r == z3.unknown:
                return Decided("unknown", f"{text}: z3 gave up ({budget.z3_unknown(s.reason_unknown())})", STATEMENT, engine="z3")
            if r == z3.sat:
                mdl = model_dict(s.model())
                params = {p: mdl.get(p, 0) for p in program.params}
                block = {key: v for key, v in mdl.items() if key.startswith("block_")}
                return Decided("refuted", f"{text} fails at {', '.join(f'{a}={b}' for a, b in params.items()) or 'any size'}"
                               + (f" (block {block})" if block else ""), STATEMENT,
                               Counterexample(Instance(params), extra={"launch": k, "limit": text, "block": block}), engine="z3")
    return Decided("proved", f"{n} hardware limit(s) hold for all sizes", STATEMENT, engine="z3")
