"""The slowest examples of a fresh fuzz campaign, saved as .vs files to profile one by one.

    python benchmarks/fuzz_tail.py [--seed S] [--batches 12] [--keep 15] [--out DIR]

Runs `--batches` batches of the default campaign (`vsched fuzz`'s Config, seed S, batch k
with seed (S, k), as `fuzz_throughput.py` runs them) in this process, measures each
example's check in CPU seconds, and writes the `--keep` slowest to DIR/slowNN.vs (the first
line: its CPU seconds and the size sets it was checked at; `vsched verify DIR/slow00.vs
--timeout 60` replays its verification). Prints the total, the mean and the tail's share: how
much of the CPU the slowest 5% took.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verified_sched.core.printer import print_program  # noqa: E402
from verified_sched.fuzz import campaign  # noqa: E402


def collect(seed: int, batches: int) -> list:
    """[(cpu s, wall s, program text, size sets, verdict, phase times)] of every example."""
    rows = []
    check = campaign.check_example

    def timed(program, kernel, sizes, backend, timeout):
        c0, t0 = time.process_time(), time.perf_counter()
        out = check(program, kernel, sizes, backend, timeout)
        rows.append((time.process_time() - c0, time.perf_counter() - t0, print_program(program), sizes,
                     getattr(out, "verdict", None), dict(out.times)))
        return out

    campaign.check_example = timed
    try:
        cfg = campaign.Config(seed=seed)
        for k in range(batches):
            campaign.run_batch(cfg, k)
    finally:
        campaign.check_example = check
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=31337)
    ap.add_argument("--batches", type=int, default=12)
    ap.add_argument("--keep", type=int, default=15)
    ap.add_argument("--out", default="fuzz-tail")
    args = ap.parse_args(argv)
    rows = sorted(collect(args.seed, args.batches), key=lambda r: -r[0])
    if not rows:
        print("no examples")
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    total = sum(r[0] for r in rows)
    print(f"{len(rows)} examples, {total:.1f} CPU s, mean {total / len(rows):.3f} s")
    for i, (cpu, wall, text, sizes, verdict, times) in enumerate(rows[:args.keep]):
        phases = ", ".join(f"{k} {v:.2f}" for k, v in times.items())
        print(f"slow{i:02d}.vs: {cpu:.2f} CPU s, {wall:.2f} s wall, {verdict}: {phases}")
        (out / f"slow{i:02d}.vs").write_text(f"# cpu {cpu:.2f}s sizes {sizes}\n" + text)
    top = rows[:max(1, len(rows) // 20)]
    print(f"the slowest 5% ({len(top)}) took {sum(r[0] for r in top) / total:.0%} of the CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
