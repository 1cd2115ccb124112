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

from ..core import ir
from ..core.counterexample import Cell, Counterexample, Instance
from ..core.errors import VschedError

MAX_SIZE_SETS = 3
RUN_MAX_INSTANCES = 2_000_000  # statement instances per kernel run inside verify
RUN_MAX_BYTES = 64 << 20  # tensor storage per run inside verify


def _needs_emulator(program: ir.Program, kernel: str) -> bool:
    """Barriers inside hardware loops, or per-block/per-thread values across a serial loop:
    the serial C backend cannot mean them (run_plan.serial_c_declines, as `run`)."""
    from ..oracle.run_plan import serial_c_declines
    return serial_c_declines(program, kernel)


def _runner(program: ir.Program, kernel: str):
    if _needs_emulator(program, kernel):
        from codegen.emulate import load_emulated
        return load_emulated(program, seed=0, detect_races=False).run
    from codegen.checked import load_checked  # every access bounds-checked: a finding, never a crash
    from ..analysis.full_tiles import full_tiles
    return load_checked(program, split=full_tiles).run


SMALL_RUN_INSTANCES = 20_000  # statement instances up to which a serial run is interpreted, not compiled


def _runners(ref_prog: ir.Program, kernel: str, cand_prog: ir.Program, cand_kernel: str, sizes: dict) -> tuple:
    """The two runners of `_compare`. Kernels whose loops are all serial (or unrolled) and
    that run at most SMALL_RUN_INSTANCES statement instances at `sizes` run in the
    interpreter: the one order the backends run, bitwise equal to the compiled C, an access
    outside storage a KernelError as it is OutOfStorage there; no compile. Others compile."""
    from ..interp.interpreter import run_kernel
    from ..analysis.resources import check_run
    pairs = ((ref_prog, kernel), (cand_prog, cand_kernel))
    if not any(_parallel(p, k) or _needs_emulator(p, k) for p, k in pairs):
        try:
            check_run(list(pairs), sizes, max_instances=SMALL_RUN_INSTANCES)
        except VschedError:
            pass
        else:
            return tuple(lambda k, s, a, p=p: run_kernel(p, k, s, a) for p, _ in pairs)
    return _runner(ref_prog, kernel), _runner(cand_prog, cand_kernel)


# the inputs every refuting run tries: the oracle's random draw, then each special-value pattern
# (codegen/special_inputs.py: -0.0, a mixture, NaN, +inf, the largest finite, -inf, narrowing)
INPUT_SETS = (("random", 0),) + tuple(("special", s) for s in range(9))
# under the profiles that assume finite inputs: finite special values only
FINITE_INPUT_SETS = (("random", 0),) + tuple(("special-finite", s) for s in range(6))


def input_sets(profile: str) -> tuple:
    return FINITE_INPUT_SETS if profile in ("finite", "approximate") else INPUT_SETS


def _compare(ref_prog, cand_prog, kernel, sizes, cand_kernel=None, rtol=None, inputs="random", seed=0,
             values=None):
    """(differs, text, first cell or None); differs is None when nothing can be concluded."""
    from codegen.emulate import EmulationError
    from verified_sched.oracle.compare import OutOfStorage, compare_kernels
    from ..interp.interpreter import KernelError
    from ..analysis.resources import check_run, tensor_bytes
    cand_kernel = cand_kernel or kernel
    try:  # a run inside `verify` must stay cheap: small storage, few instances, int64-safe
        check_run([(ref_prog, kernel), (cand_prog, cand_kernel)], sizes, max_instances=RUN_MAX_INSTANCES)
        if tensor_bytes([ref_prog, cand_prog], sizes)[0] > RUN_MAX_BYTES:
            return None, "", None
    except VschedError:
        return None, "", None
    try:
        rep = compare_kernels(ref_prog, kernel, cand_kernel, sizes, seed, inputs,
                              *_runners(ref_prog, kernel, cand_prog, cand_kernel, sizes), rtol=rtol, atol=rtol or 0.0,
                              program_cand=cand_prog, values=values)
    except (OutOfStorage, EmulationError, KernelError, VschedError, MemoryError):
        return None, "", None
    if rep.equal and inputs.startswith("special"):
        return False, "", None  # all-special inputs may leave every output zero: still equal
    if rep.equal:  # (also when vacuous: equal runs never refute, and a refutation they fail
        return False, "", None  # to replay is only ever downgraded to unknown, never to legal)
    d = rep.first_diff
    cell = {"tensor": d.tensor, "index": [int(x) for x in d.index]} if d is not None else None
    return True, rep.text(), cell


