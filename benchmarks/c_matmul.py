"""Emitted C of the unscheduled corpus matmul vs the same loop nest written by hand, at 512^3;
then the shipped verified schedules against numpy (OpenBLAS, 1 thread) side by side.

Part 1: both are compiled with the backend's flags (-O3 -ffp-contract=off ...) and called the
same way (through cffi, by `CModule.run`). Target: emitted / hand <= 1.2, i.e. the emitter adds
no index overhead in the inner loop. Also prints the cold (compile) vs cached (disk, memory)
load times of the compiled module.

Part 2 (issue 25): `examples/sgemm_register_tile.vs` and `examples/matmul.vs`, each verified
legal first and checked bitwise equal to the unscheduled C at full size, compiled with the
backend's flags plus `--cflags` (default `-march=native`), timed interleaved with numpy's
`a @ b` in CPU time of this thread (`time.thread_time`: a shared machine's preemption does not
count against the slower kernel), best of `--repeat`. For this process only, OPENBLAS_CORETYPE
and OPENBLAS_L2_SIZE are unset together and OPENBLAS_NUM_THREADS=1 (set before numpy loads);
the machine's load average is printed. Target: the register-tile schedule >= 50% of numpy's
GFLOP/s. Run: `.venv/bin/python benchmarks/c_matmul.py [--size 512] [--repeat 5] [--cflags ...]`.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

for _var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # this benchmark only, before numpy loads
    os.environ.pop(_var, None)
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegen import build  # noqa: E402
from verified_sched.analysis.full_tiles import full_tiles  # noqa: E402
from verified_sched.oracle.compare import compare_kernels, random_inputs  # noqa: E402
from verified_sched.dsl import parse_text  # noqa: E402
from verified_sched.ops import apply_schedule  # noqa: E402
from verified_sched.verify.driver import verify_program  # noqa: E402
from verified_sched.verify.kernel_report import file_report_json

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("sgemm_register_tile.vs", "matmul.vs")

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


def blas_info() -> str:
    """Which OpenBLAS kernel numpy runs (threadpoolctl when installed)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return _corename()
    libs = [f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')} threads={i.get('num_threads')}"
            for i in threadpool_info() if i.get("user_api") == "blas"]
    return "; ".join(libs) or "no BLAS found by threadpoolctl"


def _corename() -> str:
    """The OpenBLAS core numpy's bundled library chose (its get_corename), without threadpoolctl."""
    import ctypes
    import glob

    for lib in glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs", "*openblas*")):
        for name in ("scipy_openblas_get_corename64_", "openblas_get_corename64_", "openblas_get_corename"):
            try:
                fn = getattr(ctypes.CDLL(lib), name)
            except (OSError, AttributeError):
                continue
            fn.restype = ctypes.c_char_p
            return f"OpenBLAS core {fn().decode()} ({os.path.basename(lib)}; threadpoolctl not installed)"
    return "threadpoolctl not installed (kernel not reported)"


def against_numpy(n: int, repeat: int, cflags: str) -> int:
    """Part 2: the shipped verified schedules vs numpy at n^3, side by side (ratios)."""
    flags = build.flags_for(None, cflags)
    sizes = {"N": n, "M": n, "K": n}
    rows, runs = [], []
    plain = None
    for name in SHIPPED:
        path = ROOT / "examples" / name
        program = parse_text(path.read_text(), str(path))
        verdict = file_report_json(verify_program(program, filename=name), name)["verdict"]
        if verdict != "legal":
            print(f"{name}: not proved legal ({verdict}); not timed")
            return 1
        scheduled = apply_schedule(program, "matmul")
        mod = build.load_c(scheduled, ["matmul"], flags=flags, split=full_tiles)
        if plain is None:
            plain = build.load_c(program, ["matmul"], flags=flags, split=full_tiles)
        rows.append(name)
        runs.append(mod.run)
    arrays = random_inputs(program, ["matmul"], sizes, seed=0)
    plain.run("matmul", sizes, arrays)
    want = arrays["c"].view(np.uint32).copy()
    for name, run in zip(rows, runs):
        run("matmul", sizes, arrays)
        if not np.array_equal(want, arrays["c"].view(np.uint32)):
            print(f"{name}: result differs from the unscheduled C at {n}^3")
            return 1
    a, b = arrays["a"], arrays["b"]
    runs.append(lambda *_: a @ b)
    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for k, run in enumerate(runs):
            start = time.thread_time()
            run("matmul", sizes, arrays)
            best[k] = min(best[k], time.thread_time() - start)
    flops = 2.0 * n ** 3
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nshipped verified schedules vs numpy (1 thread), {n}^3 f32, CPU time best of {repeat}; "
          f"load average {load:.1f} on {os.cpu_count()} cores; flags {' '.join(flags)}")
    print(f"numpy: {np.__version__}, {blas_info()}")
    print(f"{'variant':<28}{'seconds':>10}{'GFLOP/s':>10}{'vs numpy':>10}")
    for name, t in zip(rows + ["numpy a @ b"], best):
        print(f"{name:<28}{t:>10.4f}{flops / t / 1e9:>10.2f}{best[-1] / t:>10.2f}")
    ratio = best[-1] / best[0]
    print(f"{rows[0]} reaches {100 * ratio:.0f}% of numpy's GFLOP/s   target >= 50%: "
          f"{'ok' if ratio >= 0.5 else 'MISSED'}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cflags", default="-march=native", help="extra C flags of part 2 (build.flags_for)")
    args = ap.parse_args()
    cases = Path(__file__).resolve().parents[1] / "tests" / "cases" / "matmul_tiled.vs"
    program = parse_text(cases.read_text(), str(cases)) if cases.exists() else parse_text(MATMUL)
    source = "corpus matmul_tiled.vs (kernel without its schedule)" if cases.exists() else "built-in DSL text"

    with tempfile.TemporaryDirectory() as cache:
        os.environ["VSCHED_CACHE_DIR"] = cache
        t0 = time.perf_counter()
        emitted = build.load_c(program, split=full_tiles)
        cold = time.perf_counter() - t0
        build.MEMO.clear()
        t0 = time.perf_counter()
        again = build.load_c(program, split=full_tiles)
        disk = time.perf_counter() - t0
        t0 = time.perf_counter()
        memo = build.load_c(program, split=full_tiles)
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
    status = against_numpy(args.size, args.repeat, args.cflags)
    return status or (0 if ratio <= 1.2 else 1)


if __name__ == "__main__":
    sys.exit(main())
