"""One watchdog thread for every obligation budget (`budget.scope`): it calls each registered
callback when its deadline passes, unless the scope cancelled it first.

A `threading.Timer` per scope started (and woke, on cancel) a thread per obligation: a few
milliseconds each under load, a large share of verifying a small kernel. Here registering
and cancelling only take a lock; the thread is woken only when a deadline earlier than the
one it sleeps until arrives, and it exits after `IDLE` seconds with nothing to watch (so an
idle process has no extra thread). A forked child starts with a fresh state.
"""
from __future__ import annotations

import itertools
import math
import os
import threading
import time

MAX_WAIT = 3600.0  # the longest single wait; the thread then looks at its deadlines again
IDLE = 0.25  # seconds without a registered deadline before the thread exits (short: a
# process that forks workers after verifying, like the gate, finds no extra thread soon after)


class _Watch:
    def __init__(self):
        self.cond = threading.Condition(threading.Lock())
        self.entries: dict = {}  # token -> (deadline, callback)
        self.wake_at = math.inf  # what the thread sleeps until (inf: idle or not running)
        self.thread: threading.Thread | None = None
        self.tokens = itertools.count()

    def run(self) -> None:
        cond = self.cond
        while True:
            due = []
            with cond:
                t = time.perf_counter()
                for tok, (deadline, cb) in list(self.entries.items()):
                    if deadline <= t:
                        del self.entries[tok]
                        due.append(cb)
                if not due:
                    if self.entries:
                        self.wake_at = min(d for d, _ in self.entries.values())
                        # at most an hour at a time: a far deadline (1e300, inf) is not a
                        # timeout the platform can wait for (OverflowError killed the thread)
                        cond.wait(min(self.wake_at - t, MAX_WAIT))
                    else:
                        self.wake_at = math.inf
                        cond.wait(IDLE)
                        if not self.entries:
                            self.thread = None
                            return
            for cb in due:  # outside the lock: a callback may take the scope's lock
                cb()


_watch = _Watch()


def _reset_after_fork() -> None:
    global _watch
    _watch = _Watch()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def add(deadline: float, callback) -> object:
    """Call `callback()` (from the watchdog thread) once `deadline` (time.perf_counter) passes,
    unless `cancel(token)` comes first. Returns the token, or None when no thread could be
    started (e.g. under a tight memory cap): the caller's other budgets remain then."""
    w = _watch
    with w.cond:
        tok = next(w.tokens)
        w.entries[tok] = (deadline, callback)
        if w.thread is None:
            th = threading.Thread(target=w.run, name="vsched-budget-watchdog", daemon=True)
            try:
                th.start()
            except RuntimeError:
                del w.entries[tok]
                return None
            w.thread = th
        elif deadline < w.wake_at:
            w.cond.notify()
    return tok


def cancel(token) -> None:
    """Forget the deadline registered under `token` (no effect once it fired)."""
    w = _watch
    with w.cond:
        if w.entries.pop(token, None) is not None and not w.entries:
            w.cond.notify()  # wake the thread, which would sleep until the cancelled deadline
