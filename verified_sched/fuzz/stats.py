"""Campaign statistics: verdicts, per-op verdicts, option coverage, sizes run, time spent.

A `Stats` is a plain mergeable record (workers send theirs back with each batch)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .options import OPTION_LABELS  # the options whose coverage is reported (fuzz/options.py)

SLOW_CPU = 1.0  # CPU seconds of one example's check above which it counts in the tail


@dataclass
class Stats:
    examples: int = 0
    verdicts: Counter = field(default_factory=Counter)  # legal / illegal / unknown / error
    per_op: dict = field(default_factory=dict)  # op -> Counter of verdicts
    options: Counter = field(default_factory=Counter)
    unknown_kinds: Counter = field(default_factory=Counter)
    refuted_kinds: Counter = field(default_factory=Counter)
    replays: Counter = field(default_factory=Counter)  # "kind: replayed|skipped|vacuous|failed"
    sizes: Counter = field(default_factory=Counter)  # "N=3" -> count
    schedule_lengths: Counter = field(default_factory=Counter)
    times: Counter = field(default_factory=Counter)  # draw / verify / compile / run / total / cpu seconds
    vacuous: int = 0
    backend_runs: int = 0
    backend_declined: int = 0
    check_cpu: float = 0.0  # CPU seconds of the examples' checks (verify, compiles, runs)
    slow: int = 0  # examples whose check took over SLOW_CPU CPU seconds (the tail)
    slow_cpu: float = 0.0  # their CPU seconds
    repeats: int = 0  # drawn examples not checked: equal to one checked before in the batch (fuzz/campaign.py)

    def add(self, outcome) -> None:
        self.examples += 1
        self.verdicts[outcome.verdict] += 1
        for op in set(outcome.ops):
            self.per_op.setdefault(op, Counter())[outcome.verdict] += 1
        self.options.update(outcome.options)
        self.unknown_kinds.update(outcome.unknown_kinds)
        self.refuted_kinds.update(outcome.refuted_kinds)
        self.replays.update(f"{k}: {r}" for k, r in outcome.replays)
        for sizes in outcome.sizes_run:
            self.sizes.update(f"{p}={v}" for p, v in sizes.items())
        self.schedule_lengths[len(outcome.ops)] += 1
        self.times.update(outcome.times)
        self.vacuous += outcome.vacuous
        self.backend_runs += getattr(outcome, "backend_runs", 0)
        self.backend_declined += getattr(outcome, "backend_declined", 0)
        cpu = getattr(outcome, "cpu", 0.0)
        self.check_cpu += cpu
        if cpu > SLOW_CPU:
            self.slow += 1
            self.slow_cpu += cpu

    def merge(self, other: "Stats") -> None:
        self.examples += other.examples
        self.vacuous += other.vacuous
        self.backend_runs += other.backend_runs
        self.backend_declined += other.backend_declined
        self.check_cpu += other.check_cpu
        self.slow += other.slow
        self.slow_cpu += other.slow_cpu
        self.repeats += other.repeats
        for name in ("verdicts", "options", "unknown_kinds", "refuted_kinds", "replays", "sizes",
                     "schedule_lengths", "times"):
            getattr(self, name).update(getattr(other, name))
        for op, c in other.per_op.items():
            self.per_op.setdefault(op, Counter()).update(c)

    def to_json(self) -> dict:
        return {
            "per_op": {op: {v: c.get(v, 0) for v in ("legal", "illegal", "unknown")}
                       for op, c in sorted(self.per_op.items())},
            "options": {k: self.options.get(k, 0) for k in OPTION_LABELS},
            "unknown_kinds": dict(self.unknown_kinds),
            "refuted_kinds": dict(self.refuted_kinds),
            "replays": dict(self.replays),
            "sizes": dict(sorted(self.sizes.items())),
            "schedule_lengths": {str(k): v for k, v in sorted(self.schedule_lengths.items())},
            "seconds_by_phase": {k: round(v, 3) for k, v in self.times.items()},
            "vacuous_comparisons": self.vacuous,
            "backend_comparisons": self.backend_runs,
            "backend_declined": self.backend_declined,
            "repeats_skipped": self.repeats,
        }
