"""A fuzz campaign of IREE as a backend under test: random well-formed kernels (the strategies of
verified_sched/fuzz/strategies.py, serial, no dynamic indices), each one linalg can express emitted
as MLIR, compiled by iree-compile (llvm-cpu) and run by the IREE runtime against the C oracle
(bitwise without accumulations, within 1e-4/1e-2 relative otherwise). Prints a table.

    python benchmarks/iree_fuzz.py --minutes 10 [--seed 0]

The same runner is the `vsched fuzz --backend verified_sched.mlir.iree_backend:factory` backend.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis.errors import NonInteractiveExampleWarning  # noqa: E402

from codegen.build import load_c  # noqa: E402
from verified_sched.analysis.full_tiles import full_tiles  # noqa: E402
from verified_sched.oracle.compare import compare_kernels  # noqa: E402
from verified_sched.core.printer import print_program  # noqa: E402
from verified_sched.core.errors import VschedError  # noqa: E402
from verified_sched.mlir.iree_backend import IreeError, factory  # noqa: E402
from verified_sched.oracle.compare import tolerance  # noqa: E402
from verified_sched.mlir.run_iree import expressible, has_accumulation  # noqa: E402
from verified_sched.analysis.sizes import example_sizes  # noqa: E402
from verified_sched.fuzz.strategies import programs  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="write failing programs here")
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    warnings.simplefilter("ignore", NonInteractiveExampleWarning)
    strategy = programs(max_tensors=3, max_loops=4, kernels=1, parallel=False, dynamic=False,
                        data_guards=False, precisions=("f32", "f16", "bf16", "i32", "f64"))
    stats: Counter = Counter()
    failures = []
    end = time.time() + 60 * args.minutes
    while time.time() < end:
        program = strategy.example()  # hypothesis' own random source (not reproducible)
        k = program.kernels[0].name
        why = expressible(program, k)
        if why is not None:
            reason = why.split("linalg cannot express ")[-1].split(" (")[0].split(",")[0]
            stats["refused: " + " ".join(reason.split()[:4])] += 1
            continue
        for sizes in example_sizes(program, 2):
            rtol = tolerance(program, [k]) if has_accumulation(program, k) else None
            try:
                report = compare_kernels(program, k, k, sizes, seed=rnd.randrange(1 << 30),
                                         runner_ref=load_c(program, split=full_tiles).run, runner_cand=factory(program),
                                         rtol=rtol, atol=rtol or 0.0)
            except VschedError as e:  # expressible at the first sizes, not at these
                stats["refused at other sizes"] += 1
                break
            except IreeError as e:
                stats["IREE error"] += 1
                failures.append((print_program(program), sizes, str(e)[:2000]))
                break
            stats["compared"] += 1
            if report.vacuous:
                stats["vacuous"] += 1
            elif not report.ok:
                stats["DIFFERENT"] += 1
                failures.append((print_program(program), sizes, report.text()))
                break
            else:
                stats["bitwise equal" if rtol is None else "equal within tolerance"] += 1
    print(f"{'outcome':48}{'count':>8}")
    for key, n in sorted(stats.items(), key=lambda kv: -kv[1]):
        print(f"{key:48}{n:8}")
    for text, sizes, why in failures[:10]:
        print("-" * 72, f"\nat {sizes}:\n{text}\n{why}")
    if args.out and failures:
        Path(args.out).write_text("\n\n".join(f"# at {s}\n{t}\n# {w!r}" for t, s, w in failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
