"""Verification time against problem size, per corpus case (a measurement, not a test).

For every case file: `verify_program` with symbolic sizes; the same with every size parameter
pinned by an equality constraint to 16 and to 10^6 (the proofs must not grow with the sizes);
and brute-force enumeration (tests/support/brute.py: the generic obligations of every
(before, after) pair decided by enumerating instances) at 16 and at 64. Brute force is
skipped above a budget of instances and reported as ">budget".

usage: python benchmarks/verify_scaling.py [CASES_DIR] [--repeat R] [--budget INSTANCES]
"""
from __future__ import annotations

import argparse
import dataclasses
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the brute force is test code (tests/support/brute.py)

from polyhedral import checks  # noqa: E402
from polyhedral.model import KernelModel  # noqa: E402
from support import brute  # noqa: E402
from verified_sched import ir  # noqa: E402
from verified_sched.dsl import parse_file  # noqa: E402
from verified_sched.errors import VschedError  # noqa: E402
from verified_sched.ops import apply_op  # noqa: E402
from verified_sched.verify import file_report_json, verify_program  # noqa: E402


def pinned(program, value):
    eqs = tuple(ir.Cmp("==", ir.Var(p), ir.Int(value)) for p in program.params)
    return dataclasses.replace(program, constraints=program.constraints + eqs)


def timed_verify(programs, repeat):
    """Best-of-`repeat` seconds per program, the programs measured in turn each round (so a
    busy machine slows all of them alike), and the first one's verdict."""
    best, verdict = [float("inf")] * len(programs), None
    for _ in range(repeat):
        for k, program in enumerate(programs):
            t = time.perf_counter()
            v = file_report_json(verify_program(program), "")["verdict"]
            best[k] = min(best[k], time.perf_counter() - t)
            verdict = verdict or v
    return best, verdict


def instance_count(program, kernel, sizes, cap=10 ** 9) -> int:
    """Instances of the kernel at `sizes`, counted by walking loop bounds (stops past `cap`)."""
    from polyhedral.evaluate import Dynamic, ev
    total = 0
    for st in KernelModel(program, kernel).stmts:
        def rec(d, env):
            nonlocal total
            if total > cap:
                return
            if d == st.depth:
                total += 1
                return
            lp = st.loops[d]
            try:
                lo, hi = ev(lp.lo, env), ev(lp.hi, env)
            except Dynamic:
                total += cap + 1
                return
            if d == st.depth - 1:
                total += max(0, hi - lo)
                return
            for v in range(lo, hi):
                env[lp.var] = v
                rec(d + 1, env)
        rec(0, dict(sizes))
    return total


def brute_force(program, value, budget):
    """Seconds to decide every generic obligation by enumeration, or None over budget."""
    sizes = {p: value for p in program.params}
    t = time.perf_counter()
    for claim in program.claims:
        for k in (claim.a, claim.b):
            if instance_count(program, k, sizes, budget) > budget:
                return None
        brute.terms(KernelModel(program, claim.a), sizes) == brute.terms(KernelModel(program, claim.b), sizes)
    for k in program.kernels:
        if instance_count(program, k.name, sizes, budget) > budget:
            return None
        m = KernelModel(program, k.name)
        brute.in_bounds(m, sizes)
        for loop, _, _ in checks.parallel_loops(m):
            brute.independence(m, sizes, loop.key)
        sched = program.schedule_for(k.name)
        cur = program
        for op in (sched.ops if sched else ()):
            try:
                nxt = apply_op(cur, k.name, op)
            except VschedError:
                break
            if instance_count(nxt, k.name, sizes, budget) > budget:
                return None
            mb, ma = KernelModel(cur, k.name, tag="B"), KernelModel(nxt, k.name, tag="A")
            brute.in_bounds(ma, sizes)
            brute.coverage(mb, ma, sizes, checks.idempotent_fn(ma))
            brute.dependence(mb, ma, sizes)
            cur = nxt
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="?", default=str(ROOT / "tests" / "cases"))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--budget", type=int, default=100_000, help="max instances per kernel for brute force")
    ap.add_argument("--no-brute", action="store_true")
    a = ap.parse_args()
    rows = []
    head = f"{'case':34} {'verdict':8} {'symbolic':>9} {'N=16':>9} {'N=1e6':>9} {'1e6/sym':>8} {'brute16':>9} {'brute64':>9}"
    print(head)
    print("-" * len(head))
    for path in sorted(pathlib.Path(a.cases).glob("*.vs")):
        program = parse_file(path)
        (sym, s16, s6), verdict = timed_verify([program, pinned(program, 16), pinned(program, 10 ** 6)], a.repeat)
        b16 = b64 = None
        if not a.no_brute:
            b16 = brute_force(program, 16, a.budget)
            b64 = brute_force(program, 64, a.budget)
        fmt = lambda x: "-" if a.no_brute else ">budget" if x is None else f"{x:8.3f}s"
        rows.append((path.stem, sym, s6))
        print(f"{path.stem:34} {verdict:8} {sym:8.3f}s {s16:8.3f}s {s6:8.3f}s {s6 / sym:8.2f} "
              f"{fmt(b16):>9} {fmt(b64):>9}", flush=True)
    syms = [r[1] for r in rows]
    ratios = [r[2] / r[1] for r in rows]
    print("-" * len(head))
    print(f"symbolic: median {statistics.median(syms):.3f}s, max {max(syms):.3f}s "
          f"({sum(s < 1.0 for s in syms)}/{len(syms)} under 1 s); "
          f"10^6/symbolic: median {statistics.median(ratios):.2f}, max {max(ratios):.2f}")


if __name__ == "__main__":
    main()
