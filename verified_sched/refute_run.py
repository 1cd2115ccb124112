"""Concrete refutation of unknown obligations: when isl and z3 prove nothing wrong with a
schedule but cannot prove it right either (a verdict of `unknown`), run the kernel before and
after each op whose obligations are unknown, at the file's small example sizes, on the
oracle's seeded random inputs (poisoned outputs, guard zones). A difference in an observable
cell is a fact, not a guess: the op's first unknown obligation becomes `refuted` (engine
`run`) with the sizes and the first differing cell as its counterexample. It is kept only
when the whole schedule, run against the unscheduled kernel exactly as `vsched run FILE
--size S` does, differs at the same sizes: the counterexample replays by construction.

Only bitwise comparisons are used, so every op up to the one refuted must keep rounding
exactly: under `reproducible` that is what legal means; otherwise each op must have a proved
`reassociation` obligation that reorders nothing, or declare `EXACT_ROUNDING = True` in its
module (an op that only moves or redirects accesses, like `stage`). A difference within a
licensed reassociation (or Winograd's different rounding) is not a bug.
Nothing here ever proves anything; an equal run leaves the obligation unknown.
"""
from __future__ import annotations

import dataclasses

from . import ir
from .errors import VschedError

MAX_SIZE_SETS = 3
RUN_MAX_INSTANCES = 2_000_000  # statement instances per kernel run inside verify
RUN_MAX_BYTES = 64 << 20  # tensor storage per run inside verify


def _needs_emulator(program: ir.Program, kernel: str) -> bool:
    """Barriers inside hardware loops, or per-block/per-thread values across a serial loop:
    the serial C backend cannot mean them (run_plan.serial_c_declines, as `run`)."""
    from .run_plan import serial_c_declines
    return serial_c_declines(program, kernel)


def _runner(program: ir.Program, kernel: str):
    if _needs_emulator(program, kernel):
        from codegen.emulate import load_emulated
        return load_emulated(program, seed=0, detect_races=False).run
    from codegen.checked import load_checked  # every access bounds-checked: a finding, never a crash
    return load_checked(program).run


def _compare(ref_prog, cand_prog, kernel, sizes, cand_kernel=None, rtol=None):
    """(differs, text, first cell or None); differs is None when nothing can be concluded."""
    from codegen.emulate import EmulationError
    from codegen.oracle import OutOfStorage, compare_kernels
    from .interp import KernelError
    from .resources import check_run, tensor_bytes
    cand_kernel = cand_kernel or kernel
    try:  # a run inside `verify` must stay cheap: small storage, few instances, int64-safe
        check_run([(ref_prog, kernel), (cand_prog, cand_kernel)], sizes, max_instances=RUN_MAX_INSTANCES)
        if tensor_bytes([ref_prog, cand_prog], sizes)[0] > RUN_MAX_BYTES:
            return None, "", None
    except VschedError:
        return None, "", None
    try:
        rep = compare_kernels(ref_prog, kernel, cand_kernel, sizes, 0, "random", _runner(ref_prog, kernel),
                              _runner(cand_prog, cand_kernel), rtol=rtol, atol=rtol or 0.0,
                              program_cand=cand_prog)
    except (OutOfStorage, EmulationError, KernelError, VschedError, MemoryError):
        return None, "", None
    if rep.equal:  # (also when vacuous: equal runs never refute, and a refutation they fail
        return False, "", None  # to replay is only ever downgraded to unknown, never to legal)
    d = rep.first_diff
    cell = {"tensor": d.tensor, "index": [int(x) for x in d.index]} if d is not None else None
    return True, rep.text(), cell


def _prefixes(program: ir.Program, kernel: str, upto: int) -> list:
    """The program after 0, 1, ..., upto ops of the kernel's schedule."""
    from .ops import apply_op
    sched = program.schedule_for(kernel)
    out = [program]
    for op in sched.ops[:upto]:
        out.append(apply_op(out[-1], kernel, op))
    return out


def refute_unknowns(program: ir.Program, kernel: str, obligations: list, profile: str) -> list:
    """`obligations` of one kernel (as verify_kernel made them), with the first unknown
    obligation of an op refuted when a run shows the op changes the result."""
    if profile == "approximate" or any(o.status == "refuted" for o in obligations):
        return obligations
    unknown_ops = sorted({o.op_index for o in obligations if o.status == "unknown" and o.op_index > 0})
    if not unknown_ops:
        return obligations
    from .sizes import example_sizes
    try:
        size_sets = example_sizes(program, MAX_SIZE_SETS)
        progs = _prefixes(program, kernel, max(unknown_ops))
        full = _prefixes(program, kernel, len(program.schedule_for(kernel).ops))[-1]
    except VschedError:
        return obligations
    for k in unknown_ops:
        if profile != "reproducible" and not all(_keeps_rounding(program, kernel, obligations, j)
                                                 for j in range(1, k + 1)):
            return obligations
        for sizes in size_sets:
            differs, text, cell = _compare(progs[k - 1], progs[k], kernel, sizes)
            if not differs:
                continue
            replays, _, _ = _compare(program, full, kernel, sizes)
            if not replays:
                continue
            return _refute(obligations, k, sizes, text, cell)
    return obligations


