"""Run a campaign: batches of examples on a local process pool or a dask.distributed cluster.

Batches are submitted so that every worker stays busy, results are consumed as they finish
(`concurrent.futures.as_completed` / `distributed.as_completed`), findings are deduplicated by
(kind, op, signature), counted, and written as reproducers, and the campaign stops at the example count or the time
budget. With one local worker the batches run in this process (monkeypatching tests see it).

A budgeted campaign hands every batch the campaign's deadline: a batch draws no example after
it, so at the budget the driver submits nothing more and collects the batches in flight, which
end within one example. Their work counts, and the campaign ends on time (a finding found
before the deadline is still shrunk first).
"""
from __future__ import annotations

import dataclasses
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from .campaign import Config, run_batch
from .crashes import find_crashes
from .reproducer import finding_key, write
from .stats import Stats


@dataclass
class Campaign:
    cfg: Config
    out_dir: Path
    examples: int | None = None  # stop after this many examples
    budget: float | None = None  # or after this many seconds
    workers: int = 1
    dask: str | None = None
    stats: Stats = field(default_factory=Stats)
    findings: list = field(default_factory=list)  # unique findings, with "path"
    duplicates: int = 0
    crashes: list = field(default_factory=list)  # worker processes that died (no reproducer)
    started: float = 0.0
    wall_started: float = 0.0  # time.time() at the start: the batches' deadline is on this clock
    ended: float | None = None  # when run() returned: `seconds` stops there
    batches: int = 0  # batches submitted
    reached: int = -1  # the highest batch index that ran an example
    pool_for_one: bool = False  # one worker in a process pool too, not in this process (the benchmark)
    clock: object = None  # seconds for the budget: time.perf_counter, or a test's fake (with cfg.clock)

    def now(self) -> float:
        return (self.clock or time.perf_counter)()

    @property
    def seconds(self) -> float:
        """Seconds since the campaign started, up to its end once run() returned (a campaign
        read later, like the benchmark's table, does not count the time after it)."""
        return (self.now() if self.ended is None else self.ended) - self.started

    def done(self) -> bool:
        if self.examples is not None and self.stats.examples >= self.examples:
            return True
        return self.budget is not None and self.seconds >= self.budget

    def deadline(self) -> float | None:
        """The `time.time()` epoch (cfg.clock's time) at which the budget ends (None without a
        budget)."""
        return None if self.budget is None else self.wall_started + self.budget

    def _next_size(self, in_flight: int) -> int:
        """The next batch's size: cfg.batch, except near the end of a campaign of a fixed example
        count, where batches shrink to a quarter of what is left (not below a quarter batch), so
        that at the end no worker idles long behind another's last batch. The sizes follow from
        the count alone, not from the number of workers: 1 and 2 workers run the same batches,
        hence the same examples (benchmarks/fuzz_throughput.py compares them)."""
        if self.examples is None:
            return self.cfg.batch
        left = self.examples - self.stats.examples - in_flight
        b = self.cfg.batch
        return max(0, min(b, left, max(-(-b // 4), -(-left // 4))))

    def absorb(self, result) -> None:
        self.stats.merge(result.stats)
        if result.stats.examples:
            self.reached = max(self.reached, result.index)
        for rec in result.findings:
            self.add_finding(rec)

    def add_finding(self, rec: dict) -> None:
        """Record a finding and write its reproducer, unless one with its (kind, op,
        signature) was seen: that one's count goes up instead."""
        key = finding_key(rec)
        for f in self.findings:
            if finding_key(f) == key:
                f["count"] += 1
                self.duplicates += 1
                return
        rec = dict(rec, count=1)
        rec["path"] = str(write(rec, self.out_dir, self.cfg.cwd))
        self.findings.append(rec)

    def run(self, on_update=lambda c: None) -> "Campaign":
        self.started, self.ended = self.now(), None
        self.wall_started = (self.cfg.clock or time.time)() if self.clock is None else self.started
        try:
            self._run(on_update)
        finally:
            self.ended = self.now()
        return self

    def _run(self, on_update) -> None:
        if self.dask:
            self._run_dask(on_update)
        elif self.workers <= 1 and not self.pool_for_one:
            while not self.done():
                n = self._next_size(0)
                if n <= 0:
                    break
                self.absorb(run_batch(self.cfg, self.batches, n, self.deadline()))
                self.batches += 1
                on_update(self)
        else:
            self._run_pool(on_update)

    def _run_pool(self, on_update) -> None:
        import multiprocessing
        import shutil
        import tempfile

        flight = tempfile.mkdtemp(prefix="vsched-fuzz-flight-")  # fuzz/crashes.py
        cfg = dataclasses.replace(self.cfg, flight_dir=flight)
        ctx = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=worker_start)
        pending: dict = {}  # future -> (examples, batch index)
        try:
            while True:
                while len(pending) < 2 * self.workers and not self.done():
                    n = self._next_size(sum(n for n, _ in pending.values()))
                    if n <= 0:
                        break
                    pending[pool.submit(run_batch, cfg, self.batches, n, self.deadline())] = (n, self.batches)
                    self.batches += 1
                if self.done():  # batches not started yet are dropped; the running ones end soon
                    for fut in [f for f in pending if f.cancel()]:
                        del pending[fut]
                if not pending:
                    break
                finished, _ = wait(list(pending), timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in finished:
                    try:
                        self.absorb(fut.result())
                        del pending[fut]
                    except BrokenProcessPool as e:  # an example killed a worker process
                        self.crashes.append(f"a worker process died: {e}")
                        pool.shutdown(wait=False, cancel_futures=True)
                        for rec in find_crashes(flight, [i for _, i in pending.values()], self.cfg):
                            self.add_finding(rec)
                        pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=worker_start)
                        pending.clear()
                        break
                on_update(self)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            shutil.rmtree(flight, ignore_errors=True)

    def _run_dask(self, on_update) -> None:
        from distributed import Client, as_completed

        with Client(self.dask, timeout="30s") as client:
            self.workers = max(1, len(client.scheduler_info().get("workers", {})))
            pending: dict = {}

            def submit():
                n = self._next_size(sum(pending.values()))
                if n <= 0 or self.done():
                    return None
                fut = client.submit(run_batch, self.cfg, self.batches, n, self.deadline(), pure=False)
                pending[fut] = n
                self.batches += 1
                return fut

            first = [f for f in (submit() for _ in range(2 * self.workers)) if f is not None]
            stream = as_completed(first)
            for fut in stream:  # results streamed back as they finish (after the deadline too)
                pending.pop(fut, None)
                self.absorb(fut.result())
                on_update(self)
                nxt = submit()
                if nxt is not None:
                    stream.add(nxt)


def worker_start() -> None:
    """A pool worker's set-up, run once before its first batch (its imports done: unpickling
    this function imported the campaign): the objects alive now (modules, classes, hypothesis's
    tables, about 600 modules' worth) are moved out of the cyclic garbage collector's sight
    (`gc.freeze`), so its full collections during the batches no longer walk them (they live
    until the process ends anyway), and again at exit, where the interpreter's final
    collections would walk the whole heap the batches left (caches, isl objects): together
    about 0.4 CPU s of a worker's 240 examples (benchmarks/fuzz_throughput.py). Reference
    counting still frees everything; only cycles among frozen objects stay (none matter in a
    process that is ending or in module-level objects)."""
    import atexit
    import gc

    gc.freeze()
    atexit.register(gc.freeze)


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