def _prefixes(program: ir.Program, kernel: str, upto: int) -> list:
    """The program after 0, 1, ..., upto ops of the kernel's schedule."""
    from ..ops import apply_op
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
    from ..analysis.sizes import example_sizes
    try:
        size_sets = example_sizes(program, MAX_SIZE_SETS)
        progs = _prefixes(program, kernel, max(unknown_ops))
        full = _prefixes(program, kernel, len(program.schedule_for(kernel).ops))[-1]
    except VschedError:
        return obligations
    for k in unknown_ops:
        rounding = [_rounding(program, kernel, obligations, j, profile) for j in range(1, k + 1)]
        if None in rounding:
            return obligations  # an op that may change rounding unlicensed-or-not: no conclusion
        rtol = _tolerance(program, kernel) if "licensed" in rounding[k - 1:] else None
        whole = _tolerance(program, kernel) if "licensed" in rounding else None
        # special values only in bitwise comparisons: a licensed reordering may overflow
        # differently (MAX + MAX - MAX), which is no bug
        runs = input_sets(profile) if whole is None else INPUT_SETS[:1]
        for n, sizes in enumerate(size_sets):
            for inputs, seed in (runs if n == 0 else INPUT_SETS[:1]):  # special values at the smallest sizes
                differs, text, cell = _compare(progs[k - 1], progs[k], kernel, sizes, rtol=rtol, inputs=inputs,
                                               seed=seed)
                if not differs:
                    continue
                replays, _, _ = _compare(program, full, kernel, sizes, rtol=whole, inputs=inputs, seed=seed)
                if not replays:
                    continue
                return _refute(obligations, k, sizes, text, cell, inputs, seed)
    return obligations


def _tolerance(program: ir.Program, kernel: str) -> float:
    from verified_sched.oracle.compare import tolerance
    return tolerance(program, [kernel])


def _rounding(program: ir.Program, kernel: str, obligations: list, k: int, profile: str):
    """How op k may change rounding: "exact" (bitwise: it keeps rounding, or the profile is
    reproducible), "licensed" (a proved reassociation the profile allows: within tolerance),
    or None (not known: its reassociation is not proved)."""
    if profile == "reproducible" or _keeps_rounding(program, kernel, obligations, k):
        return "exact"
    rs = [o for o in obligations if o.op_index == k and o.kind == "reassociation"]
    if rs and all(o.status == "proved" for o in rs):
        return "licensed"
    return None


def _keeps_rounding(program: ir.Program, kernel: str, obligations: list, k: int) -> bool:
    """Op k changes no value's rounding: its reassociation obligations are all proved without
    reordering anything, or its spec says it only moves accesses (`exact_rounding`)."""
    from ..ops import op_spec
    rs = [o for o in obligations if o.op_index == k and o.kind == "reassociation"]
    if rs:
        return all(o.status == "proved" and not o.reassociates for o in rs)
    op = program.schedule_for(kernel).ops[k - 1]
    try:
        return op_spec(op).exact_rounding
    except VschedError:
        return False


# which unknown obligation a value difference refutes first (an out-of-storage access or a
# resource limit is not what a differing value shows)
_LAST = ("in_bounds", "hardware_limits", "precondition")


def _refute(obligations: list, k: int, sizes: dict, text: str, cell, inputs="random", seed=0) -> list:
    cands = [o for o in obligations if o.op_index == k and o.status == "unknown"]
    target = min(cands, key=lambda o: o.kind in _LAST)
    cex = _replay(sizes, inputs, seed, cell)
    first = text.splitlines()[0] if text else ""
    new = dataclasses.replace(target, status="refuted", engine="run",
                              message=f"{target.message}; a run shows the op changes the result: {first}",
                              counterexample=cex)
    return [new if o is target else o for o in obligations]


