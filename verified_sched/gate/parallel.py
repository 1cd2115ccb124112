"""Verify many files in parallel processes, results in input order.

`verify_many(jobs, ...)` yields (index, payload) for each (path, text) job in input order,
as soon as that job and every job before it are done (or, `ordered=False`, as each is
done); the payload is
`results.verify_source`'s dict. With one worker (or one job) everything runs in this process.
Otherwise the costliest jobs start first (`costs`: the recorded durations of gate/timings.py,
else the texts' lengths), so no long proof is left to start last. When this process has a
single thread, it forks N - 1 children and verifies too, each process taking the next job
when it is free (gate/workshare.py; the children inherit the imported solvers). Else it
submits the jobs to a pool of N workers of a fork server (forking a threaded process, such
as a pytest-xdist worker, can deadlock). A worker that dies costs only the job it was in,
reported as an internal error; the other jobs are unaffected.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from ..report import results

# imported once before the workers start (inherited by fork, or by the fork server), rather
# than lazily by every worker: the verifier, every op module (and every module of an op that
# is a folder: its lazily imported proofs too) and the solver back ends
_PRELOAD = ["verified_sched.verify.driver", "verified_sched.dsl", "verified_sched.report.results"]
_PRELOAD_PACKAGES = ["verified_sched.ops", "smt"]


def _op_submodules() -> list:
    """Every module inside the registered ops that are folders (ops/<op>/*.py), in registry order."""
    import pkgutil

    from ..ops.registry import MODULES

    return [f"{m.__name__}.{sub.name}" for m in MODULES if hasattr(m, "__path__")
            for sub in pkgutil.iter_modules(m.__path__)]


def preload_modules() -> list:
    """The modules verification imports, by name (for the parent before it forks)."""
    import importlib
    import pkgutil

    names = list(_PRELOAD) + _op_submodules()
    for pkg in _PRELOAD_PACKAGES:
        mod = importlib.import_module(pkg)
        names += [f"{pkg}.{m.name}" for m in pkgutil.iter_modules(mod.__path__)]
    return names


def default_workers() -> int:
    """The number of cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def start_method() -> str:
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def _context():
    method = start_method()
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload(preload_modules())
    return ctx


def _died(path: str, why: str) -> dict:
    return {"status": "internal", "error_loc": None,
            "error": f"{path}: internal error: a verification worker died ({why})"}


def verify_many(jobs, profile, timeout: float, shared_limit: int, workers: int, started=None, costs=None,
                participate: bool = True, ordered: bool = True):
    """Yield (index, payload) per (path, text) job, in input order (`ordered=False`: as each
    job finishes). `started()` is called once the workers run (a progress display may start
    its thread then, after the fork). `costs`: estimated seconds per job (default: its
    length); the costliest start first."""
    if workers <= 1 or len(jobs) <= 1:
        if started:
            started()
        for i, (path, text) in enumerate(jobs):
            yield i, results.verify_source(path, text, profile, timeout, shared_limit)
        return
    import importlib

    for name in preload_modules():  # imported before the fork, so no worker imports them again
        importlib.import_module(name)
    costs = costs or [len(text) for _, text in jobs]
    order = sorted(range(len(jobs)), key=lambda i: -costs[i])
    workers = min(workers, len(jobs))
    if start_method() == "fork":
        done = _forked(jobs, order, profile, timeout, shared_limit, workers, started, participate)
    else:
        done = _pooled(jobs, order, profile, timeout, shared_limit, workers, started)
    if not ordered:
        seen = set()
        for i, payload in done:
            seen.add(i)
            yield i, payload
        for i in range(len(jobs)):  # lost with a worker that died before it said what it took
            if i not in seen:
                yield i, _died(jobs[i][0], "its job was lost")
        return
    ready, nxt = {}, 0
    for i, payload in done:
        ready[i] = payload
        while nxt in ready:
            yield nxt, ready.pop(nxt)
            nxt += 1
    for i in range(nxt, len(jobs)):  # lost with a worker that died before it said what it took
        yield i, ready.pop(i, None) or _died(jobs[i][0], "its job was lost")


def _forked(jobs, order, profile, timeout, shared_limit, workers, started, participate):
    """Forked children (and this process, when it participates) take the jobs in order."""
    from .workshare import run_forked

    def one(i):
        return results.verify_source(jobs[i][0], jobs[i][1], profile, timeout, shared_limit)

    children = workers - 1 if participate else workers
    yield from run_forked(order, one, children, participate, lambda i, why: _died(jobs[i][0], why), started)


def _pooled(jobs, order, profile, timeout, shared_limit, workers, started):
    """A process pool of a fork server (this process has threads: forking it is unsafe)."""
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        futures = {}
        for i in order:
            path, text = jobs[i]
            futures[i] = pool.submit(results.verify_source, path, text, profile, timeout, shared_limit)
        if started:
            started()
        index = {f: i for i, f in futures.items()}
        for future in as_completed(futures.values()):  # as they finish
            i = index[future]
            try:
                payload = future.result()
            except BrokenProcessPool as e:
                payload = _died(jobs[i][0], str(e))
            yield i, payload
