"""Winograd F(2x2, 3x3) against the direct convolution, both as emitted C.

    PYTHONPATH=. .venv/bin/python benchmarks/winograd.py [--repeat 5] [--cflags -march=native]

N=1, C=F=64, 56x56 and 57x57 outputs (channels-last, input pre-padded). The direct form: the
output-channel loop innermost and vectorized (`#pragma omp simd`), the reduction loops outside
it so each cell's summation order is unchanged, the weights read through a transposed copy.
The Winograd form is the program `winograd_source` writes, the direct convolution with the
schedule `winograd block` (the blocked form: one row of tiles at a time, its channel loops
vectorized): the benchmark verifies that very program with `verify_program` (it stops unless
the verdict is legal) and runs `apply_schedule` of it, so what is timed is what was proved.
For reference, `unblocked` is the plain `winograd` rewrite with the loop order and U layout
set by hand (not verified). Prints the multiply counts (data products and constant scalings,
counted from the nests' trip counts), CPU times of this thread (best of --repeat,
interleaved; the load average is printed), the speedups and the largest difference from the
direct form. Both forms are compiled with the same flags: the backend's, plus `--cflags` (the
approximate profile's rules: `-ffp-contract=fast` is allowed). Target (issue 25): >= 2.0x at
56x56 and at 57x57.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codegen.build import flags_for, load_c  # noqa: E402
from verified_sched.analysis.full_tiles import full_tiles  # noqa: E402
from verified_sched.oracle.compare import random_inputs  # noqa: E402
from verified_sched.core import ir  # noqa: E402
from verified_sched.dsl import parse_text  # noqa: E402
from verified_sched.ops import apply_schedule  # noqa: E402
from verified_sched.ops.winograd.apply import random_atol, rewrite_kernel  # noqa: E402
from verified_sched.fuzz.conv_programs import conv_source  # noqa: E402
from verified_sched.verify.driver import verify_program  # noqa: E402


def permute(nest: ir.For, order: list, vectorize: str | None) -> ir.For:
    """Reorder a perfect nest's loops (names in `order`, outermost first); retype one loop."""
    loops, inner = [], nest
    while isinstance(inner, ir.For) and len(inner.body) == 1 and isinstance(inner.body[0], ir.For):
        loops.append(inner)
        inner = inner.body[0]
    loops.append(inner)
    by = {lp.var: lp for lp in loops}
    body = inner.body
    for v in reversed(order):
        body = (dataclasses.replace(by[v], body=body, axis="vectorized" if v == vectorize else "serial"),)
    return body[0]


def loop_names(nest) -> list:
    out = []
    while isinstance(nest, ir.For):
        out.append(nest.var)
        nest = nest.body[0] if len(nest.body) == 1 and isinstance(nest.body[0], ir.For) else None
    return out


def f_innermost(nest: ir.For, f_prefix: str) -> ir.For:
    """The output-channel loop moved innermost (vectorized), the others kept in order."""
    names = loop_names(nest)
    f = next(n for n in names if n.split("_")[0] == f_prefix)
    return permute(nest, [n for n in names if n != f] + [f], f)


def vectorize_innermost(stmt):
    """Retype the innermost loop of a (possibly imperfect) nest as vectorized."""
    match stmt:
        case ir.For(body=body) if any(isinstance(s, ir.For) for s in body):
            return dataclasses.replace(stmt, body=tuple(vectorize_innermost(s) for s in body))
        case ir.For():
            return dataclasses.replace(stmt, axis="vectorized")
    return stmt


