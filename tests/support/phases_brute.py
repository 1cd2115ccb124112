"""Brute-force GPU semantics at small sizes: the cross-check of polyhedral/phases.py.

Independent of isl: every thread of every block of every launch runs the kernel's nest in its
own program order (hardware loops bind its own index, serial loops iterate, barriers count
phases), recording its accesses; then plain comparison decides races and barrier divergence.
The same semantics as phases.py's docstring (an assignment or zero outside every thread loop
runs on thread 0 of its block only, outside every block loop on block 0 only). Data-dependent guards or indices are not supported here (Dynamic is raised).
"""
from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field

from verified_sched.core import ir
from polyhedral.evaluate import ev
from support.brute import evc

AXES = ir.HW_AXES


@dataclass
class Outcome:
    races: list = field(default_factory=list)  # (tensor, cell, who1, who2, phase or None)
    divergent: list = field(default_factory=list)  # (launch, block, thread1, thread2)

    @property
    def race(self) -> bool:
        return bool(self.races)


def _extent(loops, ax, env) -> int:
    his = [ev(n.hi, env) for n in loops if n.axis == ax]
    return max([0] + his) if his else 1


def _thread(program, stmt, env, coord, acc, trace):
    phase = [0]

    def cell_key(t, cell):
        mem = program.tensor(t).memory
        if mem == "shared":
            return (t, coord[:3], cell)
        if mem == "local":
            return (t, coord, cell)
        return (t, cell)

    def note(t, idx, e, write):
        cell = tuple(ev(x, e) for x in idx)
        acc.append((cell_key(t, cell), write, phase[0]))

    def leads(kinds) -> bool:
        """Whether this thread runs a leaf inside loops of `kinds` (the leader rule)."""
        if "thread" not in kinds and any(coord[3:]):
            return False
        return "block" in kinds or not any(coord[:3])

    def run(s, e, path, kinds=frozenset()):
        match s:
            case ir.For():
                if s.axis in AXES:
                    own = coord[AXES.index(s.axis)]
                    inner = kinds | {s.axis.split(".")[0]}
                    if ev(s.lo, e) <= own < ev(s.hi, e):
                        for k, b in enumerate(s.body):
                            run(b, {**e, s.var: own}, path + ((k, None),), inner)
                else:
                    for v in range(ev(s.lo, e), ev(s.hi, e)):
                        for k, b in enumerate(s.body):
                            run(b, {**e, s.var: v}, path + ((k, v),), kinds)
            case ir.If():
                for k, b in enumerate(s.then if evc(s.cond, e) else s.orelse):
                    run(b, e, path + (("if", k),), kinds)
            case ir.Barrier():
                trace.append((id(s), path))
                phase[0] += 1
            case ir.Assign() | ir.Zero() if not leads(kinds):
                pass
            case ir.Assign():
                for r in ir.reads(s.value):
                    note(r.tensor, r.index, e, False)
                note(s.tensor, s.index, e, True)
            case ir.Zero():
                t = program.tensor(s.tensor)
                dims = [ev(d, e) for d in t.storage_dims()]
                for cell in itertools.product(*[range(d) for d in dims]):
                    acc.append((cell_key(s.tensor, cell), True, phase[0]))
            case _:
                raise NotImplementedError(type(s).__name__)

    run(stmt, env, ())


def simulate(program: ir.Program, kernel_name: str, sizes: dict, limit: int = 200) -> Outcome:
    out = Outcome()
    kernel = program.kernel(kernel_name)
    for top, stmt in enumerate(kernel.body):
        loops = [n for n in ir.walk(stmt) if isinstance(n, ir.For) and n.axis in AXES]
        grid = [_extent(loops, ax, sizes) for ax in AXES[:3]]
        cells = defaultdict(list)  # key -> [(block, thread, write, phase)]
        for block in itertools.product(*[range(g) for g in grid]):
            benv = dict(sizes)
            for n in loops:
                if n.axis in AXES[:3]:
                    benv[n.var] = block[AXES.index(n.axis)]
            tdim = [_extent(loops, ax, benv) for ax in AXES[3:]]
            traces = {}
            for thread in itertools.product(*[range(t) for t in tdim]):
                acc, trace = [], []
                _thread(program, stmt, dict(sizes), block + thread, acc, trace)
                traces[thread] = trace
                for key, write, phase in acc:
                    cells[key].append((block, thread, write, phase))
            ref = next(iter(traces.items()), None)
            for thread, trace in traces.items():
                if ref is not None and trace != ref[1]:
                    out.divergent.append((top, block, ref[0], thread))
                    break
        for key, lst in cells.items():
            writers = [x for x in lst if x[2]]
            for a in writers:
                for b in lst:
                    if a[:2] == b[:2]:
                        continue
                    if a[0] != b[0]:
                        out.races.append((key[0], key[-1], a[:2], b[:2], None))
                    elif a[3] == b[3]:
                        out.races.append((key[0], key[-1], a[:2], b[:2], a[3]))
                    if len(out.races) >= limit:
                        return out
    return out