def _keeps_rounding(program: ir.Program, kernel: str, obligations: list, k: int) -> bool:
    """Op k changes no value's rounding: its reassociation obligations are all proved without
    reordering anything, or its module says it only moves accesses."""
    from .ops import op_module
    rs = [o for o in obligations if o.op_index == k and o.kind == "reassociation"]
    if rs:
        return all(o.status == "proved" and not o.reassociates for o in rs)
    op = program.schedule_for(kernel).ops[k - 1]
    try:
        return bool(getattr(op_module(op), "EXACT_ROUNDING", False))
    except VschedError:
        return False


# which unknown obligation a value difference refutes first (an out-of-storage access or a
# resource limit is not what a differing value shows)
_LAST = ("in_bounds", "hardware_limits", "precondition")


def _refute(obligations: list, k: int, sizes: dict, text: str, cell) -> list:
    cands = [o for o in obligations if o.op_index == k and o.status == "unknown"]
    target = min(cands, key=lambda o: o.kind in _LAST)
    cex = {"params": dict(sizes), "seed": 0}
    if cell is not None:
        cex["cells"] = [cell]
    first = text.splitlines()[0] if text else ""
    new = dataclasses.replace(target, status="refuted", engine="run",
                              message=f"{target.message}; a run shows the op changes the result: {first}",
                              counterexample=cex)
    return [new if o is target else o for o in obligations]


def confirm_claim(program: ir.Program, claim, obligations: list, profile: str) -> list:
    """A claim refuted by comparing value trees keeps its refutation only when running the two
    kernels shows it: at the counterexample's sizes, else at the file's example sizes (the
    counterexample then names the sizes that showed it). Trees that differ while every run
    agrees (`x * 1.0` against `x`) are `unknown`, never refuted without a replay. Bitwise
    unless the claim's comparison is licensed to reassociate (then within the precision's
    tolerance, as `vsched run` compares it)."""
    out = []
    for o in obligations:
        if o.status != "refuted" or o.engine == "run":
            out.append(o)
            continue
        out.append(_confirm_one(program, claim, o, profile))
    return out


def _sizes_to_try(program: ir.Program, o, examples: list) -> list:
    """The obligation's counterexample sizes (when admitted), then the example sizes."""
    from .sizes import check_sizes
    out = []
    params = (o.counterexample or {}).get("params")
    if params and set(params) == set(program.params):
        try:
            check_sizes(program, params)
            out.append(dict(params))
        except VschedError:
            pass
    return out + [s for s in examples if s not in out]


def _confirm_one(program, claim, o, profile):
    from codegen.oracle import tolerance
    from .sizes import example_sizes
    rtol = tolerance(program, [claim.a, claim.b]) if (o.reassociates or profile == "approximate") else None
    params = (o.counterexample or {}).get("params")
    try:
        candidates = _sizes_to_try(program, o, example_sizes(program, MAX_SIZE_SETS))
    except VschedError:
        return o
    tried = []
    inconclusive = False
    for sizes in candidates:
        differs, text, cell = _compare(program, program, claim.a, sizes, claim.b, rtol)
        if differs is None:
            inconclusive = True
            continue
        tried.append(sizes)
        if differs:
            if sizes == params:
                return o
            cex = dict(o.counterexample or {})
            cex["params"] = dict(sizes)
            if cell is not None:
                cex["cells"] = [cell]
            first = text.splitlines()[0] if text else ""
            return dataclasses.replace(o, counterexample=cex,
                                       message=f"{o.message}; shown by a run at other sizes: {first}")
    if inconclusive or not tried:
        return o
    shown = "; ".join(",".join(f"{k}={v}" for k, v in t.items()) for t in tried)
    return dataclasses.replace(
        o, status="unknown", counterexample=None,
        message=f"{o.message}; but the two kernels run equal at {shown}: not refuted without a run "
                f"that shows it")


CONFIRMED_KINDS = ("dependence", "coverage")


def _parallel(program: ir.Program, kernel: str) -> bool:
    """Any loop whose iterations may run in another order than the backends run them here
    (vectorized, block, thread): a run in one order cannot show what that order hides."""
    return any(isinstance(n, ir.For) and n.axis not in ("serial", "unrolled")
               for n in ir.walk(program.kernel(kernel).body))


