"""Fuzzing throughput on fresh examples: examples/s per core (draw + verify + compile + run +
replay) with cold caches, where the time goes, and 1 vs 2 workers, side by side in one table.

    python benchmarks/fuzz_throughput.py [--examples 1800 | --seconds S] [--seed S] [--batch 20]
                                         [--mix all|loop|both] [--warm]

Two op mixes: every op (the default campaign) and loop ops only (split, interchange, retype,
unroll, partition, pad); for each, 1 and 2 workers.

- Fresh and cold, as a user's campaign starts: the seed is new on every run of the benchmark
  (printed; `--seed S` repeats one), every configuration runs in freshly spawned worker
  processes (one worker in a pool too: no in-memory memo of an earlier configuration) on a
  fresh `VSCHED_CACHE_DIR` (empty compile and proof caches), and the worker start-up counts.
- Same work for both worker counts: each configuration runs exactly `--examples` examples in
  batches of `--batch` (the campaign's default size); batch k has seed (seed, k) whichever
  worker runs it, so both worker counts run the same examples and the scaling figure compares
  like with like. Per-example cost is heavy-tailed (most examples take tens of milliseconds, a
  few seconds), so the example count is large against the batch size, and the campaign's last
  batches are smaller (a quarter of what is left: `Campaign._next_size`, the same sizes for
  any number of workers): at the end one worker idles for about one small batch, or behind
  one tail example (up to the 5 s verify timeout) that the other runs last. The default, 1800
  examples, is a campaign as the issue measured it (`vsched fuzz --budget 120`, 1 worker, about
  2 minutes at 15 per second; the default `vsched fuzz` campaign, 60 s on 2 cores, is as many):
  a 5 s example at the end is then under a tenth of the two workers' minute, where in 240
  examples (15 s on one worker) it was a third of theirs and the scaling figure mostly said
  where the tail fell.
- Workers start as from an installed package: where this environment sets
  PYTHONDONTWRITEBYTECODE, bytecode is compiled once, by a short warm-up run (its own seed and
  cache folder), into a scratch PYTHONPYCACHEPREFIX the workers inherit (`--no-bytecode`:
  every worker compiles what it imports, about 0.4 CPU s each).
- `--warm`: each configuration then runs its examples again on the caches it left (fresh
  processes again): the `warm` columns, what a campaign gains from the compile cache.
- `--seconds S` instead runs each configuration as a budgeted campaign (`vsched fuzz --budget`):
  the steady rate, but two workers get through about twice as many batches as one, so their
  example mixes differ and the scaling figure mixes in that difference.

Findings do not stop the measurement (they are counted); the shrink budget is kept small so a
finding does not dominate the timing.

Columns: `ex/s` examples per wall-clock second; `ex/s/core` that divided by the workers;
`ex/cpu-s` examples per CPU second of the worker processes (their start-up and imports and
the compilers they ran included: what the rate per core would be on cores nobody else uses;
other processes on a shared machine slow the wall-clock figures, much less this one); then the share of the examples' wall time per phase. The
load average is printed before and after: the wall-clock figures are only comparable at
similar load. Below the table, the tail per configuration: the examples whose check (verify,
compiles, runs) took over 1 CPU second, their count and share of the workers' CPU, and the
CPU per example of all the others (the workers' CPU less the tail's checks: draw, start-up
and imports included), which explains the ex/cpu-s figure; then the workers' CPU split into
start-up (spawn, imports: their CPU outside the batches), the draw (the batches' CPU outside the
examples' checks), the checks outside the tail, and the tail.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verified_sched.fuzz.campaign import Config  # noqa: E402
from verified_sched.fuzz.driver import Campaign  # noqa: E402
from verified_sched.fuzz.stats import SLOW_CPU  # noqa: E402


LOOP_OPS = ("split", "interchange", "retype", "unroll", "partition", "pad")
MIXES = {"all ops": Config().ops, "loop ops": LOOP_OPS}
PHASES = ("draw", "verify", "compile", "run")


def measure(seconds: float | None, examples: int | None, workers: int, seed: int, out: Path, ops: tuple,
            batch: int, warm: bool) -> tuple:
    """(cold campaign, warm campaign or None): fresh processes on a fresh cache folder, then
    (warm) fresh processes again on the caches the cold run left."""
    cfg = Config(ops=ops, seed=seed, shrink_seconds=2.0, batch=batch)
    saved = os.environ.get("VSCHED_CACHE_DIR")
    os.environ["VSCHED_CACHE_DIR"] = tempfile.mkdtemp(prefix="vsched-fuzz-bench-")  # the workers inherit it
    try:
        cold = _timed(Campaign(cfg, out, examples, seconds, workers, pool_for_one=True))
        hot = _timed(Campaign(cfg, out, examples, seconds, workers, pool_for_one=True)) if warm else None
    finally:
        shutil.rmtree(os.environ["VSCHED_CACHE_DIR"], ignore_errors=True)
        if saved is None:
            os.environ.pop("VSCHED_CACHE_DIR", None)
        else:
            os.environ["VSCHED_CACHE_DIR"] = saved
    return cold, hot


def _children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def _timed(camp: Campaign) -> Campaign:
    """Run `camp`; `camp.cpu`: the CPU seconds of its worker processes, start-up, imports and the
    compilers they ran included (the pool is shut down, so every worker was waited for)."""
    c0 = _children_cpu()
    camp.run()
    camp.cpu = _children_cpu() - c0
    return camp


def _row(mix: str, workers: int, camp: Campaign, base: float, hot: Campaign | None) -> str:
    s = camp.stats
    rate = s.examples / camp.seconds
    t = s.times
    busy = sum(t.get(k, 0.0) for k in PHASES) or 1.0
    share = {k: 100 * t.get(k, 0.0) / busy for k in PHASES}
    cpu = s.examples / camp.cpu if camp.cpu else float("nan")
    warm = f"{hot.stats.examples / hot.seconds / workers:>9.2f}" if hot is not None else f"{'-':>9}"
    return (f"{mix:>9} {workers:>7} {s.examples:>8} {camp.seconds:>8.1f} {rate:>6.2f} {rate / workers:>9.2f} "
            f"{cpu:>8.2f} {warm} {share['draw']:>5.0f}% {share['verify']:>6.0f}% {share['compile']:>7.0f}% "
            f"{share['run']:>5.0f}% {len(camp.findings):>8} {rate / base:>6.2f}x")


def tail_line(mix: str, workers: int, camp: Campaign) -> str:
    """The tail's share: examples whose check took over SLOW_CPU CPU seconds, their count and
    share of the workers' CPU, and the CPU per example of the rest (draw, start-up and imports
    included: the workers' CPU less the tail's checks)."""
    s, cpu = camp.stats, getattr(camp, "cpu", 0.0)
    rest = s.examples - s.slow
    share = 100 * s.slow_cpu / cpu if cpu else float("nan")
    per = (cpu - s.slow_cpu) / rest if rest and cpu else float("nan")
    return (f"tail ({mix}, {workers} worker{'s' if workers > 1 else ''}): {s.slow} of {s.examples} examples "
            f"over {SLOW_CPU:g} CPU s ({100 * s.slow / max(1, s.examples):.0f}%), {s.slow_cpu:.1f} CPU s = {share:.0f}% "
            f"of the workers' CPU; the other {rest}: {per:.3f} CPU s per example (draw, start-up included)")


def cpu_line(mix: str, workers: int, camp: Campaign) -> str:
    """Where the workers' CPU went: start-up (process spawn, imports, pool traffic: the workers'
    CPU outside their batches), the draw (the batches' CPU outside the examples' checks:
    hypothesis, drawing programs and schedules, applying the drawn ops; shrinking too, in a
    batch with a finding), the checks of the
    examples outside the tail (verify, compiles, runs), and the tail's checks."""
    s, cpu = camp.stats, getattr(camp, "cpu", 0.0)
    batches = s.times.get("cpu", 0.0)
    start, draw = max(0.0, cpu - batches), max(0.0, batches - s.check_cpu)
    rest, n = s.check_cpu - s.slow_cpu, max(1, s.examples)
    share = (lambda x: f"{100 * x / cpu:.0f}%") if cpu else (lambda x: "?")
    return (f"cpu ({mix}, {workers} worker{'s' if workers > 1 else ''}): {cpu:.1f} s = start-up {start:.1f} s "
            f"({share(start)}, {start / workers:.2f} s per worker), draw {draw:.1f} s ({share(draw)}, "
            f"{1000 * draw / n:.0f} ms per example), checks outside the tail {rest:.1f} s ({share(rest)}, "
            f"{1000 * rest / max(1, s.examples - s.slow):.0f} ms per example), tail {s.slow_cpu:.1f} s "
            f"({share(s.slow_cpu)})")


