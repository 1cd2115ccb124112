"""A pool worker's start-up (fuzz/driver.py `worker_start`, issue 25 "Speed": start-up): the
objects alive once the campaign is imported are frozen out of the cyclic collector's sight,
so its full collections walk only what the batches allocate, and again at exit, where the
interpreter's final collections walked the whole heap the batches left.

Work is counted (the objects the collector walks), never timed."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COUNT = """
import gc, sys
sys.path.insert(0, {root!r})
from verified_sched.fuzz.driver import worker_start
before = len(gc.get_objects())
worker_start()
print(before, len(gc.get_objects()), gc.get_freeze_count())
"""


def test_worker_start_leaves_the_collector_only_what_the_batches_allocate():
    out = subprocess.run([sys.executable, "-c", COUNT.format(root=str(ROOT))], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.split()
    before, after, frozen = map(int, out)
    assert frozen >= before // 2 and after < before // 10, (before, after, frozen)


def test_a_pool_campaign_starts_its_workers_with_worker_start(tmp_path, monkeypatch):
    """The driver's process pool is made with the start-up hook (a thread pool stands in)."""
    from concurrent import futures

    from verified_sched.fuzz import driver
    from verified_sched.fuzz.campaign import Config

    made = []

    class Pool(futures.ThreadPoolExecutor):  # a thread pool: no process to spawn in a unit test
        def __init__(self, workers, mp_context=None, initializer=None):
            made.append(initializer)
            super().__init__(workers)

    monkeypatch.setattr(driver, "ProcessPoolExecutor", Pool)
    monkeypatch.setattr(driver, "run_batch", lambda cfg, index, n, deadline: _empty(index))
    driver.Campaign(Config(seed=1, batch=2), tmp_path, 4, None, 2).run()
    assert made == [driver.worker_start]


def _empty(index):
    from verified_sched.fuzz.campaign import BatchResult
    from verified_sched.fuzz.stats import Stats

    stats = Stats()
    stats.examples = 2
    return BatchResult(stats, [], 0.0, index)
