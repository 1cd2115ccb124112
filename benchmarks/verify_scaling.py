"""Verification time against problem size, per corpus case (a measurement, not a test).

For every case file: `verify_program` with symbolic sizes; the same with every size parameter
pinned by an equality constraint to 16 and to 10^6 (the proofs must not grow with the sizes);
and brute-force enumeration (tests/support/brute.py: the generic obligations of every
(before, after) pair decided by enumerating instances) at 16 and at 64. Brute force is
skipped above a budget of instances and reported as ">budget".

usage: python benchmarks/verify_scaling.py [CASES_DIR] [--repeat R] [--budget INSTANCES]
       python benchmarks/verify_scaling.py --families [--max-n 32] [--repeat R]

`--families` (issue 25): the two scaling families instead of the corpus, at n = 2, 4, ..., 32:
`nested_splits` (n splits that each deepen the nest: `split i<k> by 2` of an extent 2^n * T,
so no guard) and `one_cell` (n statements that update the same cell `s[0]`, then a split of a
loop beside them). For each n: the verdict (cold, then warm: the same program again in this
process: the best of R rounds, each round verifying every n once, R = min(--repeat, 5)) and
the CPU seconds; then the least-squares slope of log(warm seconds) over log(n) (target <= 1.2)
and whether any verdict was lost (not `legal`).
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
from verified_sched.core import ir  # noqa: E402
from verified_sched.dsl import parse_file  # noqa: E402
from verified_sched.core.errors import VschedError  # noqa: E402
from verified_sched.ops import apply_op  # noqa: E402
from verified_sched.verify.driver import verify_program  # noqa: E402
from verified_sched.verify.kernel_report import file_report_json


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


def nested_splits(n: int) -> str:
    ops = "\n".join(f"  split i{k} by 2 -> i{k + 1}, j{k + 1}" for k in range(n))
    return (f"params T where T >= 1\ntensor x[{2 ** n} * T] f32\ntensor y[{2 ** n} * T] f32\n"
            f"kernel k {{\n  for i0 in 0 .. {2 ** n} * T {{\n    y[i0] = x[i0]\n  }}\n}}\n"
            f"schedule k {{\n{ops}\n}}\n")


def one_cell(n: int) -> str:
    stmts = "\n".join(f"  s[0] += x[{k}]" for k in range(n))
    return (f"params N where N >= {n}\ntensor x[N] f32\ntensor y[N] f32\ntensor s[1] f32\n"
            f"kernel k {{\n{stmts}\n  for i in 0 .. N {{\n    y[i] = x[i]\n  }}\n}}\n"
            "schedule k {\n  split i by 4 -> io, ii\n}\n")


def families(max_n: int, repeat: int) -> int:
    import math

    from verified_sched.dsl import parse_text

    lost = 0
    for name, make in (("nested_splits", nested_splits), ("one_cell", one_cell)):
        sizes, ns, warm = [], [], []
        n = 2
        while n <= max_n:
            sizes.append(n)
            n *= 2
        programs = [parse_text(make(n)) for n in sizes]
        cold = []
        for program in programs:
            t = time.process_time()
            cold.append((file_report_json(verify_program(program), "")["verdict"], time.process_time() - t))
        # warm: `repeat` rounds, each verifying every size once (a busy machine slows all sizes
        # alike, not the one that happened to run during a burst); the best round per size
        best, warm_v = [float("inf")] * len(sizes), [None] * len(sizes)
        for _ in range(repeat):
            for k, program in enumerate(programs):
                t = time.process_time()
                warm_v[k] = file_report_json(verify_program(program), "")["verdict"]
                best[k] = min(best[k], time.process_time() - t)
        print(f"{name}: {'n':>4} {'cold':>9} {'verdict':8} {'warm':>9} {'verdict':8}")
        for n, (cold_v, cold_s), b, wv in zip(sizes, cold, best, warm_v):
            lost += (cold_v != "legal") + (wv != "legal")
            print(f"{'':{len(name) + 1}} {n:>4} {cold_s:8.3f}s {cold_v:8} {b:8.3f}s {wv:8}", flush=True)
            ns.append(math.log(n))
            warm.append(math.log(max(b, 1e-6)))
        mx, my = sum(ns) / len(ns), sum(warm) / len(warm)
        slope = sum((x - mx) * (y - my) for x, y in zip(ns, warm)) / sum((x - mx) ** 2 for x in ns)
        print(f"{'':{len(name) + 1}} log-log slope of warm seconds over n: {slope:.2f}   target <= 1.2: "
              f"{'ok' if slope <= 1.2 else 'MISSED'}")
    print(f"verdicts lost (not legal): {lost}")
    return 1 if lost else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="?", default=str(ROOT / "tests" / "cases"))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--budget", type=int, default=100_000, help="max instances per kernel for brute force")
    ap.add_argument("--no-brute", action="store_true")
    ap.add_argument("--families", action="store_true", help="the two scaling families, not the corpus")
    ap.add_argument("--max-n", type=int, default=32)
    a = ap.parse_args()
    if a.families:
        return families(a.max_n, min(a.repeat, 5))
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
    sys.exit(main())
