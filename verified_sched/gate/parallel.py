"""Verify many files in parallel processes, results in input order.

`verify_many(jobs, ...)` yields (index, payload) for each (path, text) job in input order,
as soon as that job and every job before it are done; the payload is
`results.verify_source`'s dict. With one worker (or one job) everything runs in this process.
Otherwise a process pool runs the jobs, the largest first (a crude cost estimate, so the long
proofs do not end up last on one worker). The pool forks this process when it has a single
thread (cheap: the workers inherit the imported solvers), else it uses a fork server (forking
a threaded process, such as a pytest-xdist worker, can deadlock). A worker that dies reports
its remaining files as internal errors; the other files are unaffected.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from . import results

# imported once before the workers start (inherited by fork, or by the fork server), rather
# than lazily by every worker: the verifier, every op module and the solver back ends
_PRELOAD = ["verified_sched.verify", "verified_sched.dsl", "verified_sched.gate.results",
            "verified_sched.rewrites.winograd_proofs", "polyhedral.dataflow", "polyhedral.privatize_checks"]
_PRELOAD_PACKAGES = ["verified_sched.ops", "smt"]


def preload_modules() -> list:
    """The modules verification imports, by name (for the parent before it forks)."""
    import importlib
    import pkgutil

    names = list(_PRELOAD)
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


def verify_many(jobs, profile, timeout: float, shared_limit: int, workers: int, started=None):
    """Yield (index, payload) per (path, text) job, in input order. `started()` is called once
    the workers run (a progress display may start its thread then, after the fork)."""
    if workers <= 1 or len(jobs) <= 1:
        if started:
            started()
        for i, (path, text) in enumerate(jobs):
            yield i, results.verify_source(path, text, profile, timeout, shared_limit)
        return
    import importlib

    for name in preload_modules():  # imported before the fork, so no worker imports them again
        importlib.import_module(name)
    order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][1]))
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=_context()) as pool:
        futures = {}
        for i in order:
            path, text = jobs[i]
            futures[i] = pool.submit(results.verify_source, path, text, profile, timeout, shared_limit)
        if started:
            started()
        for i in range(len(jobs)):
            try:
                payload = futures[i].result()
            except BrokenProcessPool as e:
                payload = {"status": "internal", "error_loc": None,
                           "error": f"{jobs[i][0]}: internal error: a verification worker died ({e})"}
            yield i, payload
