"""A fingerprint of what the fuzzer draws: for each configuration (op set, kernel families)
and each of `--seeds` hypothesis seeds, the printed programs (family kernel and the applicable
schedule drawn over it) and their size sets, one sha256 line per (configuration, seed).

A refactor of the fuzz strategies that must keep seeded campaigns reproducible (the same
`draw` calls, in the same order, over the same candidates) leaves this output unchanged:

    python tests/support/draw_fingerprint.py --seeds 40 > before.txt
    ... change ...
    python tests/support/draw_fingerprint.py --seeds 40 > after.txt && diff before.txt after.txt
"""
from __future__ import annotations

import argparse
import hashlib
import sys

from hypothesis import HealthCheck, Phase, given, seed, settings

from verified_sched.core.printer import print_program
from verified_sched.fuzz.strategies import OPS, fuzz_examples

TILED = ("split", "interchange", "retype", "tensorize", "stage")
CONFIGS = [("all", OPS, None), ("tiled", TILED, ("tiled", "matmul")),
           ("no-split", ("interchange", "tensorize", "stage"), ("tiled",))]
CONFIGS += [(op, (op,), None) for op in OPS]


def fingerprint(ops: tuple, shapes, seed_value: int, examples: int) -> tuple:
    """(sha256 of the drawn examples' text, number of ops drawn)."""
    texts, count = [], [0]
    kw = {"shapes": shapes} if shapes else {}

    @seed(seed_value)
    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(fuzz_examples(ops=ops, **kw))
    def run(ex):
        sched = ex.program.schedule_for(ex.kernel)
        count[0] += len(sched.ops) if sched else 0
        texts.append(print_program(ex.program) + repr(ex.sizes))

    run()
    return hashlib.sha256("\n\x00".join(texts).encode()).hexdigest()[:16], len(texts), count[0]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--examples", type=int, default=8, help="examples per (configuration, seed)")
    ap.add_argument("--only", default=None, help="one configuration name")
    args = ap.parse_args(argv)
    for name, ops, shapes in CONFIGS:
        if args.only and name != args.only:
            continue
        for s in range(args.seeds):
            digest, n, nops = fingerprint(ops, shapes, s, args.examples)
            print(f"{name} seed={s} examples={n} ops={nops} {digest}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
