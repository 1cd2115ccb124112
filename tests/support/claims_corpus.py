"""`claim scheduled == original` over every legal kernel of tests/cases and examples.

For each corpus file that `vsched verify` finds legal, the program with every schedule applied
gets each original kernel back under the name K_original and `claim K == K_original`
(test_claims_value's `scheduled_claim`); the claim must be proved. Run as a script it reports
proved / unknown / refuted per file (with the reason of every one not proved):

    python tests/support/claims_corpus.py [--verify] [NAME ...]

`--verify` decides legality by running `verify` on the file (slow); by default the verdict
recorded in the file's golden report (tests/goldens, which the golden tests keep equal to
what verify prints) is used.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIRS = {"cases": ROOT / "tests" / "cases", "examples": ROOT / "examples"}
GOLDENS = ROOT / "tests" / "goldens"


def corpus() -> list:
    """[(dir key, stem)] of every corpus file, sorted."""
    return [(key, p.stem) for key, d in DIRS.items() for p in sorted(d.glob("*.vs"))]


def recorded_verdict(key: str, stem: str) -> str:
    return json.loads((GOLDENS / key / f"{stem}.json").read_text())["verdict"]


def legal_corpus() -> list:
    """[(dir key, stem)] of the files whose golden verify report is legal."""
    return [(k, s) for k, s in corpus() if recorded_verdict(k, s) == "legal"]


def scheduled_claim(path) -> str:
    """The program (a file, or a parsed ir.Program) with every schedule applied, each original
    kernel added as K_original, and `claim K == K_original` for every kernel."""
    from verified_sched.core import ir
    from verified_sched.dsl import parse_file
    from verified_sched.core.printer import print_program
    from verified_sched.ops import apply_op

    program = path if isinstance(path, ir.Program) else parse_file(path)
    out = program
    for sched in program.schedules:
        for op in sched.ops:
            out = apply_op(out, sched.kernel, op)
    extra = tuple(dataclasses.replace(k, name=k.name + "_original") for k in program.kernels)
    claims = tuple(ir.Claim(k.name, k.name + "_original") for k in program.kernels)
    out = dataclasses.replace(out, kernels=out.kernels + extra, schedules=(), claims=claims)
    return print_program(out)


def claim_reports(text: str, profile=None, timeout: float = 30.0):
    from verified_sched.dsl import parse_text
    from verified_sched.verify.driver import verify_claim

    program = parse_text(text)
    prof = profile or program.profile or "default"
    return [verify_claim(program, c, prof, timeout) for c in program.claims]


def own_reports(key: str, stem: str, timeout: float = 30.0) -> list:
    """The reports of `claim K == K_original` for every kernel of the file."""
    text = scheduled_claim(DIRS[key] / f"{stem}.vs")
    return [r for r in claim_reports(text, timeout=timeout) if r.kernel.endswith("_original")]


def verify_legal(key: str, stem: str) -> bool:
    from verified_sched.dsl import parse_file
    from verified_sched.core.file_report import verdict_of
    from verified_sched.verify.driver import verify_program

    reps = verify_program(parse_file(DIRS[key] / f"{stem}.vs"))
    return verdict_of(o.status for r in reps for o in r.obligations) == "legal"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="file stems to check (default: every legal one)")
    ap.add_argument("--verify", action="store_true", help="decide legality by running verify")
    ap.add_argument("--timeout", type=float, default=30.0)
    args = ap.parse_args(argv)
    files = corpus()
    if args.names:
        files = [(k, s) for k, s in files if s in args.names]
    counts = {}
    for key, stem in files:
        legal = verify_legal(key, stem) if args.verify else recorded_verdict(key, stem) == "legal"
        if not legal:
            continue
        t0 = time.perf_counter()
        for r in own_reports(key, stem, args.timeout):
            v = {"legal": "proved", "illegal": "refuted"}.get(r.verdict, r.verdict)
            counts[v] = counts.get(v, 0) + 1
            print(f"{v:8} {time.perf_counter() - t0:7.2f}s {key}/{stem}: {r.kernel}", flush=True)
            for o in r.obligations:
                if o.status != "proved":
                    print(f"         {o.status} {o.kind} ({o.engine}): {o.message}")
    print(", ".join(f"{v} {n}" for v, n in sorted(counts.items())))
    return 0 if set(counts) <= {"proved"} else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
