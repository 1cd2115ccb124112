"""The reference interpreter (`--target interp`) on a plain f32 matmul: the scalar path
(`run_kernel(..., vectorize=False)`, the interpreter as it was: one Python closure call per
operation per iteration) against the default path, which runs the independent `j` loop on
numpy lanes (verified_sched/interp/vector.py) and keeps each cell's `k` accumulation in
order. Both results are checked bitwise against each other and against the compiled C.
Target: >= 10x at 128^3. Run: `python benchmarks/interp_matmul.py [--sizes 64,128] [--repeat 1]`;
exit 1 when the target is missed.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegen.build import load_c  # noqa: E402
from verified_sched.analysis.full_tiles import full_tiles  # noqa: E402
from verified_sched.oracle.compare import random_inputs  # noqa: E402
from verified_sched.dsl import parse_text  # noqa: E402
from verified_sched.interp.interpreter import run_kernel  # noqa: E402

TARGET = 10.0
MATMUL = """params N, M, K where N >= 1, M >= 1, K >= 1
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


def timed(run, inputs, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        arrays = {k: v.copy() for k, v in inputs.items()}
        t0 = time.perf_counter()
        run(arrays)
        best = min(best, time.perf_counter() - t0)
        out = arrays
    return best, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="64,128", help="matmul sizes n (n^3), comma separated")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    program = parse_text(MATMUL)
    c_run = load_c(program, split=full_tiles).run
    rows, ok = [], True
    for n in (int(x) for x in args.sizes.split(",")):
        sizes = {"N": n, "M": n, "K": n}
        inputs = random_inputs(program, ["matmul"], sizes, seed=0)
        t_scalar, scalar = timed(lambda arrs: run_kernel(program, "matmul", sizes, arrs, vectorize=False),
                                 inputs, args.repeat)
        t_vector, vector = timed(lambda arrs: run_kernel(program, "matmul", sizes, arrs), inputs, args.repeat)
        _, native = timed(lambda arrs: c_run("matmul", sizes, arrs), inputs, 1)
        same = all(np.array_equal(scalar[k].view(np.uint32), vector[k].view(np.uint32))
                   and np.array_equal(vector[k].view(np.uint32), native[k].view(np.uint32)) for k in ("c",))
        ratio = t_scalar / t_vector
        ok &= same and (n < 128 or ratio >= TARGET)
        rows.append((f"{n}^3", n ** 3, t_scalar, t_vector, ratio, same))
    print(f"{'size':>6} {'iterations':>11} {'scalar':>10} {'vectorized':>11} {'speedup':>8} {'us/iter scalar':>15} "
          f"{'bitwise (scalar, vector, C)':>28}")
    for size, iters, ts, tv, r, same in rows:
        print(f"{size:>6} {iters:>11} {ts:>9.2f}s {tv:>10.3f}s {r:>7.1f}x {1e6 * ts / iters:>15.2f} "
              f"{'equal' if same else 'DIFFERENT':>28}")
    print(f"target: >= {TARGET:.0f}x at 128^3: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
