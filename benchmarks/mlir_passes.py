"""A campaign of `vsched check-pass` over MLIR's loop passes: every pass (with a few option
settings) on every program of tests/fixtures/affine, each result proved, refuted or unknown
for all sizes; prints one line per pair and a table per pass.

    python benchmarks/mlir_passes.py [--minutes 10] [--timeout 10] [--only PASS,...] [--json OUT]

A pass the tool rejects on an input, or an output the importer cannot read, is `declined`.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PASSES = [
    "affine-loop-tile{tile-size=4}", "affine-loop-tile{tile-size=3 separate=true}",
    "affine-loop-unroll{unroll-factor=2}", "affine-loop-unroll{unroll-factor=3 cleanup-unroll=true}",
    "affine-loop-unroll{unroll-factor=-1}", "affine-loop-unroll-jam{unroll-jam-factor=2}",
    "affine-loop-fusion", "affine-loop-fusion{mode=producer}", "affine-loop-fusion{mode=sibling}",
    "affine-loop-fusion{maximal=true}", "affine-scalrep", "affine-loop-invariant-code-motion",
    "affine-loop-normalize", "affine-loop-coalescing", "affine-parallelize", "affine-data-copy-generate",
    "scf-parallel-loop-tiling{parallel-loop-tile-sizes=2,3}", "scf-parallel-loop-fusion",
    "loop-invariant-code-motion", "canonicalize", "convert-linalg-to-affine-loops",
    "convert-linalg-to-affine-loops,affine-loop-tile{tile-size=2}",
    "affine-loop-tile{tile-size=4},affine-loop-unroll{unroll-factor=2},canonicalize",
]


def main() -> int:
    from verified_sched.core.errors import VschedError
    from verified_sched.mlir.check_pass import check_pair, run_pipeline

    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--only")
    ap.add_argument("--json")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = sorted(glob.glob(os.path.join(root, "tests/fixtures/affine/*.mlir")))
    files = [f for f in files if "/planted" not in f]
    passes = args.only.split(";") if args.only else PASSES
    deadline = time.time() + 60 * args.minutes
    rows = []
    pairs = [(f, p) for f in files for p in passes]
    random.Random(0).shuffle(pairs)  # a budget cut leaves every pass and program sampled
    for f, p in pairs:
        if time.time() > deadline:
            break
        if True:
            before = open(f).read()
            t0 = time.time()
            try:
                after = run_pipeline(before, p).stdout
            except VschedError as e:
                rows.append((p, os.path.basename(f), "declined", f"tool: {str(e)[:120]}", 0.0))
                continue
            changed = after.strip() != before.strip()
            try:
                r = check_pair(before, after, f, "after", timeout=args.timeout)
                verdict, note = r.verdict, r.note
                if verdict == "refuted":
                    note = " | ".join(o.message[:200] for rep in r.reports for o in rep.obligations
                                      if o.status == "refuted")
            except VschedError as e:
                verdict, note = "declined", str(e)[:160]
            rows.append((p, os.path.basename(f), verdict, note if verdict != "proved" else ("" if changed else "unchanged"),
                         time.time() - t0))
            print(f"{p:60s} {os.path.basename(f):28s} {verdict:9s} {time.time() - t0:5.1f}s {rows[-1][3]}", flush=True)
    print()
    print(f"{'pass':60s} tried proved refuted unknown declined")
    for p in passes:
        rs = [r for r in rows if r[0] == p]
        c = {k: sum(1 for r in rs if r[2] == k) for k in ("proved", "refuted", "unknown", "declined")}
        print(f"{p:60s} {len(rs):5d} {c['proved']:6d} {c['refuted']:7d} {c['unknown']:7d} {c['declined']:8d}")
    total = {k: sum(1 for r in rows if r[2] == k) for k in ("proved", "refuted", "unknown", "declined")}
    print(f"total: {len(rows)} pairs, {total}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump([dict(zip(("pass", "program", "verdict", "note", "seconds"), r)) for r in rows], fh, indent=1)
    return 1 if total["refuted"] else 0


if __name__ == "__main__":
    sys.exit(main())
