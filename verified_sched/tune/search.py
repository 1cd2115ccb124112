"""`vsched tune FILE --kernel K --size N=512,...`: a search over proved-legal schedules.

The kernel's innermost accumulation nest `rows, cols, red` (two loops indexing the target, the
innermost loop a reduction, e.g. `c[i, j] += a[i, k] * b[k, j]`) is register-tiled by
templates: `split rows by R`, `split cols by V`, optionally `split red by KB` with the k block
outside the row tiles, interchanges (adjacent swaps) to `io, jo, k, ii, ji` or
`jo, ko, io, ki, ii, ji`, optionally `privatize` of the target over the reduction loop,
`ii` unrolled or not, `ji` vectorized. Each candidate is verified first (through the proof
cache of `vsched verify`); only a `legal` verdict is emitted, compiled and timed (CPU time of
this thread, best of `repeat`), so nothing unproved ever runs. The best schedule is printed as
DSL text, which `vsched verify` proves (it was proved here, by the same verifier), with its
speed against numpy's `a @ b` when the kernel is a plain matmul.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

from ..core import ir
from ..core.errors import UsageError

ROWS = (4, 6, 8, 2)
COLS = (32, 64, 16)
KBLOCK = (256, None, 128)


@dataclass
class Candidate:
    label: str
    ops: tuple  # DSL lines of the schedule
    status: str = ""  # legal | illegal | unknown | error
    seconds: float = float("inf")


@dataclass
class TuneResult:
    kernel: str
    candidates: list = field(default_factory=list)
    ran: list = field(default_factory=list)  # labels of the candidates that were compiled and run
    best: Candidate | None = None
    numpy_seconds: float | None = None
    updates: int = 0  # executions of the accumulation at the given sizes

    def schedule_text(self) -> str:
        if self.best is None:
            return ""
        body = "".join(f"  {op}\n" for op in self.best.ops)
        return f"schedule {self.kernel} {{\n{body}}}\n"


def nest(program: ir.Program, kernel_name: str) -> tuple:
    """(rows, cols, red, stmt): the For nodes of the innermost accumulation's last three loops
    and the statement; UsageError when the kernel has no such nest."""
    from ..ops.kernel_parts import statements

    kernel = program.kernel(kernel_name)
    best = None
    for stmt, loops in statements(kernel):
        if ir.accumulation(stmt) is None or len(loops) < 3:
            continue
        rows, cols, red = loops[-3:]
        used = ir.free_vars(stmt.index)
        if (rows.var in used and cols.var in used and red.var not in used and len(red.body) == 1
                and len(cols.body) == 1 and len(rows.body) == 1):
            if best is None or len(loops) > len(best[3]):
                best = (rows, cols, red, loops, stmt)
    if best is None:
        raise UsageError(f"tune: kernel {kernel_name!r} has no nest `rows, cols, reduction` around an "
                         "accumulation (c[i, j] += ... over k) to tile")
    return best[0], best[1], best[2], best[4]


def _swaps(order: list, target: list) -> list:
    """`interchange outer, inner` lines turning `order` into `target` by adjacent swaps."""
    order, out = list(order), []
    for pos, name in enumerate(target):
        at = order.index(name)
        while at > pos:
            out.append(f"interchange {order[at - 1]}, {order[at]}")
            order[at - 1], order[at] = order[at], order[at - 1]
            at -= 1
    return out


def candidates(program: ir.Program, kernel_name: str, limit: int | None = None, target=None) -> list:
    """The template schedules, the most promising first. `target`: (vector bytes, vector
    registers) of the ISA the build targets (`codegen.c_tile.target`); then the tiles the C
    backend holds in registers whole come first, the most accumulator vectors first (the
    register tile's arithmetic per load), then the rest by size."""
    from ..ops.kernel_parts import fresh

    rows, cols, red, stmt = nest(program, kernel_name)
    kernel = program.kernel(kernel_name)
    i, j, k = rows.var, cols.var, red.var
    io, ii, jo, ji = (fresh(program, kernel, f"{v}_") for v in (i + "o", i + "i", j + "o", j + "i"))
    ko, ki = fresh(program, kernel, f"{k}o_"), fresh(program, kernel, f"{k}i_")
    acc = fresh(program, kernel, f"{stmt.tensor}_acc")
    out = []
    for priv, r, v, kb, unroll in itertools.product((True, False), ROWS, COLS, KBLOCK, (True, False)):
        ops = [f"split {i} by {r} -> {io}, {ii}", f"split {j} by {v} -> {jo}, {ji}"]
        if kb:
            ops.append(f"split {k} by {kb} -> {ko}, {ki}")
            ops += _swaps([io, ii, jo, ji, ko, ki], [jo, ko, io, ki, ii, ji])
        else:
            ops += _swaps([io, ii, jo, ji, k], [io, jo, k, ii, ji])
        inner = ki if kb else k
        if priv:
            ops.append(f"privatize {stmt.tensor} over {inner} -> {acc}")
        if unroll:
            ops.append(f"retype {ii} as unrolled")
        ops.append(f"retype {ji} as vectorized")
        label = f"R={r} V={v} KB={kb or '-'}{' privatize' if priv else ''}{' unroll' if unroll else ''}"
        out.append(Candidate(label, tuple(ops)))
    if target is not None:
        from codegen.c_tile import ELEM_BYTES

        lanes = target[0] // ELEM_BYTES.get(program.tensor(stmt.tensor).prec, 4)
        rank = {}
        for n, (priv, r, v, kb, unroll) in enumerate(
                itertools.product((True, False), ROWS, COLS, KBLOCK, (True, False))):
            vectors = r * v // lanes if v % lanes == 0 else 0
            rank[out[n].label] = (0, -vectors) if 0 < vectors <= target[1] else (1, vectors)
        out.sort(key=lambda c: rank[c.label])  # stable: the template order among equals
    return out[:limit] if limit else out


def with_schedule(program: ir.Program, kernel_name: str, ops) -> ir.Program:
    """`program` with `kernel_name`'s schedule replaced by the DSL lines `ops` (parsed, so the
    candidate is exactly the text that is printed)."""
    import dataclasses

    from ..dsl import parse_text
    from ..core.printer import print_program

    others = tuple(s for s in program.schedules if s.kernel != kernel_name)
    base = print_program(dataclasses.replace(program, schedules=others, claims=()))
    body = "".join(f"  {op}\n" for op in ops)
    return parse_text(f"{base}\nschedule {kernel_name} {{\n{body}}}\n", "<tune>")


def verdict_of(program: ir.Program, cache, timeout: float) -> str:
    """legal | illegal | unknown, through the proof cache of `vsched verify`."""
    from ..gate.cache import proof_key
    from ..report.results import pack_reports
    from ..core.file_report import FileReport
    from ..verify.gpu_limits import SHARED_LIMIT
    from ..verify.driver import verify_program

    key = proof_key(program, None, timeout, SHARED_LIMIT)
    entry = cache.get(key)
    if entry is not None:
        return entry["status"]
    start = time.perf_counter()
    reports = verify_program(program, timeout=timeout, filename="<tune>")
    status = FileReport("<tune>", reports).verdict
    cache.put(key, status, pack_reports(reports, program, "<tune>"), time.perf_counter() - start)
    return status


def _matmul_operands(stmt: ir.Assign, rows, cols, red):
    """(a, b) tensor names when the update is `c[i, j] += a[i, k] * b[k, j]`, else None."""
    acc = ir.accumulation(stmt)
    i, j, k = ir.Var(rows.var), ir.Var(cols.var), ir.Var(red.var)
    if acc is None or acc[0] != "+" or stmt.index != (i, j):
        return None
    match acc[1]:
        case ir.BinOp(op="*", a=ir.Load(tensor=a, index=(x1, y1)), b=ir.Load(tensor=b, index=(x2, y2))):
            if (x1, y1, x2, y2) == (i, k, k, j):
                return a, b
    return None


def tune(program: ir.Program, kernel_name: str, sizes: dict, *, cflags: str = "", repeat: int = 3,
         budget: float = 300.0, limit: int | None = None, timeout: float = 10.0, cands=None,
         clock=time.thread_time, wall=time.monotonic, cache=None, log=None) -> TuneResult:
    """Verify, then (only when legal) compile and time each candidate; the fastest wins.
    `clock` times a run, `wall` bounds the search by `budget` seconds (both injectable)."""
    import numpy as np

    from codegen.build import flags_for, load_c, target_macros
    from codegen.c_tile import target
    from verified_sched.core.dtypes import eval_int
    from verified_sched.oracle.compare import random_inputs
    from ..gate.cache import ProofCache
    from ..ops import apply_schedule
    from ..analysis.full_tiles import full_tiles
    from ..analysis.sizes import check_sizes
    from .blas import one_thread

    check_sizes(program, sizes)
    rows, cols, red, stmt = nest(program, kernel_name)
    flags = flags_for(program.profile, cflags)
    cache = cache if cache is not None else ProofCache()
    log = log or (lambda text: None)
    result = TuneResult(kernel_name)
    result.updates = 1
    for loop in (rows, cols, red):
        result.updates *= max(0, eval_int(loop.hi, sizes) - eval_int(loop.lo, sizes))
    bare = with_schedule(program, kernel_name, ())
    arrays = random_inputs(bare, [kernel_name], sizes, seed=0)
    start = wall()
    if cands is None:
        cands = candidates(program, kernel_name, limit, target(target_macros(flags)))
    result.candidates = list(cands)
    for n, cand in enumerate(result.candidates, 1):
        if wall() - start > budget:
            log(f"budget of {budget:g} s spent after {n - 1} candidates")
            break
        try:
            prog = with_schedule(program, kernel_name, cand.ops)
            cand.status = verdict_of(prog, cache, timeout)
        except UsageError as e:  # a template that does not apply here (a precondition)
            cand.status = "error"
            log(f"[{n}] {cand.label}: {e.message}")
            continue
        if cand.status != "legal":
            log(f"[{n}] {cand.label}: {cand.status}, not run")
            continue
        mod = load_c(apply_schedule(prog, kernel_name), [kernel_name], flags=flags, split=full_tiles)
        result.ran.append(cand.label)
        for _ in range(repeat):
            t0 = clock()
            mod.run(kernel_name, sizes, arrays)
            cand.seconds = min(cand.seconds, clock() - t0)
        log(f"[{n}] {cand.label}: {cand.seconds:.4f} s, {2e-9 * result.updates / max(cand.seconds, 1e-12):.2f} GFLOP/s")
        if result.best is None or cand.seconds < result.best.seconds:
            result.best = cand
    operands = _matmul_operands(stmt, rows, cols, red)
    if operands is not None and result.best is not None:
        a = arrays[operands[0]][:eval_int(rows.hi, sizes), :eval_int(red.hi, sizes)]
        b = arrays[operands[1]][:eval_int(red.hi, sizes), :eval_int(cols.hi, sizes)]
        a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
        best = float("inf")
        with one_thread():  # the comparison is against one core
            for _ in range(repeat):
                t0 = clock()
                a @ b
                best = min(best, clock() - t0)
        result.numpy_seconds = best
    return result


def cmd_tune(args) -> int:
    import sys

    from ..dsl import parse_file
    from ..analysis.sizes import parse_size_arg

    program = parse_file(args.file)
    if args.kernel not in {k.name for k in program.kernels}:
        raise UsageError(f"no kernel {args.kernel!r} in {args.file} (have {sorted(k.name for k in program.kernels)})")
    sizes = parse_size_arg(args.size)
    result = tune(program, args.kernel, sizes, cflags=args.cflags, repeat=args.repeat, budget=args.budget,
                  limit=args.max_candidates, timeout=args.timeout,
                  log=lambda text: print(text, file=sys.stderr, flush=True))
    if result.best is None:
        print(f"tune: no legal candidate for kernel {args.kernel}")
        return 1
    best = result.best
    gflops = 2e-9 * result.updates / max(best.seconds, 1e-12)
    print(f"# best of {len(result.ran)} legal candidates run ({len(result.candidates)} drawn) at "
          f"{','.join(f'{k}={v}' for k, v in sizes.items())}: {best.label}: {best.seconds:.4f} s, {gflops:.2f} GFLOP/s")
    if result.numpy_seconds:
        ratio = result.numpy_seconds / best.seconds
        print(f"# numpy a @ b: {result.numpy_seconds:.4f} s; this schedule reaches {100 * ratio:.0f}% of numpy")
    text = result.schedule_text()
    print(text, end="")
    if args.output:
        from pathlib import Path

        Path(args.output).write_text(f"{with_text(program, args.kernel)}\n{text}")
    return 0


def with_text(program: ir.Program, kernel_name: str) -> str:
    """The program's DSL text without `kernel_name`'s schedule (the tuned one follows it)."""
    import dataclasses

    from ..core.printer import print_program

    others = tuple(s for s in program.schedules if s.kernel != kernel_name)
    return print_program(dataclasses.replace(program, schedules=others))


def add_subparser(sub) -> None:
    from ..core.budget import DEFAULT_TIMEOUT

    p = sub.add_parser("tune", help="search proved-legal schedules of a kernel for speed at given sizes")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--kernel", required=True, metavar="K")
    p.add_argument("--size", required=True, metavar="N=512,M=512,K=512")
    p.add_argument("--cflags", default="", metavar="FLAGS", help="extra C flags, e.g. '-march=native'")
    p.add_argument("--repeat", type=int, default=3, metavar="R", help="runs per candidate (the best counts)")
    p.add_argument("--budget", type=float, default=300.0, metavar="S", help="seconds of search")
    p.add_argument("--max-candidates", type=int, default=None, metavar="N")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S", help="verify seconds per kernel")
    p.add_argument("-o", "--output", metavar="OUT", help="write the program with the best schedule")
    p.set_defaults(fn=cmd_tune)