def transpose_weights(program: ir.Program) -> ir.Program:
    """Direct form: read the weights through a local copy bt[kh, kw, c, f] made by a first
    statement, so the vectorized f loop reads them contiguously (the Winograd form gets the
    same treatment of U below)."""
    k = program.kernel("conv")
    bt = ir.Tensor("bt", (ir.Int(3), ir.Int(3), ir.Int(64), ir.Int(64)), "f32", "local")
    v = [ir.Var(x) for x in ("tf", "tkh", "tkw", "tc")]
    copy = ir.Assign("bt", (v[1], v[2], v[3], v[0]), ir.Load("b", tuple(v)), "S9")
    for name, hi in reversed(list(zip(("tf", "tkh", "tkw", "tc"), (64, 3, 3, 64)))):
        copy = ir.For(name, ir.Int(0), ir.Int(hi), "vectorized" if name == "tf" else "serial", (copy,))
    copy = permute(copy, ["tkh", "tkw", "tc", "tf"], "tf")

    def fn(n):
        if isinstance(n, ir.Load) and n.tensor == "b":
            f, kh, kw, c = n.index
            return ir.Load("bt", (kh, kw, c, f))
        return None
    body = (k.body[0], copy) + tuple(ir.rewrite(s, fn) for s in k.body[1:])
    return program.with_tensor(bt).with_kernel(dataclasses.replace(k, body=body))


def transpose_u(program: ir.Program, u: str) -> ir.Program:
    """Winograd form: U stored as [xi, nu, ic, oc] (a relayout of a local tensor), so the
    vectorized output-channel loop of the contraction reads it contiguously."""
    t = program.tensor(u)
    k = program.kernel("conv")

    def swap(idx):
        return idx[:2] + (idx[3], idx[2])

    def fn(n):
        match n:
            case ir.Load(tensor=name, index=idx) if name == u:
                return ir.Load(u, swap(idx))
            case ir.Assign(tensor=name, index=idx) if name == u:
                return dataclasses.replace(n, index=swap(idx))
        return None
    body = tuple(ir.rewrite(s, fn) for s in k.body)
    return program.with_tensor(dataclasses.replace(t, dims=swap(t.dims))).with_kernel(
        dataclasses.replace(k, body=body))


def sizes_of(out_hw: int) -> dict:
    return {"N": 1, "OH": out_hw, "OW": out_hw, "C": 64, "F": 64}


def winograd_source(out_hw: int) -> str:
    """The benchmark's Winograd program: the direct convolution scheduled `winograd block`."""
    return conv_source(sizes=sizes_of(out_hw), schedule=False) + "\nschedule conv {\n  winograd block\n}\n"


def verified_winograd(out_hw: int):
    """(the scheduled program, verdict, seconds): `winograd_source` verified, then scheduled."""
    p = parse_text(winograd_source(out_hw))
    t = time.perf_counter()
    verdict = verify_program(p)[-1].verdict
    return apply_schedule(p, "conv"), verdict, time.perf_counter() - t


def scheduled(out_hw: int):
    """(direct form, unblocked Winograd form with a hand-set loop order and U layout)."""
    p = parse_text(conv_source(sizes=sizes_of(out_hw), schedule=False))
    k = p.kernel("conv")
    direct = p.with_kernel(dataclasses.replace(k, body=(k.body[0], f_innermost(k.body[1], "f"))))
    direct = transpose_weights(direct)
    q, minted, _ = rewrite_kernel(p, "conv")
    m = minted[0]
    q = transpose_weights(transpose_u(q, m.U))  # the strips read bt as the direct form does
    m = dataclasses.replace(m, start=m.start + 1)
    body = list(q.kernel("conv").body)
    for i, role in enumerate(m.roles):
        s = body[m.start + i]
        if role in ("contract", "row_strip", "col_strip"):
            body[m.start + i] = f_innermost(s, "f")
        elif role == "U":  # f innermost: U[xi, nu, c, f] is written contiguously
            body[m.start + i] = vectorize_innermost(permute(s, list(reversed(loop_names(s))), None))
        elif role in ("V", "inverse"):
            body[m.start + i] = vectorize_innermost(s)
    return direct, q.with_kernel(dataclasses.replace(q.kernel("conv"), body=tuple(body)))


