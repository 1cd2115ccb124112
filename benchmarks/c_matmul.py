"""Emitted C of the unscheduled corpus matmul vs the same loop nest written by hand, at 512^3.

Both are compiled with the backend's flags (-O3 -ffp-contract=off ...) and called the same way
(through cffi, by `CModule.run`). Target: emitted / hand <= 1.2, i.e. the emitter adds no index
overhead in the inner loop. Also prints the cold (compile) vs cached (disk, memory) load times
of the compiled module. Run: `.venv/bin/python benchmarks/c_matmul.py [--size 512] [--repeat 3]`.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegen import build  # noqa: E402
from codegen.oracle import compare_kernels, random_inputs  # noqa: E402
from verified_sched.dsl import parse_text  # noqa: E402

MATMUL = """
params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
kernel matmul {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}
"""

HAND = r"""
#include <stdint.h>
#include <string.h>
void hand_matmul(int64_t N, int64_t M, int64_t K, float *restrict a, float *restrict b,
                 float *restrict c) {
  memset(c, 0, sizeof(float) * N * M);
  for (int64_t i = 0; i < N; i++)
    for (int64_t j = 0; j < M; j++)
      for (int64_t k = 0; k < K; k++)
        c[i * M + j] += a[i * K + k] * b[k * M + j];
}
"""


def best_times(runs, sizes, arrays, repeat: int) -> list:
    """Best wall time of each runner, runs interleaved so machine noise hits both alike."""
    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for n, run in enumerate(runs):
            start = time.perf_counter()
            run("matmul", sizes, arrays)
            best[n] = min(best[n], time.perf_counter() - start)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    cases = Path(__file__).resolve().parents[1] / "tests" / "cases" / "matmul_tiled.vs"
    program = parse_text(cases.read_text(), str(cases)) if cases.exists() else parse_text(MATMUL)
    source = "corpus matmul_tiled.vs (kernel without its schedule)" if cases.exists() else "built-in DSL text"

    with tempfile.TemporaryDirectory() as cache:
        os.environ["VSCHED_CACHE_DIR"] = cache
        t0 = time.perf_counter()
        emitted = build.load_c(program)
        cold = time.perf_counter() - t0
        build.MEMO.clear()
        t0 = time.perf_counter()
        again = build.load_c(program)
        disk = time.perf_counter() - t0
        t0 = time.perf_counter()
        memo = build.load_c(program)
        memory = time.perf_counter() - t0
        assert (emitted.status, again.status, memo.status) == ("compiled", "disk", "memory")
        hand_path, _, _ = build.compile_shared(HAND)
        hand = build.load_shared(program, hand_path, {"matmul": "hand_matmul"})

        check = compare_kernels(program, "matmul", "matmul", {"N": 37, "M": 20, "K": 11},
                                runner_ref=hand.run, runner_cand=emitted.run)
        if not check.ok:
            print(check.text())
            return 1

        n = args.size
        sizes = {"N": n, "M": n, "K": n}
        arrays = random_inputs(program, ["matmul"], sizes, seed=0)
        emitted.run("matmul", sizes, arrays)
        out_emit = arrays["c"].copy()
        t_emit, t_hand = best_times([emitted.run, hand.run], sizes, arrays, args.repeat)
        if not np.array_equal(out_emit.view(np.uint32), arrays["c"].view(np.uint32)):
            print("emitted and hand-written results differ at full size")
            return 1
    ratio = t_emit / t_hand
    print(f"matmul {n}x{n}x{n} f32, {source}; best of {args.repeat}; flags {' '.join(build.FLAGS)}")
    print(f"{'variant':<24}{'seconds':>10}{'GFLOP/s':>10}")
    flops = 2.0 * n ** 3
    for name, t in (("emitted C", t_emit), ("hand-written C", t_hand)):
        print(f"{name:<24}{t:>10.4f}{flops / t / 1e9:>10.2f}")
    print(f"{'ratio emitted/hand':<24}{ratio:>10.3f}   target <= 1.2: {'ok' if ratio <= 1.2 else 'MISSED'}")
    print()
    print(f"{'module load':<24}{'seconds':>10}")
    for name, t in (("cold (compile)", cold), ("cached (disk)", disk), ("cached (in-process)", memory)):
        print(f"{name:<24}{t:>10.4f}")
    return 0 if ratio <= 1.2 else 1


if __name__ == "__main__":
    sys.exit(main())
