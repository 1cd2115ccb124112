"""Regression: a campaign's `seconds` kept counting after run() returned, so the throughput
benchmark (which prints its table after every configuration has run) reported the earlier
configurations' wall time as far longer than it was. On a fake clock (issue 23: no test
depends on the machine's speed)."""
from __future__ import annotations

from verified_sched.fuzz.campaign import Config
from verified_sched.fuzz.driver import Campaign


class Ticks:
    """A clock the test moves by hand."""

    def __init__(self):
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_campaign_seconds_stop_when_the_run_ends(tmp_path, monkeypatch):
    clock = Ticks()
    camp = Campaign(Config(), tmp_path, examples=0, clock=clock)

    def body(on_update):
        clock.t += 0.05
    monkeypatch.setattr(camp, "_run", body)
    camp.run()
    first = camp.seconds
    assert first == 0.05 or abs(first - 0.05) < 1e-9
    clock.t += 0.1
    assert camp.seconds == first


def test_campaign_seconds_run_on_while_running(tmp_path, monkeypatch):
    clock = Ticks()
    camp = Campaign(Config(), tmp_path, examples=0, clock=clock)
    seen = []

    def body(on_update):
        seen.append(camp.seconds)
        clock.t += 0.05
        seen.append(camp.seconds)
    monkeypatch.setattr(camp, "_run", body)
    camp.run()
    assert abs(seen[1] - seen[0] - 0.05) < 1e-9 and camp.seconds >= seen[1]