def _replay(sizes: dict, inputs: str, seed: int, cell, values=None, base: Counterexample | None = None):
    """The counterexample of a run that shows a difference: its sizes and inputs (`vsched run
    --size ... --inputs I --seed S`), the cell that differs; the rest of `base`'s facts kept."""
    instance = Instance(dict(sizes), None if inputs == "random" else inputs, seed, values)
    cells = None if cell is None else (Cell.from_json(cell),)
    if base is None:
        return Counterexample(instance, cells=cells)
    return dataclasses.replace(base, instance=instance, cells=base.cells if cells is None else cells)


def _sizes_of(o) -> dict | None:
    return None if o.counterexample is None else o.counterexample.instance.sizes


def confirm_claim(program: ir.Program, claim, obligations: list, profile: str) -> list:
    """A claim refuted by comparing value trees keeps its refutation only when running the two
    kernels shows it: at the counterexample's sizes (on its z3 model's input values when it has
    them), else at the file's example sizes, on random inputs and on each special-value pattern
    (the counterexample then names the sizes and inputs that showed it). Trees that differ
    while every run agrees (`x * 1.0` against `x`) are `unknown`, never refuted without a
    replay. An `unknown` claim is run the same way and refuted (engine `run`) when a run
    differs. Bitwise unless the verifier proved the claim a licensed reassociation (then
    within the precision's tolerance, as `vsched run` compares it)."""
    out = []
    for o in obligations:
        if o.status == "refuted" and o.engine != "run":
            out.append(_confirm_one(program, claim, o, profile))
        elif o.status == "unknown" and o.kind == "equivalence" and profile != "approximate" \
                and not any(x.status == "refuted" for x in obligations):
            out.append(_refute_claim(program, claim, o, profile))
        else:
            out.append(o)
    return out


def _sizes_to_try(program: ir.Program, o, examples: list) -> list:
    """The obligation's counterexample sizes (when admitted), then the example sizes."""
    from ..analysis.sizes import check_sizes
    out = []
    params = _sizes_of(o)
    if params and set(params) == set(program.params):
        try:
            check_sizes(program, params)
            out.append(dict(params))
        except VschedError:
            pass
    return out + [s for s in examples if s not in out]


def _runs(o, sizes: dict, rtol, profile: str, special: bool = True):
    """(inputs, seed, values) to try at `sizes`: the z3 model's cells (at its own sizes), the
    random draw, then (bitwise comparisons only, `special`) each special-value pattern."""
    replay = o.counterexample.instance if o.counterexample is not None else Instance()
    runs = []
    if replay.values and sizes == replay.sizes:
        runs.append(("random", 0, replay.values))
    sets = input_sets(profile) if rtol is None and special else INPUT_SETS[:1]
    return runs + [(i, s, None) for i, s in sets]


def _shown(o, sizes, inputs, seed, values, text, cell, status=None, engine=None, note=""):
    base = o.counterexample if o.counterexample is not None else Counterexample()
    cex = _replay(sizes, inputs, seed, cell, base.instance.values if values else None, base)
    first = text.splitlines()[0] if text else ""
    changes = {"status": status, "engine": engine} if status else {}
    return dataclasses.replace(o, counterexample=cex, message=f"{o.message}; {note}{first}", **changes)


def _confirm_one(program, claim, o, profile):
    from verified_sched.oracle.compare import tolerance
    from ..analysis.sizes import example_sizes
    rtol = tolerance(program, [claim.a, claim.b]) if (o.reassociates or profile == "approximate") else None
    params = _sizes_of(o)
    try:
        candidates = _sizes_to_try(program, o, example_sizes(program, MAX_SIZE_SETS))
    except VschedError:
        return o
    tried = []
    inconclusive = False
    for n, sizes in enumerate(candidates):
        for inputs, seed, values in _runs(o, sizes, rtol, profile, special=n < 2):
            differs, text, cell = _compare(program, program, claim.a, sizes, claim.b, rtol, inputs, seed, values)
            if differs is None:
                inconclusive = True
                continue
            if sizes not in tried:
                tried.append(sizes)
            if differs:
                if sizes == params and values:
                    return _shown(o, sizes, inputs, seed, values, text, cell, note="shown by a run on those inputs: ")
                if sizes == params and inputs == "random":  # the random draw shows it (not the model's values)
                    cex = o.counterexample
                    return dataclasses.replace(o, counterexample=dataclasses.replace(
                        cex, instance=dataclasses.replace(cex.instance, values=None)))
                return _shown(o, sizes, inputs, seed, values, text, cell,
                              note="shown by a run at other sizes or inputs: ")
    if inconclusive or not tried:
        return o
    shown = "; ".join(",".join(f"{k}={v}" for k, v in t.items()) for t in tried)
    return dataclasses.replace(
        o, status="unknown", counterexample=None,
        message=f"{o.message}; but the two kernels run equal at {shown} (random and special-value inputs): "
                f"not refuted without a run that shows it")