def trips(stmt, env=None):
    """[(assign, trip count)] for every assignment (constant bounds)."""
    env = env or {}
    from verified_sched.analysis.sizes import eval_int

    match stmt:
        case ir.For(lo=lo, hi=hi, body=body):
            n = max(0, eval_int(hi, env) - eval_int(lo, env))
            return [(a, c * n) for s in body for a, c in trips(s, env)]
        case ir.Assign():
            return [(stmt, 1)]
    return []


def _scalar_nodes(e):
    """Nodes of a scalar expression, not descending into index expressions."""
    yield e
    match e:
        case ir.BinOp(a=a, b=b):
            yield from _scalar_nodes(a)
            yield from _scalar_nodes(b)
        case ir.Call(args=args):
            for x in args:
                yield from _scalar_nodes(x)


def multiplies(program) -> tuple[int, int]:
    """(products of two tensor values, multiplications by a constant) executed by the kernel."""
    data = const = 0
    for s in program.kernel("conv").body:
        for a, n in trips(s):
            for node in _scalar_nodes(a.value):
                if isinstance(node, ir.BinOp) and node.op == "*":
                    if isinstance(node.a, (ir.Float, ir.Int)) or isinstance(node.b, (ir.Float, ir.Int)):
                        const += n
                    else:
                        data += n
    return data, const


def best_times(runs, repeat: int) -> list:
    """Best CPU time of this thread for each (module, arrays) (a shared machine's preemption
    does not count against either kernel), the runs interleaved so that a change in the
    machine's load (shared cores) hits every variant alike."""
    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for i, (mod, arrays) in enumerate(runs):
            work = {k: v.copy() for k, v in arrays.items()}
            t = time.thread_time()
            mod.run("conv", {}, work)
            best[i] = min(best[i], time.thread_time() - t)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cflags", default="", help="extra C flags of both forms (build.flags_for), e.g. -march=native")
    args = ap.parse_args(argv)
    flags = flags_for("approximate", args.cflags)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"CPU time of this thread, best of {args.repeat}; load average {load:.1f} on {os.cpu_count()} cores; "
          f"flags {' '.join(flags)}")
    print("wino: `winograd block`, verified (verdict, seconds); unblocked: `winograd` in a hand-set order (not verified)")
    print(f"{'outputs':>8} {'direct mults':>13} {'wino mults':>11} {'(+const)':>9} {'ratio':>6} "
          f"{'direct ms':>10} {'wino ms':>8} {'speedup':>8} {'unblocked ms':>13} {'speedup':>8} {'max err':>9}  verify")
    status = 0
    for hw in (56, 57):
        wino, verdict, vsec = verified_winograd(hw)
        if verdict != "legal":
            print(f"{hw}x{hw}: the Winograd program is not proved ({verdict}): not timed")
            status = 1
            continue
        direct, unblocked = scheduled(hw)
        dm, _ = multiplies(direct)
        wm, wc = multiplies(wino)
        mods = [load_c(p, flags=flags, split=full_tiles) for p in (direct, wino, unblocked)]
        arrays = random_inputs(direct, ["conv"], {}, seed=0)
        td, tw, tu = best_times([(m, arrays) for m in mods], args.repeat)
        outs = []
        for m in mods:
            a = {k: v.copy() for k, v in arrays.items()}
            m.run("conv", {}, a)
            outs.append(a["d"])
        err = float(np.abs(outs[0].astype(np.float64) - outs[1]).max())
        err_u = float(np.abs(outs[0].astype(np.float64) - outs[2]).max())
        ok = "" if max(err, err_u) <= random_atol(64) else "  (MISMATCH)"
        status = status or (1 if ok else 0)
        print(f"{hw}x{hw:<5} {dm:>13,} {wm:>11,} {wc:>9,} {dm / wm:>6.3f} {td * 1e3:>10.2f} "
              f"{tw * 1e3:>8.2f} {td / tw:>7.2f}x {tu * 1e3:>13.2f} {td / tu:>7.2f}x {err:>9.2e}  "
              f"{verdict} {vsec:.2f} s{ok}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
