"""Fuzzing throughput: examples/s per core (draw + verify + compile + run + replay) with the
compile cache warm, where the time goes, and 1 vs 2 workers, side by side in one table.

    python benchmarks/fuzz_throughput.py [--examples 480 | --seconds S] [--seed 0] [--batch 20]

Two op mixes: every op (the default campaign) and loop ops only (split, interchange, retype,
unroll, partition, pad); for each, 1 and 2 workers.

- Same work for both worker counts: each configuration runs exactly `--examples` examples in
  batches of `--batch` (the campaign's default size); batch k has seed (seed, k) whichever
  worker runs it, so both worker counts run the same examples and the scaling figure compares
  like with like. Per-example cost is heavy-tailed (most examples take tens of milliseconds, a
  few seconds), so the example count is large against the batch size: at the end one worker
  may idle for at most about one batch.
- Warm compile cache: a configuration is run until a pass reaches no batch an earlier pass had
  not run (at most 4 passes; the first warms the compile cache); only the last is reported, so
  it compiles (almost) nothing.
- Both worker counts run in a process pool, one worker too: both pay the same start-up, and
  neither keeps in-memory state from the warm-up pass over the same examples (a real campaign
  never sees its examples twice).
- `--seconds S` instead runs each configuration as a budgeted campaign (`vsched fuzz --budget`):
  the steady rate, but two workers get through about twice as many batches as one, so their
  example mixes differ and the scaling figure mixes in that difference.

Findings do not stop the measurement (they are counted); the shrink budget is kept small so a
finding does not dominate the timing.

Columns: `ex/s` examples per wall-clock second; `ex/s/core` that divided by the workers;
`ex/cpu-s` examples per CPU second of the workers (what the rate per core would be on cores
nobody else uses: other processes on a shared machine slow the wall-clock figures, not this
one); then the share of the examples' wall time per phase. The load average is printed before
and after: the wall-clock figures are only comparable at similar load.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verified_sched.fuzz.campaign import Config  # noqa: E402
from verified_sched.fuzz.driver import Campaign  # noqa: E402


LOOP_OPS = ("split", "interchange", "retype", "unroll", "partition", "pad")
MIXES = {"all ops": Config().ops, "loop ops": LOOP_OPS}
PHASES = ("draw", "verify", "compile", "run")


def measure(seconds: float | None, examples: int | None, workers: int, seed: int, out: Path, ops: tuple,
            batch: int) -> Campaign:
    cfg = Config(ops=ops, seed=seed, shrink_seconds=2.0, batch=batch)
    first = None if seconds is None else 2 * seconds  # cold: slower, so a longer first pass
    warmed = Campaign(cfg, out, examples, first, workers, pool_for_one=True).run().reached
    for _ in range(3):
        camp = Campaign(cfg, out, examples, seconds, workers, pool_for_one=True).run()
        if camp.reached <= warmed:  # every batch it ran had run before: the compile cache was warm
            break
        warmed = camp.reached
    return camp


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=480, help="examples per configuration")
    ap.add_argument("--seconds", type=float, default=None, help="a budget per configuration instead")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=Config().batch, help="examples per batch (the campaign's default)")
    args = ap.parse_args()
    seconds, examples = args.seconds, (None if args.seconds else args.examples)
    batch = args.batch
    os.environ.setdefault("VSCHED_CACHE_DIR", tempfile.mkdtemp(prefix="vsched-fuzz-bench-"))
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for mix, ops in MIXES.items():
            for workers in (1, 2):
                camp = measure(seconds, examples, workers, args.seed, Path(tmp), ops, batch)
                rows.append((mix, workers, camp))
    print(f"{'ops':>9} {'workers':>7} {'examples':>8} {'seconds':>8} {'ex/s':>6} {'ex/s/core':>9} {'ex/cpu-s':>8} "
          f"{'draw':>6} {'verify':>7} {'compile':>8} {'run':>6} {'findings':>8}")
    base = {}
    for mix, workers, camp in rows:
        s = camp.stats
        rate = s.examples / camp.seconds
        base.setdefault(mix, rate)
        t = s.times
        busy = sum(t.get(k, 0.0) for k in PHASES) or 1.0
        share = {k: 100 * t.get(k, 0.0) / busy for k in PHASES}
        cpu = s.examples / t["cpu"] if t.get("cpu") else float("nan")
        print(f"{mix:>9} {workers:>7} {s.examples:>8} {camp.seconds:>8.1f} {rate:>6.2f} {rate / workers:>9.2f} "
              f"{cpu:>8.2f} {share['draw']:>5.0f}% {share['verify']:>6.0f}% {share['compile']:>7.0f}% "
              f"{share['run']:>5.0f}% {len(camp.findings):>8}")
    for mix, workers, camp in rows:
        if workers == 2:
            print(f"scaling 1 -> 2 workers ({mix}): {camp.stats.examples / camp.seconds / base[mix]:.2f}x")
    load_after = os.getloadavg()
    print(f"cores available: {len(os.sched_getaffinity(0))}; load average (1 min): {load_before[0]:.1f} before, "
          f"{load_after[0]:.1f} after (other processes share these cores: ex/s figures are per wall-clock "
          "second, ex/cpu-s per CPU second of the workers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
