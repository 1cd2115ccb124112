"""Speed of the CI gate (a measurement, not a test): `vsched verify` over the verdict corpus
with one worker against two (cache off), and with the proof cache cold against warm.

Each comparison is measured twice: end to end, as a CI step runs it (`python -m
verified_sched verify tests/cases ...` in a fresh process, interpreter start and imports
included), and in process (`verified_sched.gate.runner.verify_files`, the verification
alone). Rounds alternate the two sides, so a busy machine slows both alike; the table shows
the median of `--repeat` rounds (and the ratio of the best times). Targets: -j 2 at least
1.7x faster than -j 1; warm at least 10x faster than cold. Exit 0 always: the table is the
result.

An untimed warm-up run comes first: it compiles the package's bytecode, builds the C code
of the refutation replays into the private compile cache and records the durations that
order -j 2's jobs (gate/timings.py), as any earlier run on the machine would. The CLI runs
keep their bytecode in a private folder, as an installed package does (`--bytecode env`
measures with this environment's settings instead: where PYTHONDONTWRITEBYTECODE is set,
every run compiles the package's source again, some 0.15 s of CPU before the first proof).

usage: python benchmarks/gate_speed.py [CASES_DIR] [--repeat R] [--only jobs|cache] [--bytecode cached|env]
"""
from __future__ import annotations

import argparse
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verified_sched.gate.runner import verify_files  # noqa: E402


CPU = {}  # extra args -> CPU seconds (user + sys) of the run with the least wall time


def cli_seconds(cases, extra, env, label=None) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "verified_sched", "verify", str(cases), *extra],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"vsched verify failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    key = label or " ".join(extra)
    if wall < CPU.get(key, (float("inf"), 0))[0]:
        CPU[key] = (wall, cpu)
    return wall


def inproc_seconds(cases, jobs, use_cache) -> float:
    t = time.perf_counter()
    results = verify_files([str(cases)], jobs=jobs, use_cache=use_cache)
    if any(not r.verified for r in results):
        raise SystemExit("a corpus file did not verify")
    return time.perf_counter() - t


def pair(repeat, first, second) -> tuple:
    """The times of both sides, `repeat` rounds alternating."""
    a, b = [], []
    for _ in range(repeat):
        a.append(first())
        b.append(second())
    return a, b


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="?", default=str(ROOT / "tests" / "cases"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", choices=("jobs", "cache"), help="only the -j comparison, or only the cache one")
    ap.add_argument("--bytecode", choices=("cached", "env"), default="cached",
                    help="cached (default): the CLI runs keep their compiled bytecode in a private folder, "
                         "as an installed package does; env: as this environment says (with "
                         "PYTHONDONTWRITEBYTECODE set, every run compiles the package's source again)")
    args = ap.parse_args()
    cases = pathlib.Path(args.cases)
    cache = pathlib.Path(tempfile.mkdtemp(prefix="vsched-gate-bench-"))
    os.environ["VSCHED_CACHE_DIR"] = str(cache)  # this process and the CLI runs: a private cache
    env = dict(os.environ)
    if args.bytecode == "cached":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache / "pycache")

    def clear():
        shutil.rmtree(cache / "proofs", ignore_errors=True)

    def cold_cli():
        clear()
        return cli_seconds(cases, ["-j", "1"], env, "cold -j 1")

    def cold_inproc():
        clear()
        return inproc_seconds(cases, 1, True)

    rows = []
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    try:
        files = len(list(cases.rglob("*.vs")))
        # untimed warm-up: bytecode (when cached), the C builds of the refutation replays, the
        # durations that order -j 2's jobs, and this process's imports
        cli_seconds(cases, ["--no-cache", "-j", "1"], env, "warm-up")
        inproc_seconds(cases, 1, False)
        if args.only in (None, "jobs"):
            a, b = pair(args.repeat, lambda: cli_seconds(cases, ["--no-cache", "-j", "1"], env),
                        lambda: cli_seconds(cases, ["--no-cache", "-j", "2"], env))
            rows.append(("-j 1 vs -j 2, no cache", "end to end", a, b, 1.7))
            a, b = pair(args.repeat, lambda: inproc_seconds(cases, 1, False), lambda: inproc_seconds(cases, 2, False))
            rows.append(("-j 1 vs -j 2, no cache", "in process", a, b, 1.7))
        if args.only in (None, "cache"):
            a, b = pair(args.repeat, cold_cli, lambda: cli_seconds(cases, ["-j", "1"], env, "warm -j 1"))
            rows.append(("cold vs warm cache, -j 1", "end to end", a, b, 10.0))
            a, b = pair(args.repeat, cold_inproc, lambda: inproc_seconds(cases, 1, True))
            rows.append(("cold vs warm cache, -j 1", "in process", a, b, 10.0))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    load_end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{files} files in {cases}; {os.cpu_count()} cores, load average {load:.1f} before, "
          f"{load_end:.1f} after; median of {args.repeat} rounds")
    print(f"bytecode: {args.bytecode}; end to end, CPU seconds (all processes) of the fastest runs: " +
          ", ".join(f"{k}: {cpu:.2f}s cpu / {wall:.2f}s wall" for k, (wall, cpu) in CPU.items() if k != "warm-up"))
    print(f"{'comparison':<26} {'measured':<11} {'first':>8} {'second':>8} {'ratio':>7} {'best':>7}  target")
    for name, how, a, b, target in rows:
        ma, mb = statistics.median(a), statistics.median(b)
        ratio = ma / mb
        mark = "ok" if ratio >= target else "MISSED"
        print(f"{name:<26} {how:<11} {ma:7.2f}s {mb:7.2f}s {ratio:6.2f}x {min(a) / min(b):6.2f}x  "
              f">= {target:g}x {mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
