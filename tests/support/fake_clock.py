"""A fake clock for the fuzz campaign's budget tests (Config.clock)."""
from __future__ import annotations


class ExampleClock:
    """Picklable, so a pool worker gets a copy: each call returns `start` plus `step` seconds
    per earlier call. run_batch reads it once per example it may draw, so a budget becomes a
    number of examples per batch, whatever the machine's load (with the campaign's own clock
    counting the examples absorbed: Campaign.clock)."""

    def __init__(self, step: float = 1.0, start: float = 0.0):
        self.step, self.t = step, start

    def __call__(self) -> float:
        t = self.t
        self.t += self.step
        return t
