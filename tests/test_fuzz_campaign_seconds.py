"""Regression: a campaign's `seconds` kept counting after run() returned, so the throughput
benchmark (which prints its table after every configuration has run) reported the earlier
configurations' wall time as far longer than it was."""
from __future__ import annotations

import time

from verified_sched.fuzz.campaign import Config
from verified_sched.fuzz.driver import Campaign


def test_campaign_seconds_stop_when_the_run_ends(tmp_path, monkeypatch):
    camp = Campaign(Config(), tmp_path, examples=0)
    monkeypatch.setattr(camp, "_run", lambda on_update: time.sleep(0.05))
    camp.run()
    first = camp.seconds
    assert first >= 0.05
    time.sleep(0.1)
    assert camp.seconds == first


def test_campaign_seconds_run_on_while_running(tmp_path, monkeypatch):
    camp = Campaign(Config(), tmp_path, examples=0)
    seen = []

    def body(on_update):
        seen.append(camp.seconds)
        time.sleep(0.05)
        seen.append(camp.seconds)
    monkeypatch.setattr(camp, "_run", body)
    camp.run()
    assert seen[1] - seen[0] >= 0.05 and camp.seconds >= seen[1]