def confirm_refutations(program: ir.Program, kernel: str, obligations: list, profile: str) -> list:
    """A `dependence` or `coverage` refutation of an op of a kernel whose loops are all serial
    before and after the op (one order of execution, the one the backends run) is kept only when running the kernel before and after the op shows
    a difference (for a `coverage` one of a kernel with parallel loops: the compiled run or
    the interpreter in one of several orders, `_compare_orders`): at the counterexample's sizes, else at the file's example sizes (the
    counterexample then names them). When every run agrees, or the run at the refutation's
    own sizes agrees and no other shows a difference (a changed value that the inputs make
    numerically equal), the obligation is `unknown`: never refuted without a run that shows
    it, never proved by one. Runs that fail (out of storage, sizes too costly) with no
    conclusive run at the refutation's own sizes leave the refutation as it is."""
    ks = sorted({o.op_index for o in obligations if o.status == "refuted" and o.engine != "run"
                 and o.kind in CONFIRMED_KINDS and o.op_index > 0})
    if not ks:
        return obligations
    from codegen.oracle import tolerance
    from .sizes import example_sizes
    try:
        progs = _prefixes(program, kernel, max(ks))
        examples = example_sizes(program, MAX_SIZE_SETS)
    except VschedError:
        return obligations
    out = list(obligations)
    for k in ks:
        parallel = _parallel(progs[k - 1], kernel) or _parallel(progs[k], kernel)
        exact = profile == "reproducible" or _keeps_rounding(program, kernel, obligations, k)
        rtol = None if exact else tolerance(program, [kernel])
        for n, o in enumerate(out):
            if o.op_index != k or o.status != "refuted" or o.engine == "run" or o.kind not in CONFIRMED_KINDS:
                continue
            if parallel and o.kind != "coverage":
                continue
            compare = _compare_orders if parallel else _compare
            sizes_list = _sizes_to_try(program, o, examples)
            verdicts = [compare(progs[k - 1], progs[k], kernel, s, rtol=rtol) for s in sizes_list]
            own = (o.counterexample or {}).get("params")
            at_own = [d for (d, _, _), s in zip(verdicts, sizes_list) if s == own]
            if any(at_own):
                continue
            shown_at = [(s, text, cell) for (d, text, cell), s in zip(verdicts, sizes_list) if d]
            if shown_at and parallel:
                continue  # a run in some order shows it: the refutation stays as it is
            if shown_at:  # the refutation's own sizes run equal: name sizes that replay it
                out[n] = _shown_elsewhere(o, *shown_at[0])
                continue
            if any(d is None for d, _, _ in verdicts) and at_own != [False]:
                continue  # no conclusive run at the refutation's own sizes: it stays
            shown = "; ".join(",".join(f"{a}={b}" for a, b in s.items()) for s in sizes_list)
            how = f" (compiled, and interpreted in {INTERP_SEEDS} orders of its parallel loops)" if parallel else ""
            out[n] = dataclasses.replace(
                o, status="unknown", counterexample=None,
                message=f"{o.message}; but the kernel runs equal before and after the op at {shown}{how}: "
                        f"not refuted without a run that shows it")
    return out


def _shown_elsewhere(o, sizes: dict, text: str, cell):
    """The refutation with the sizes of a run that shows it as its counterexample (its own
    instances belong to other sizes, where the kernel runs equal, so they are dropped)."""
    cex = {"params": dict(sizes), "seed": 0}
    if cell is not None:
        cex["cells"] = [cell]
    first = text.splitlines()[0] if text else ""
    return dataclasses.replace(o, counterexample=cex,
                               message=f"{o.message}; the kernel runs equal at those sizes, but a run at "
                                       f"other sizes shows the op changes the result: {first}")


INTERP_SEEDS = 4  # seeded random orders of the parallel iterations (as the fuzzer replays)
INTERP_MAX_INSTANCES = 50_000


def _compare_orders(before, after, kernel, sizes, rtol=None):
    """`_compare` for kernels with parallel loops: the compiled run (one order), then the
    interpreter in INTERP_SEEDS seeded random orders of vectorized, block and thread
    iterations; a coverage refutation (an extra, missing or different instance) that none of
    them shows is not one `vsched run` replays."""
    differs, text, cell = _compare(before, after, kernel, sizes, rtol=rtol)
    if differs is not False:
        return differs, text, cell
    from codegen.emulate import EmulationError
    from codegen.oracle import OutOfStorage, compare_kernels
    from .interp import KernelError, run_kernel
    from .resources import check_run
    try:
        check_run([(before, kernel), (after, kernel)], sizes, max_instances=INTERP_MAX_INSTANCES)
    except VschedError:
        return None, "", None
    for seed in range(INTERP_SEEDS):
        try:
            rep = compare_kernels(before, kernel, kernel, sizes, seed, "random",
                                  lambda k, s, a, p=before, sd=seed: run_kernel(p, k, s, a, seed=sd),
                                  lambda k, s, a, p=after, sd=seed: run_kernel(p, k, s, a, seed=sd),
                                  rtol=rtol, atol=rtol or 0.0, program_cand=after)
        except (OutOfStorage, EmulationError, KernelError, VschedError, MemoryError):
            return None, "", None
        if not rep.equal:
            d = rep.first_diff
            return True, rep.text(), ({"tensor": d.tensor, "index": [int(x) for x in d.index]} if d else None)
    return False, "", None