WARM_UP = ("from verified_sched.fuzz.campaign import Config, run_batch; "
           "[run_batch(Config(seed=1, batch=4, shrink_seconds=0.5), k) for k in range(3)]")


def bytecode(tmp: Path) -> str:
    """Workers start as from an installed package, whose sources are compiled once: where this
    environment sets PYTHONDONTWRITEBYTECODE (every process compiled every source it imported:
    about 0.4 CPU s of a worker's start-up), bytecode goes to a scratch PYTHONPYCACHEPREFIX,
    written by one short campaign run first (its own seed and cache folder: the measured
    examples and caches stay fresh and cold). `--no-bytecode` measures without."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
        return "bytecode: the interpreter's own (__pycache__)"
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    env = dict(os.environ, VSCHED_CACHE_DIR=str(tmp / "warm-up-cache"),
               PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-c", WARM_UP], env=env, capture_output=True, check=False)
    return "bytecode: compiled once before the measurement (as an installed package has it; --no-bytecode: without)"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=1800, help="examples per configuration")
    ap.add_argument("--seconds", type=float, default=None, help="a budget per configuration instead")
    ap.add_argument("--seed", type=int, default=None, help="default: a fresh one (printed)")
    ap.add_argument("--batch", type=int, default=Config().batch, help="examples per batch (the campaign's default)")
    ap.add_argument("--mix", choices=("all", "loop", "both"), default="both", help="op mixes to measure")
    ap.add_argument("--warm", action="store_true", help="also rerun each configuration on its warm caches")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="workers compile the sources they import (this environment's PYTHONDONTWRITEBYTECODE)")
    args = ap.parse_args()
    seconds, examples = args.seconds, (None if args.seconds else args.examples)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    mixes = {k: v for k, v in MIXES.items() if args.mix == "both" or k.startswith(args.mix)}
    load_before = os.getloadavg()
    print(f"seed {seed} (fresh examples: rerun with --seed {seed} to repeat them); cold caches"
          + ("; warm: the same examples again on the caches they left" if args.warm else ""), flush=True)
    rows, loads = [], []
    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_bytecode:
            print(bytecode(Path(tmp)), flush=True)
        for mix, ops in mixes.items():
            for workers in (1, 2):
                cold, hot = measure(seconds, examples, workers, seed, Path(tmp), ops, args.batch, args.warm)
                rows.append((mix, workers, cold, hot))
                loads.append(os.getloadavg()[0])
    print(f"{'ops':>9} {'workers':>7} {'examples':>8} {'seconds':>8} {'ex/s':>6} {'ex/s/core':>9} {'ex/cpu-s':>8} "
          f"{'warm/core':>9} {'draw':>6} {'verify':>7} {'compile':>8} {'run':>6} {'findings':>8} {'vs 1':>7}")
    base = {}
    for mix, workers, camp, hot in rows:
        base.setdefault(mix, camp.stats.examples / camp.seconds)
        print(_row(mix, workers, camp, base[mix], hot))
    for mix, workers, camp, _ in rows:
        print(tail_line(mix, workers, camp))
    for mix, workers, camp, _ in rows:
        print(cpu_line(mix, workers, camp))
    for mix, workers, camp, _ in rows:
        if workers == 2:
            print(f"scaling 1 -> 2 workers ({mix}): {camp.stats.examples / camp.seconds / base[mix]:.2f}x")
    print(f"cores available: {len(os.sched_getaffinity(0))}; load average (1 min): {load_before[0]:.1f} before, "
          f"{', '.join(f'{x:.1f}' for x in loads)} after each configuration (other processes share these cores: "
          "ex/s figures are per wall-clock second, ex/cpu-s per CPU second of the workers and their compilers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
