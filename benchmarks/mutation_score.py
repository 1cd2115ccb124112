"""Mutation score: how many planted bugs the verifier and its oracle catch, of two kinds.

**apply mutants** (benchmarks/mutants.py): one textual edit each in the ops' and rewrites' apply
code, in a copy of the package (the original tree is never touched). The corpus
(tests/cases/*.vs and examples/*.vs) is verified with the mutated package in a fresh process; a
mutant is *killed* when some case whose verdict was legal without the mutant becomes illegal (a
refuted obligation). With --run, a legal case whose `vsched run` (scheduled vs unscheduled at
three small size sets) stops being equal also kills it; the score printed is the one of
`verify` alone. A mutant whose edit no longer matches the source is reported as stale (and
counts as a survivor, so a stale list cannot inflate the score).

**semantic mutants** (benchmarks/semantic_mutants.py): bugs in the meaning of expressions (the
semantics table, the z3 value comparison, the claim comparison's term rules, the finite
profile, the barrier order, the C emitter's typing), each planted by replacing one object at
run time in a fresh process. Their kill criterion is their own (benchmarks/semantic_check.py):
a probe of benchmarks/semantic_probes/ whose verdict changes, a probe verified legal whose
runs differ (random and special-value inputs), or the oracle probe (every operation in every
precision on every pair of special values) whose interpreter, scalar interpreter and C outputs
differ bitwise or differ from the recorded meaning.

    python benchmarks/mutation_score.py [-j 2] [--kind all|apply|semantic] [--run]
                                        [--only NAME,...] [--timeout 10]

Prints one row per mutant with what killed it, every survivor with its description, then
`apply: killed K/N (P%)` and `semantic: killed K/N (P%)` (each kind run), and last the line
`killed K/N (P%)` over every mutant run. Exit 0 when each kind run scores >= 95%, else 1.
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
from semantic_mutants import SEMANTIC_MUTANTS, SemanticMutant  # noqa: E402

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


def semantic_evaluate(m: SemanticMutant | None, timeout: float) -> dict:
    """benchmarks/semantic_check.py in a fresh process, with `m` planted when given."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in os.environ.get(
        "PYTHONPATH", "").split(os.pathsep) if p]), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, str(ROOT / "benchmarks" / "semantic_check.py"), "--timeout", str(timeout)]
    if m is not None:
        cmd += ["--mutant", m.name]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        return {"error": "timed out after 900 s"}
    for line in proc.stdout.splitlines():
        if line.startswith("@@RESULT@@"):
            return {"result": json.loads(line[len("@@RESULT@@"):])}
    return {"error": f"child failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}"}


def semantic_baseline_problems(base: dict) -> list:
    """What is wrong with the unmutated tree's probe results (each must hold for a kill to mean
    anything): a verdict not the expected one, a legal probe whose runs differ, an oracle finding."""
    from semantic_check import killed_by
    return [f"{probe}: {why}" for probe, why in killed_by({}, base)]


def run_semantic(mutants, args) -> tuple:
    """(killed, survivors) of the semantic mutants; prints a row each."""
    from semantic_check import killed_by
    base = semantic_evaluate(None, args.timeout)
    if "error" in base:
        print(f"semantic baseline failed: {base['error']}")
        return None
    base = base["result"]
    problems = semantic_baseline_problems(base)
    if problems:
        print("semantic baseline failed (the unmutated tree does not pass its own probes):")
        for p in problems:
            print(f"  {p}")
        return None
    print(f"semantic probes: {len(base['probes'])} verdict probes and the oracle; {len(mutants)} mutants")
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(lambda m: semantic_evaluate(m, args.timeout), mutants))
    killed, survivors = 0, []
    print(f"{'mutant':36} {'result':8} killed by")
    for m, r in zip(mutants, results):
        if "error" in r:
            print(f"{m.name:36} {'ERROR':8} {r['error']}")
            survivors.append((m, r["error"]))
            continue
        why = killed_by(base, r["result"])
        killed += bool(why)
        print(f"{m.name:36} {'killed' if why else 'SURVIVED':8} "
              f"{'; '.join(f'{p}: {w}' for p, w in why[:3])}{' ...' if len(why) > 3 else ''}")
        if not why:
            survivors.append((m, "every probe keeps its verdict, runs and oracle bits"))
    print()
    for m, why in survivors:
        print(f"survivor {m.name}: {m.what} ({m.module}:{m.target}) -- {why}")
    return killed, survivors


def run_apply(mutants, args) -> tuple:
    """(killed by verify, survivors) of the apply mutants; prints a row each."""
    files = corpus()
    scratch = Path(tempfile.mkdtemp(prefix="vsched-mutation-"))
    try:
        base = evaluate(files, args.timeout, args.run, None, scratch)
        if "error" in base:
            print(f"baseline failed: {base['error']}")
            return None
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
    if args.run:
        print(f"verify or run: killed {killed_any}/{len(mutants)}")
    return killed, survivors


def _score(k: int, n: int) -> str:
    return f"killed {k}/{n} ({100.0 * k / n if n else 0.0:.1f}%)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--kind", choices=("all", "apply", "semantic"), default="all",
                    help="which mutants: apply (ops' apply code), semantic (meaning of expressions), all")
    ap.add_argument("--run", action="store_true", help="also run legal cases (vsched run; apply mutants)")
    ap.add_argument("--only", help="comma-separated mutant names (of either kind)")
    ap.add_argument("--timeout", type=float, default=10.0, help="verify timeout per kernel")
    args = ap.parse_args(argv)
    pick = (lambda m: not args.only or m.name in args.only.split(","))
    kinds = []
    if args.kind in ("all", "apply"):
        kinds.append(("apply", [m for m in MUTANTS if pick(m)], run_apply))
    if args.kind in ("all", "semantic"):
        kinds.append(("semantic", [m for m in SEMANTIC_MUTANTS if pick(m)], run_semantic))
    kinds = [k for k in kinds if k[1]]
    t0 = time.perf_counter()
    scores, ok = [], True
    for label, mutants, runner in kinds:
        print(f"== {label} mutants")
        res = runner(mutants, args)
        if res is None:
            return 2
        killed, _ = res
        scores.append((label, killed, len(mutants)))
        ok = ok and (100.0 * killed / len(mutants) >= TARGET)
        print()
    print(f"seconds: {time.perf_counter() - t0:.1f}")
    for label, k, n in scores:
        print(f"{label}: {_score(k, n)}")
    print(_score(sum(k for _, k, _ in scores), sum(n for _, _, n in scores)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
