"""An isl computation with a small answer, run where the deadline can stop it.

The watchdog of `verified_sched.core.budget` stops isl with `isl_ctx_abort`, which isl checks
only at its next counted operation: some long calls (the subtraction of a relation of
hundreds of pieces: seconds of CPU in fuzz kernels of many statements) count none for
seconds, so an obligation could run to twice the deadline. `bounded(fn)` runs `fn` (the
same isl calls, so the same answer) in a forked child and waits for it at most until the
deadline; past it the child is killed and the obligation is `unknown` (deadline), as for
any aborted isl call. `fn`'s answer must be picklable (a point's coordinates, a boolean);
isl objects do not cross the fork.

Only calls worth it fork (the caller says so: a fork costs milliseconds); without a finite
deadline, or where fork is missing, `fn` runs here.
"""
from __future__ import annotations

import math
import os
import pickle
import select
import signal
import time

import islpy as isl

from verified_sched.core import budget

FORKS = []  # one entry per forked call (tests count them)


class CpuLimit(Exception):
    """The child of `bounded(fn, cpu_limit=...)` used its CPU seconds without an answer."""


def bounded(fn, worth_it: bool = True, cpu_limit: float | None = None):
    """fn() (see the module docstring): raises isl.Error when the deadline passes or the
    child ran out of isl operations, MemoryError when it ran out of memory. `cpu_limit`: the
    child's CPU seconds (it is stopped past them: CpuLimit), for a computation that is only
    worth waiting for when it is quick (CPU time, not the wall-clock time of a loaded
    machine; only in a child: without one, fn() runs here unlimited)."""
    left = budget.remaining()
    if not worth_it or not math.isfinite(left) or not hasattr(os, "fork"):
        return fn()
    if left <= 0:
        raise isl.Error(budget.deadline_message("(before a bounded isl call)"))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, answer, exit without running the parent's cleanup
        code = 0
        try:
            os.close(r)
            if cpu_limit is not None:  # SIGPROF's default action ends the child
                signal.signal(signal.SIGPROF, signal.SIG_DFL)
                signal.setitimer(signal.ITIMER_PROF, cpu_limit)
            try:
                out = ("ok", fn())
            except isl.Error as exc:
                out = ("isl", str(exc))
            except MemoryError:
                out = ("memory", "")
            except BaseException as exc:  # noqa: BLE001 - reported to the parent, raised there
                out = ("error", f"{type(exc).__name__}: {exc}")
            data = pickle.dumps(out)
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
        except BaseException:  # noqa: BLE001 - the child must never return into the parent's code
            code = 1
        finally:
            os._exit(code)
    FORKS.append(pid)
    os.close(w)
    chunks = []
    try:
        while True:
            left = budget.remaining()
            ready, _, _ = select.select([r], [], [], max(0.0, left))
            if not ready:
                raise isl.Error(budget.deadline_message("(bounded isl call stopped)"))
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(r)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status = os.waitpid(pid, 0)
    if cpu_limit is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGPROF:
        raise CpuLimit(f"bounded isl call: past {cpu_limit} CPU seconds")  # maybe in the middle of its answer
    if not chunks:
        raise RuntimeError("bounded isl call: the child process died without an answer")
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "ok":
        return value
    if kind == "isl":
        raise isl.Error(value)
    if kind == "memory":
        raise MemoryError("bounded isl call")
    raise RuntimeError(f"bounded isl call failed in the child: {value}")


QUICK_CPU = 0.05  # seconds: a forked call that finished in less is recomputed here (below)


def bounded_isl(compute, to_text, from_text, worth_it: bool = True):
    """`compute()` (isl objects) where the deadline can stop it: in a forked child (`bounded`)
    when worth it and a deadline is set, else here. The child sends `to_text(answer)` and its
    CPU time; an answer that took the child under QUICK_CPU seconds is computed again here
    (the very objects the call makes in process), a longer one is `from_text(text)` (the same
    sets, read back: no second long computation). As for `bounded`, the child's isl operations
    are not counted against the parent's budget."""
    if not worth_it or not math.isfinite(budget.remaining()) or not hasattr(os, "fork"):
        return compute()

    def child():
        t0 = time.process_time()
        text = to_text(compute())
        return time.process_time() - t0, text
    cpu, text = bounded(child)
    if cpu < QUICK_CPU:
        return compute()
    return from_text(text)
