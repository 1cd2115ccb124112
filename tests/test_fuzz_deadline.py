"""A budgeted campaign ends at its budget and keeps the work in flight: every batch gets the
campaign's deadline and draws no example after it (fuzz/campaign.py, fuzz/driver.py).
Regression: the driver used to cancel at the budget and discard the running batches' results,
after waiting for them to finish all their examples.

No test here depends on the machine's speed (issue 23: pool campaigns with 4-6 s budgets drew 0
examples under load): the clocks are fake. A batch reads `ExampleClock` once per example it
may draw (one second each), the campaign's clock counts the examples absorbed, so a budget of
B seconds is B examples per batch."""
from __future__ import annotations

import dataclasses
import time

from support.fake_clock import ExampleClock
from verified_sched.fuzz.campaign import Config, run_batch
from verified_sched.fuzz.driver import Campaign

HUGE = 100_000  # examples per batch: without the deadline a batch would run for hours


def _cfg(**kw) -> Config:
    return Config(ops=("split", "interchange"), size_range=(1, 4), max_ops=2, seed=3, batch=HUGE, **kw)


def _campaign(tmp_path, budget: float, workers: int, **kw) -> Campaign:
    """A campaign on fake clocks: `budget` examples per batch, and it is over once that many
    examples were absorbed."""
    camp = Campaign(_cfg(clock=ExampleClock()), tmp_path, None, budget, workers, **kw)
    camp.clock = lambda: float(camp.stats.examples)
    return camp


def test_a_batch_past_its_deadline_draws_nothing():
    res = run_batch(_cfg(), 0, 50, deadline=time.time() - 1.0)
    assert res.stats.examples == 0 and res.findings == [] and res.index == 0


def test_a_batch_stops_at_its_deadline_with_what_it_ran():
    res = run_batch(_cfg(clock=ExampleClock()), 1, HUGE, deadline=3.0)
    assert 0 < res.stats.examples <= 3 and res.index == 1  # at the deadline, not after HUGE examples


def test_budgeted_campaign_in_this_process_keeps_its_one_long_batch(tmp_path):
    camp = _campaign(tmp_path, 3.0, 1).run()
    assert camp.batches == 1 and 0 < camp.stats.examples <= 3 and camp.reached == 0


def test_budgeted_campaign_on_a_pool_counts_the_batches_in_flight(tmp_path):
    camp = _campaign(tmp_path, 2.0, 2)
    camp.cfg = dataclasses.replace(camp.cfg, batch=HUGE)
    camp.run()
    # the batches running at the budget end at their deadline: their examples count
    assert camp.stats.examples > 0 and camp.reached >= 0 and not camp.crashes
    assert camp.stats.examples <= 2 * camp.batches


def test_one_worker_can_run_in_a_pool_like_two(tmp_path):
    camp = _campaign(tmp_path, 2.0, 1, pool_for_one=True).run()
    assert camp.stats.examples > 0 and not camp.crashes


def test_example_clock_counts_its_calls():
    clock = ExampleClock(step=0.5, start=10.0)
    assert [clock(), clock(), clock()] == [10.0, 10.5, 11.0]
