"""A budgeted campaign ends at its budget and keeps the work in flight: every batch gets the
campaign's deadline and draws no example after it (fuzz/campaign.py, fuzz/driver.py).
Regression: the driver used to cancel at the budget and discard the running batches' results,
after waiting for them to finish all their examples."""
from __future__ import annotations

import time

from verified_sched.fuzz.campaign import Config, run_batch
from verified_sched.fuzz.driver import Campaign

HUGE = 100_000  # examples per batch: without the deadline a batch would run for hours


def _cfg() -> Config:
    return Config(ops=("split", "interchange"), size_range=(1, 4), max_ops=2, seed=3, batch=HUGE)


def test_a_batch_past_its_deadline_draws_nothing():
    res = run_batch(_cfg(), 0, 50, deadline=time.time() - 1.0)
    assert res.stats.examples == 0 and res.findings == [] and res.index == 0


def test_a_batch_stops_at_its_deadline_with_what_it_ran():
    res = run_batch(_cfg(), 1, HUGE, deadline=time.time() + 2.0)
    assert 0 < res.stats.examples < HUGE and res.index == 1
    assert res.seconds < 60  # stopped at the deadline (plus one example), not after HUGE examples


def test_budgeted_campaign_in_this_process_keeps_its_one_long_batch(tmp_path):
    camp = Campaign(_cfg(), tmp_path, None, 2.0, 1).run()
    assert camp.batches == 1 and camp.stats.examples > 0 and camp.reached == 0
    assert camp.seconds < 60


def test_budgeted_campaign_on_a_pool_counts_the_batches_in_flight(tmp_path):
    camp = Campaign(_cfg(), tmp_path, None, 6.0, 2).run()
    # both workers' batches were running at the budget: their examples count
    assert camp.stats.examples > 0 and camp.reached >= 0 and not camp.crashes
    assert camp.seconds < 120


def test_one_worker_can_run_in_a_pool_like_two(tmp_path):
    camp = Campaign(_cfg(), tmp_path, None, 4.0, 1, pool_for_one=True).run()
    assert camp.stats.examples > 0 and not camp.crashes
