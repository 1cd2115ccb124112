"""Robustness at scale: mutated .vs files through `vsched show` and `vsched verify` (a
measurement, not a test; tests/test_dsl_fuzz.py runs a small seeded sample in the suite).

Mutants come from `tests/support/dsl_mutate.py` over tests/cases/*.vs and examples/*.vs. Each
runs in a worker process (`show FILE`, then `verify FILE --timeout V`; with `--run`, also
`run FILE` when verify says legal) under a wall-clock limit per mutant: a worker past the
limit is killed and counted as a timeout, a worker killed by a signal as a signal. Printed:
the count of each exit code per command, timeouts, signals, internal errors (exit 4),
tracebacks on stderr, and the slowest mutants. Exit 1 when any internal error, traceback,
signal or timeout happened.

usage: python benchmarks/dsl_fuzz.py [--mutants 2000] [--timeout 30] [--verify-timeout 5]
                                     [--seed 0] [--jobs 2] [--run] [--keep DIR]
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import contextlib
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OK_CODES = {0, 1, 2, 3}


def run_in_process(argv: list) -> tuple[int, str, str]:
    """(exit code, stderr, stdout) of `vsched argv` run in this process."""
    from verified_sched.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:  # not expected: main returns its code
            rc = e.code if isinstance(e.code, int) else 2
        except BaseException as e:  # noqa: BLE001 - anything escaping main is the finding
            import traceback
            traceback.print_exception(e, file=err)
            rc = 99
    return rc, err.getvalue(), out.getvalue()


def worker() -> None:
    """Read one JSON request per line ({"path", "verify_timeout", "run"}), answer one JSON line."""
    for line in sys.stdin:
        req = json.loads(line)
        res = {}
        for cmd in ("show", "verify", "run"):
            if cmd == "run" and not (req["run"] and res.get("verify", (None,))[0] == 0):
                continue
            argv = {"show": ["show", req["path"]],
                    "verify": ["verify", req["path"], "--timeout", str(req["verify_timeout"])],
                    "run": ["run", req["path"]]}[cmd]
            start = time.perf_counter()
            rc, err, out = run_in_process(argv)
            finding = [ln for ln in out.splitlines() if any(w in ln for w in ("DIFFERENT", "FAILED", "VACUOUS"))]
            last = err.strip().splitlines()[-1] if err.strip() else ""
            res[cmd] = (rc, time.perf_counter() - start, "Traceback (most recent call last)" in err,
                        (finding[0] if finding and cmd == "run" else last)[:200])
        print(json.dumps(res), flush=True)


class Worker:
    """A long-lived worker process; restarted after a timeout or a crash."""

    def __init__(self):
        self.proc = None

    def start(self):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                     env=env, cwd=ROOT)

    def ask(self, path: str, verify_timeout: float, run: bool, limit: float) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.proc.stdin.write(json.dumps({"path": path, "verify_timeout": verify_timeout, "run": run}) + "\n")
        self.proc.stdin.flush()
        box = {}

        def read():
            box["line"] = self.proc.stdout.readline()

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(limit)
        if t.is_alive():
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            return {"timeout": True}
        if not box.get("line"):
            code = self.proc.wait()
            self.proc = None
            return {"signal": -code if code < 0 else code}
        return json.loads(box["line"])

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutants", type=int, default=2000)
    ap.add_argument("--timeout", type=float, default=30.0, help="wall-clock seconds per mutant")
    ap.add_argument("--verify-timeout", type=float, default=5.0, help="vsched verify --timeout")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--run", action="store_true", help="also `vsched run` the mutants that verify legal")
    ap.add_argument("--keep", metavar="DIR", help="write the failing mutants (timeouts, signals, "
                                                   "internal errors, tracebacks) to DIR")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker()
        return 0
    sys.path.insert(0, str(ROOT / "tests"))
    from support.dsl_mutate import corpus, mutants

    work = list(mutants(corpus(ROOT), args.mutants, args.seed))
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="vsched-fuzz-"))
    os.environ.setdefault("VSCHED_CACHE_DIR", str(tmp / "cache"))
    pool = [Worker() for _ in range(args.jobs)]
    free = list(pool)
    lock = threading.Lock()
    results = []

    def one(item):
        n, (label, text) = item
        path = tmp / f"m{n:05d}.vs"
        path.write_text(text)
        with lock:
            w = free.pop()
        start = time.perf_counter()
        try:
            res = w.ask(str(path), args.verify_timeout, args.run, args.timeout)
        finally:
            with lock:
                free.append(w)
        res["label"], res["seconds"], res["text"] = label, time.perf_counter() - start, text
        path.unlink()
        return res

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for k, res in enumerate(ex.map(one, enumerate(work)), 1):
            results.append(res)
            if k % 100 == 0:
                print(f"  {k}/{len(work)} mutants, {time.perf_counter() - start:.0f}s", file=sys.stderr)
    for w in pool:
        w.close()

    codes = {cmd: collections.Counter() for cmd in ("show", "verify", "run")}
    bad = []
    for r in results:
        problems = []
        if r.get("timeout"):
            problems.append("timeout")
        if "signal" in r:
            problems.append(f"worker died ({r['signal']})")
        for cmd in ("show", "verify", "run"):
            if cmd in r:
                rc, _, tb, last = r[cmd]
                codes[cmd][rc] += 1
                if rc not in OK_CODES:
                    problems.append(f"{cmd} exit {rc}: {last}")
                if tb:
                    problems.append(f"{cmd} traceback: {last}")
        if problems:
            bad.append((r, problems))
    n_timeout = sum(1 for r in results if r.get("timeout"))
    n_signal = sum(1 for r in results if "signal" in r)
    n_internal = sum(1 for r in results for c in ("show", "verify", "run") if c in r and r[c][0] == 4)
    n_tb = sum(1 for r in results for c in ("show", "verify", "run") if c in r and r[c][2])
    print(f"{len(results)} mutants (seed {args.seed}) in {time.perf_counter() - start:.0f}s, "
          f"limit {args.timeout:g}s per mutant, verify --timeout {args.verify_timeout:g}")
    print(f"{'command':8} " + " ".join(f"{'exit ' + str(c):>8}" for c in range(5)) + f" {'other':>8}")
    for cmd, counter in codes.items():
        if counter:
            other = sum(v for c, v in counter.items() if c not in range(5))
            print(f"{cmd:8} " + " ".join(f"{counter.get(c, 0):8d}" for c in range(5)) + f" {other:8d}")
    print(f"timeouts {n_timeout}, signals {n_signal}, internal errors {n_internal}, tracebacks {n_tb}")
    print("slowest mutants:")
    for r in sorted(results, key=lambda r: -r["seconds"])[:10]:
        print(f"  {r['seconds']:7.2f}s  {r['label'][:90]}")
    disagree = [r for r in results if "run" in r and r["run"][0] == 1]
    if disagree:
        print(f"verified legal but `run` exit 1 ({len(disagree)}; a vacuous comparison, a kernel that "
              "fails, or a soundness bug to look at):")
        for r in disagree[:20]:
            print(f"  {r['label'][:80]}: {r['run'][3][:200]}")
        if args.keep:
            keep = pathlib.Path(args.keep)
            keep.mkdir(parents=True, exist_ok=True)
            for r in disagree:
                (keep / ("legal-run1-" + r["label"].split(":")[0] + ".vs")).write_text(r["text"])
    if bad:
        print("failures:")
        for r, problems in bad[:30]:
            print(f"  {r['label'][:80]}: {'; '.join(problems)[:300]}")
        if args.keep:
            keep = pathlib.Path(args.keep)
            keep.mkdir(parents=True, exist_ok=True)
            for r, _ in bad:
                (keep / (r["label"].split(":")[0] + ".vs")).write_text(r["text"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
