"""Mutation score: how many planted bugs in the ops' and rewrites' apply code the verifier
catches.

Each mutant of benchmarks/mutants.py is one textual edit in a copy of the package (the
original tree is never touched). The corpus (tests/cases/*.vs and examples/*.vs) is verified with the mutated package in a fresh process; a mutant
is *killed* when some case whose verdict was legal without the mutant becomes illegal (a
refuted obligation). With --run, a legal case whose `vsched run` (scheduled vs unscheduled
at three small size sets) stops being equal also kills it; the score printed last is the one
of `verify` alone. A mutant whose edit no longer matches the source is reported as stale
(and counts as a survivor, so a stale list cannot inflate the score).

    python benchmarks/mutation_score.py [-j 2] [--run] [--only NAME,...] [--timeout 10]

Prints one row per mutant, every survivor with its description, then the last line
`killed K/N (P%)`. Exit 0 when P >= 95, else 1.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from mutants import MUTANTS, Mutant  # noqa: E402

PACKAGES = ("verified_sched", "polyhedral", "smt", "codegen")
TARGET = 95.0

# Runs in the child process, with the (mutated) copy first on sys.path: prints one JSON object
# {file: {"verdict": ..., "kinds": [...], "run": rc or None}}.
CHILD = r"""
import json, sys, io, contextlib
from pathlib import Path
files, timeout, do_run = json.loads(sys.argv[1]), float(sys.argv[2]), sys.argv[3] == "1"
from verified_sched.dsl import parse_file
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json
out = {}
for f in files:
    try:
        program = parse_file(f)
        merged = file_report_json(verify_program(program, timeout=timeout, filename=f), f)
        kinds = sorted({o["kind"] for o in merged["obligations"] if o["status"] == "refuted"})
        res = {"verdict": merged["verdict"], "kinds": kinds, "run": None}
    except Exception as e:  # a mutant may break apply itself: that is a finding, reported
        res = {"verdict": "crash", "kinds": [type(e).__name__ + ": " + str(e)[:120]], "run": None}
    if do_run and res["verdict"] == "legal":
        from verified_sched.cli import main
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
                res["run"] = main(["run", f])
        except Exception as e:
            res["run"] = "crash"
    out[f] = res
print("@@RESULT@@" + json.dumps(out))
"""


def corpus() -> list:
    return [str(f) for f in sorted((ROOT / "tests" / "cases").glob("*.vs")) + sorted((ROOT / "examples").glob("*.vs"))]


def mutate(tree: Path, m: Mutant) -> str | None:
    """Apply `m` inside `tree`; an error text when the edit does not match."""
    path = tree / m.path
    text = path.read_text()
    at, start = -1, 0
    for _ in range(m.nth + 1):
        at = text.find(m.old, start)
        if at < 0:
            return f"stale: {m.path} has no occurrence #{m.nth} of the edited text"
        start = at + 1
    path.write_text(text[:at] + m.new + text[at + len(m.old):])
    return None


def evaluate(files, timeout: float, do_run: bool, m: Mutant | None, scratch: Path) -> dict:
    """Verify (and run) `files` with the package, mutated by `m` when given."""
    tree = Path(tempfile.mkdtemp(dir=scratch))
    try:
        for pkg in PACKAGES:
            shutil.copytree(ROOT / pkg, tree / pkg, ignore=shutil.ignore_patterns("__pycache__"))
        if m is not None:
            err = mutate(tree, m)
            if err:
                return {"error": err}
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
        env.setdefault("VSCHED_CACHE_DIR", str(scratch / "cache"))
        proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(files), str(timeout),
                               "1" if do_run else "0"], cwd=tree, env=env, capture_output=True,
                              text=True, timeout=max(600.0, 20 * timeout * len(files)))
        for line in proc.stdout.splitlines():
            if line.startswith("@@RESULT@@"):
                return {"cases": json.loads(line[len("@@RESULT@@"):])}
        return {"error": f"child failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}"}
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def judge(base: dict, got: dict) -> tuple:
    """(killed by verify, killed by run, the cases that killed it)."""
    by_verify, by_run, why = False, False, []
    for f, b in base.items():
        if b["verdict"] != "legal":
            continue
        g = got.get(f)
        if g is None:
            continue
        name = Path(f).stem
        if g["verdict"] in ("illegal", "crash"):
            by_verify = True
            why.append(f"{name}: {g['verdict']} {','.join(g['kinds'])}")
        elif g["verdict"] != "legal":
            why.append(f"{name}: {g['verdict']}")
        if g["run"] not in (None, 0):
            by_run = True
            why.append(f"{name}: run exit {g['run']}")
    return by_verify, by_run, why


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--run", action="store_true", help="also run legal cases (vsched run)")
    ap.add_argument("--only", help="comma-separated mutant names")
    ap.add_argument("--timeout", type=float, default=10.0, help="verify timeout per kernel")
    args = ap.parse_args(argv)
    mutants = [m for m in MUTANTS if not args.only or m.name in args.only.split(",")]
    files = corpus()
    scratch = Path(tempfile.mkdtemp(prefix="vsched-mutation-"))
    t0 = time.perf_counter()
    try:
        base = evaluate(files, args.timeout, args.run, None, scratch)
        if "error" in base:
            print(f"baseline failed: {base['error']}")
            return 2
        base = base["cases"]
        legal = sum(1 for b in base.values() if b["verdict"] == "legal")
        print(f"corpus: {len(files)} files, {legal} legal without mutants; {len(mutants)} mutants")
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            results = list(pool.map(lambda m: evaluate(files, args.timeout, args.run, m, scratch), mutants))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    killed = killed_any = 0
    survivors = []
    print(f"{'mutant':36} {'verify':8} {'run':6} evidence")
    for m, r in zip(mutants, results):
        if "error" in r:
            print(f"{m.name:36} {'ERROR':8} {'-':6} {r['error']}")
            survivors.append((m, r["error"]))
            continue
        kv, kr, why = judge(base, r["cases"])
        killed += kv
        killed_any += kv or kr
        run_col = ("killed" if kr else "-") if args.run else "n/a"
        print(f"{m.name:36} {'killed' if kv else 'SURVIVED':8} {run_col:6} {'; '.join(why[:3])}")
        if not kv:
            survivors.append((m, "; ".join(why) or "every legal case stays legal"))
    print()
    for m, why in survivors:
        print(f"survivor {m.name}: {m.what} ({m.path}) -- {why}")
    n = len(mutants)
    if args.run:
        print(f"verify or run: killed {killed_any}/{n}")
    pct = 100.0 * killed / n if n else 0.0
    print(f"seconds: {time.perf_counter() - t0:.1f}")
    print(f"killed {killed}/{n} ({pct:.1f}%)")
    return 0 if pct >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