def _refute_claim(program, claim, o, profile):
    """An unknown claim refuted when a bitwise run of the two kernels differs (random inputs,
    then special values); equal runs leave it unknown."""
    from ..analysis.sizes import example_sizes
    try:
        candidates = example_sizes(program, MAX_SIZE_SETS)
    except VschedError:
        return o
    for n, sizes in enumerate(candidates):
        for inputs, seed in (input_sets(profile) if n == 0 else INPUT_SETS[:1]):  # special values at the smallest
            differs, text, cell = _compare(program, program, claim.a, sizes, claim.b, None, inputs, seed)
            if differs:
                return _shown(o, sizes, inputs, seed, None, text, cell, status="refuted", engine="run",
                              note="a run shows the kernels differ: ")
    return o


CONFIRMED_KINDS = ("dependence", "coverage")


def _parallel(program: ir.Program, kernel: str) -> bool:
    """Any loop whose iterations may run in another order than the backends run them here
    (vectorized, block, thread): a run in one order cannot show what that order hides."""
    return any(n.axis not in ("serial", "unrolled") for n in ir.nodes_of(program.kernel(kernel).body, ir.For))


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
    from verified_sched.oracle.compare import tolerance
    from ..analysis.sizes import example_sizes
    try:
        progs = _prefixes(program, kernel, max(ks))
        examples = example_sizes(program, MAX_SIZE_SETS)
    except VschedError:
        return obligations
    out = list(obligations)
    for k in ks:
        parallel = _parallel(progs[k - 1], kernel) or _parallel(progs[k], kernel)
        # within tolerance only where the verifier proved the op's reordering licensed; any
        # other change is compared bitwise
        licensed = _rounding(program, kernel, obligations, k, profile) == "licensed"
        rtol = tolerance(program, [kernel]) if licensed else None
        for n, o in enumerate(out):
            if o.op_index != k or o.status != "refuted" or o.engine == "run" or o.kind not in CONFIRMED_KINDS:
                continue
            if parallel and o.kind != "coverage":
                continue
            compare = _compare_orders if parallel else _compare
            sizes_list = _sizes_to_try(program, o, examples)
            own = _sizes_of(o)
            verdicts = _verdicts(compare, progs[k - 1], progs[k], kernel, sizes_list, own, rtol)
            if verdicts is None:
                continue  # the run at its own sizes shows it: the refutation stays as it is
            at_own = [d for (d, _, _), s in zip(verdicts, sizes_list) if s == own]
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


def _verdicts(compare, before, after, kernel: str, sizes_list: list, own, rtol) -> list | None:
    """`compare`'s verdict at each of `sizes_list` in order, or None as soon as the run at the
    refutation's own sizes (`own`, first in the list when admitted) shows a difference: the
    refutation then stands whatever the runs at the other sizes show, so they are not run."""
    out = []
    for s in sizes_list:
        v = compare(before, after, kernel, s, rtol=rtol)
        if v[0] and s == own:
            return None
        out.append(v)
    return out


def _shown_elsewhere(o, sizes: dict, text: str, cell):
    """The refutation with the sizes of a run that shows it as its counterexample (its own
    instances belong to other sizes, where the kernel runs equal, so they are dropped)."""
    cex = _replay(sizes, "random", 0, cell)
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
    from verified_sched.oracle.compare import OutOfStorage, compare_kernels
    from ..interp.interpreter import KernelError, run_kernel
    from ..analysis.resources import check_run
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
