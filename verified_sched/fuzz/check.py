"""One fuzz example: verify the schedule, then check the verdict against runs.

- legal: the scheduled kernel runs equal to the unscheduled one (C, and the GPU emulator with
  its race detector when the scheduled kernel has hardware loops) at every size set; a
  difference, a race, or a write outside storage is a `verifier` finding;
- illegal: every refuted coverage, dependence, in_bounds or race obligation replays at its
  counterexample's sizes (or sizes just above, like the soundness tests); one that does not is
  a `counterexample` finding; other refuted kinds are counted, not replayed;
- unknown: counted with the obligation kinds left unknown;
- with a backend runner (legal examples): the backend runs equal to the unscheduled C kernel,
  else a `backend` finding;
- verify or a run raising an internal error is a `crash` finding.
"""
from __future__ import annotations

import dataclasses
import hashlib
import time
import traceback
from dataclasses import dataclass, field

import numpy as np

from codegen.build import load_c
from codegen.emulate import EmulationError, load_emulated
from verified_sched.oracle.compare import OutOfStorage, compare_kernels, scratch_arrays, tolerance
from ..core import ir
from ..core.counterexample import Counterexample
from ..core.errors import InternalError, UsageError, VschedError
from ..interp.interpreter import run_kernel
from ..interp.scalar import KernelError
from ..core.op_syntax import op_name
from ..analysis.full_tiles import full_tiles
from ..analysis.resources import check_int64
from ..ops import apply_op
from ..analysis.sizes import eval_int
from ..verify.driver import verify_program
from ..oracle.backend import Declined
from .options import op_options  # noqa: F401 (the labels an op list exercises; used below and re-exported)

REPLAYABLE = ("coverage", "dependence", "in_bounds", "race")


@dataclass
class Finding:
    kind: str  # verifier | counterexample | backend | crash
    message: str
    sizes: list = field(default_factory=list)  # the size sets that show it
    target: str = "c"  # c | emulate (how to reproduce with vsched run)
    obligation: str = ""  # the obligation kind involved (counterexample findings)
    op: str = ""  # the op whose obligation it is (counterexample findings; "kernel" for op 0)


@dataclass
class Outcome:
    verdict: str
    ops: list  # op names of the schedule
    options: list  # (op, option=value) labels: split tails and partitions, stage options
    unknown_kinds: list = field(default_factory=list)
    refuted_kinds: list = field(default_factory=list)
    replays: list = field(default_factory=list)  # (obligation kind, replayed | skipped)
    sizes_run: list = field(default_factory=list)
    vacuous: int = 0
    backend_runs: int = 0  # comparisons run through the --backend runner
    backend_declined: int = 0  # examples the backend declined (oracle/backend.py)
    finding: Finding | None = None
    times: dict = field(default_factory=dict)
    cpu: float = 0.0  # CPU seconds of the check, its compilers included (set by the campaign)


def steps(program: ir.Program, kernel: str, ops) -> list:
    cur, out = program, [program]
    for op in ops:
        cur = apply_op(cur, kernel, op)
        out.append(cur)
    return out


def _hardware(program: ir.Program, kernel: str) -> bool:
    return any(ir.is_hardware(n.axis) for n in ir.nodes_of(program.kernel(kernel).body, ir.For))


def _one_thread(program: ir.Program, kernel: str, cex: Counterexample) -> bool:
    """Whether the two instances of a counterexample run in one hardware thread (the same
    value of every hardware loop around both): then only vector lanes leave them unordered,
    and no executor here interleaves lanes (fuzz seed 20261204: a privatized accumulator shared
    by the lanes of `retype oh as vectorized` inside a block loop)."""
    inst = cex.instances
    if not isinstance(inst, list) or len(inst) != 2 or not all(isinstance(i, dict) for i in inst):
        return False
    hw = {n.var for n in ir.nodes_of(program.kernel(kernel).body, ir.For) if ir.is_hardware(n.axis)}
    a, b = (i.get("at") or {} for i in inst)
    return all(v in a and v in b and a[v] == b[v] for v in hw)


def _barrier_in_hw(program: ir.Program, kernel: str) -> bool:
    """Serial C cannot mean the kernel (barriers in hardware loops, or per-block/per-thread
    values across a serial loop: run_plan.serial_c_declines, as `vsched run`)."""
    from ..oracle.run_plan import serial_c_declines
    return serial_c_declines(program, kernel)




class _Timer:
    def __init__(self, times: dict, key: str):
        self.times, self.key = times, key

    def __enter__(self):
        self.t0 = time.perf_counter()

    def __exit__(self, *exc):
        self.times[self.key] = self.times.get(self.key, 0.0) + time.perf_counter() - self.t0


def check_example(program: ir.Program, kernel: str, size_sets, backend=None, timeout: float = 5.0,
                  seeds=(0,)) -> Outcome:
    """Verify `program`'s schedule of `kernel` and check the verdict by running (module doc).
    `backend`: None or FACTORY(program) -> runner(kernel_name, sizes, arrays)."""
    _RUNS.clear()  # runs are shared within one example only
    sched = program.schedule_for(kernel)
    ops = sched.ops if sched else ()
    out = Outcome("", [op_name(o) for o in ops], op_options(ops))
    times = out.times
    try:
        with _Timer(times, "verify"):
            report = _verified(program, kernel, timeout)
    except VschedError as e:
        out.verdict = "error"
        out.finding = Finding("crash", f"verify raised {type(e).__name__}: {e}")
        return out
    except Exception as e:  # noqa: BLE001 - any crash of the verifier is a finding
        out.verdict = "error"
        out.finding = Finding("crash", f"verify raised {type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}")
        return out
    out.verdict = report.verdict
    out.unknown_kinds = sorted({o.kind for o in report.obligations if o.status == "unknown"})
    out.refuted_kinds = sorted({o.kind for o in report.obligations if o.status == "refuted"})
    try:
        if report.verdict == "legal":
            _check_legal(program, kernel, ops, size_sets, report, backend, seeds, out)
        elif report.verdict == "illegal":
            _check_illegal(program, kernel, ops, report, out)
    except (UsageError, VschedError) as e:
        if out.finding is None:
            out.finding = Finding("crash", f"running the example raised {type(e).__name__}: {e}")
    return out


# The reports of the programs this process verified (fuzz campaigns), by program (IR value),
# kernel and timeout: hypothesis's mutator draws the same program again and again (the
# same-span copies of `generate_mutations_from`; seed 2026's 240 examples verify one
# split_reduction program that runs into the 5 s deadline four times), and each draw was
# verified again in full. A verdict is what the verifier said about that input: the checks
# against runs (at each draw's own sizes) still run every time. A crash of the verifier is
# not kept (it is raised again, each time a finding).
_REPORTS: dict = {}
REPORTS_LIMIT = 512  # entries; the store starts afresh past it
REPORT_STATS = {"verified": 0, "known": 0}  # tests count the work


def _verified(program: ir.Program, kernel: str, timeout: float):
    key = (program, kernel, timeout)
    try:
        hit = _REPORTS.get(key)
    except TypeError:  # an unhashable part: verified, not kept
        key, hit = None, None
    if hit is not None:
        REPORT_STATS["known"] += 1
        return hit
    report = next(r for r in verify_program(program, timeout=timeout) if r.kernel == kernel)
    REPORT_STATS["verified"] += 1
    if key is not None:
        if len(_REPORTS) >= REPORTS_LIMIT:
            _REPORTS.clear()
        _REPORTS[key] = report
    return report


def paired_runners(program: ir.Program, final: ir.Program, kernel: str) -> tuple:
    """(ref, cand) runners from ONE compiled module holding both the unscheduled kernel (renamed
    `<kernel>__ref`) and the scheduled one: one compile per example instead of two. The
    scheduled program's scratch tensors get poisoned arrays on the reference side."""
    ref_k = dataclasses.replace(program.kernel(kernel), name=f"{kernel}__ref")
    both = dataclasses.replace(final, kernels=tuple(final.kernels) + (ref_k,))
    try:
        mod = load_c(both, [kernel, ref_k.name], split=full_tiles)
    except VschedError:  # the two programs disagree on a declaration: compile them apart
        return load_c(program, split=full_tiles).run, load_c(final, split=full_tiles).run

    def ref(_name, sizes, arrays):
        mod.run(ref_k.name, sizes, {**arrays, **scratch_arrays(program, final, sizes)})
    return ref, lambda _name, sizes, arrays: mod.run(kernel, sizes, arrays)


def _compare(p_ref, p_cand, kernel, sizes, seed, ref, cand, rtol, out, inputs="random", values=None):
    with _Timer(out.times, "run"):
        rep = compare_kernels(p_ref, kernel, kernel, sizes, seed, inputs, runner_ref=ref, runner_cand=cand,
                              rtol=rtol, atol=rtol or 0.0, program_cand=p_cand, values=values)
    out.vacuous += rep.vacuous
    return rep


INTERP_INSTANCES = 20000  # statement instances of one run up to which the interpreter beats a C compile


def small(program: ir.Program, kernel: str, size_sets) -> bool:
    """Whether `kernel` runs at most INTERP_INSTANCES statement instances at every size set
    (the product of its loop extents, as `resources.check_int64` counts them)."""
    try:
        for sizes in size_sets:
            check_int64(program, kernel, dict(sizes), max_instances=INTERP_INSTANCES)
    except UsageError:
        return False
    return True


def _interp_legal(program, final, kernel, size_sets, rtol, seeds, out: Outcome) -> bool:
    """The legal check in the interpreter (the oracle, bitwise equal to the compiled C: no
    compile): True when it decided (equal everywhere, or a finding), False when the
    interpreter cannot run one of the two kernels (then the compiled path decides)."""
    for sizes in size_sets:
        for seed in seeds:
            try:
                rep = _compare(program, final, kernel, sizes, seed, _interp(program, seed), _interp(final, seed),
                               rtol, out)
            except KernelError:
                return False  # out of storage or not interpretable: the compiled run says which
            if not rep.equal:
                out.finding = Finding("verifier", "proved legal, but the scheduled kernel differs "
                                      f"(interp): {rep.text()}", [sizes], "interp")
                return True
    return True


def _check_legal(program, kernel, ops, size_sets, report, backend, seeds, out: Outcome) -> None:
    final = steps(program, kernel, ops)[-1]
    rtol = tolerance(program, [kernel]) if report.reassociates or (program.profile == "approximate") else None
    hardware = _hardware(final, kernel)
    # small: the interpreter instead of C on both sides; then only the emulator's race detector
    # (hardware loops) still compiles
    interp = backend is None and small(program, kernel, size_sets) and \
        _interp_legal(program, final, kernel, size_sets, rtol, seeds, out)
    if out.finding is not None or (interp and not hardware):
        out.sizes_run.extend(dict(s) for s in size_sets)
        return
    with _Timer(out.times, "compile"):
        if interp:
            ref = cand_c = None  # the interpreter ran the "c" side
        elif _barrier_in_hw(final, kernel):
            ref, cand_c = load_c(program, split=full_tiles).run, None
        else:
            ref, cand_c = paired_runners(program, final, kernel)
        emu = load_emulated(final, 0, detect_races=True, quick=True) if hardware else None
    for sizes in size_sets:
        out.sizes_run.append(dict(sizes))
        for seed in seeds:
            if interp:
                ref = _interp(program, seed)
            for target, runner in (("c", cand_c), ("emulate", emu and emu.run)):
                if runner is None:
                    continue
                if target == "emulate":
                    emu.seed = seed
                try:
                    rep = _compare(program, final, kernel, sizes, seed, ref, runner, rtol, out)
                except (OutOfStorage, EmulationError) as e:
                    out.finding = Finding("verifier", f"proved legal, but the scheduled kernel fails ({target}): {e}",
                                          [sizes], target)
                    return
                if not rep.equal:
                    out.finding = Finding("verifier", "proved legal, but the scheduled kernel differs "
                                          f"({target}): {rep.text()}", [sizes], target)
                    return
            if backend is not None:
                try:
                    runner = backend(program)
                    rep = _compare(program, program, kernel, sizes, seed, ref, runner, rtol, out)
                    bad = None if rep.equal else rep.text()
                    out.backend_runs += 1
                except Declined:
                    out.backend_declined += 1
                    backend = None  # the same kernel at other sizes: declined as well
                    continue
                except Exception as e:  # noqa: BLE001 - whatever the user's backend raises is its finding
                    bad = f"the backend raised {type(e).__name__}: {e}"
                if bad:
                    out.finding = Finding("backend", f"the backend differs from the oracle: {bad}", [sizes])
                    return


# ---------------------------------------------------------------- counterexample replay


def _observable(o) -> bool:
    """A violated order between two stores of constants, or between two instances of one
    accumulation made unordered, changes no output on a serial run: not replayable by running."""
    cex = o.counterexample
    insts = (cex.instances or []) if cex is not None else []
    if o.kind != "dependence" or len(insts) != 2:
        return True
    if cex.extra.get("kind") == "WAW" and "reads" not in insts[0] and "reads" not in insts[1]:
        return False
    same = insts[0].get("stmt") == insts[1].get("stmt") and insts[0].get("writes") == insts[1].get("writes")
    return not (same and "unordered" in str((cex.order or {}).get("after", "")))


def _interp(p, seed):
    """The reference interpreter as a runner: safe on kernels that index outside storage
    (KernelError), which an illegal schedule's kernels may do. A run repeated within one
    example is answered from `_RUNS`."""
    def run(k, sizes, arrays):
        key = (id(p), k, tuple(sorted(sizes.items())), seed, _digest(arrays))
        hit = _RUNS.get(key)
        if hit is not None and hit[0] is p:
            return _replayed(hit[1], hit[2], arrays)
        error = None
        try:
            run_kernel(p, k, sizes, arrays, seed=seed)
        except KernelError as e:
            error = e
        if len(_RUNS) >= RUNS_LIMIT:
            _RUNS.clear()
        _RUNS[key] = (p, {n: a.copy() for n, a in arrays.items()}, error)
        if error is not None:
            raise error
        return arrays
    return run


# Interpreter runs of the example being checked: (program id, kernel, sizes, seed, digest of
# the input arrays) -> (program, the arrays after the run, its KernelError or None). The
# interpreter is deterministic in these, so a repeated run (the unscheduled kernel again
# beside the emulator, the scheduled one against both earlier programs in a replay, an example
# whose schedule left the kernel as it was) is the stored result, bit for bit, error included.
_RUNS: dict = {}
RUNS_LIMIT = 32


def _digest(arrays: dict) -> bytes:
    h = hashlib.blake2b(digest_size=20)
    for name in sorted(arrays):
        a = arrays[name]
        h.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.digest()


def _replayed(after: dict, error, arrays: dict) -> dict:
    if set(after) != set(arrays):
        raise InternalError("a stored interpreter run has other arrays")
    for name, a in after.items():
        arrays[name][...] = a
    if error is not None:
        raise error
    return arrays


def _differ(before, after, kernel, sizes, out, given=None) -> str:
    """'differs' when the two kernels run differently in the interpreter at `sizes` (the
    counterexample's own input values first, `given`: an Instance naming an input kind, seed
    or cells; then some of 4 random seeds), 'vacuous' when every run was equal with every
    output cell zero (or never written) on both sides, else 'same'."""
    vacuous = True
    runs = [(seed, "random", None) for seed in range(4)]
    if given is not None and (given.inputs or given.values):
        runs.insert(0, (given.seed or 0, given.inputs or "random", given.values))
    for seed, inputs, values in runs:
        try:
            rep = _compare(before, after, kernel, sizes, seed, _interp(before, seed), _interp(after, seed), None, out,
                           inputs, values)
        except KernelError:
            return "differs"
        if not rep.equal:
            return "differs"
        vacuous = vacuous and rep.vacuous
    return "vacuous" if vacuous else "same"


def replay(program, kernel, ops, o, out: Outcome, oob_at=None) -> str:
    """'replayed', 'skipped' (not checkable by running), 'vacuous' (every run of both kernels left every
    output zero: running cannot show a changed order) or 'failed'. `oob_at`: the first op
    index with a refuted in_bounds (compiled kernels are not run from there on)."""
    cex = o.counterexample or Counterexample()
    sizes = cex.instance.sizes
    if o.kind not in REPLAYABLE or sizes is None or set(sizes) != set(program.params):
        return "skipped"
    progs = steps(program, kernel, ops[:o.op_index])
    after = progs[-1]
    if o.kind == "in_bounds":
        cells = cex.cells or ()
        if not cells or cells[0].index is None or cells[0].tensor not in {t.name for t in after.tensors}:
            return "skipped"
        t = after.tensor(cells[0].tensor)
        dims = [eval_int(d, sizes) for d in t.storage_dims()]
        return "replayed" if any(not 0 <= c < d for c, d in zip(cells[0].index, dims)) else "failed"
    if o.kind == "race":
        threads = cex.threads or ()
        lanes = len(threads) == 2 and threads[0] == threads[1]  # two vector lanes of one thread
        if (oob_at is not None and oob_at <= o.op_index) or not _hardware(after, kernel) or lanes:
            return "skipped"  # out of storage, or only vector lanes race (no executor interleaves them)
        for s in [sizes] + [{k: v + d for k, v in sizes.items()} for d in (1, 2)]:
            for seed in range(3):
                try:
                    with _Timer(out.times, "compile"):
                        run = load_emulated(after, seed, detect_races=True, quick=True).run
                    _compare(after, after, kernel, s, seed, run, run, None, out)
                except (EmulationError, OutOfStorage):
                    return "replayed"
                except UsageError:  # sizes just above not admitted
                    break
        return "failed"
    if not _observable(o) or o.op_index == 0:
        return "skipped"
    before = progs[-2]
    # the obligations relate the after kernel to the original through provenance: an error an
    # earlier op made may be reported again here, so the original counts as "before" too
    pairs = [(before, after)] + ([(program, after)] if o.op_index > 1 else [])
    if "unordered" in str((cex.order or {}).get("after", "")):
        # made parallel: an interleaving shows it (the emulator's race detector runs hardware
        # loops; vectorized lanes have no interleaving executor here), or a value that no
        # longer reaches its reader: the interpreter keeps a local copy per thread, a shared
        # one per block, and runs blocks and threads in random orders
        if not _hardware(after, kernel) or (oob_at is not None and oob_at <= o.op_index):
            return "skipped"
        if _differs_near(pairs, kernel, sizes, out, cex.instance) == "replayed":
            return "replayed"
        if _one_thread(after, kernel, cex):
            return "skipped"  # vector lanes of one thread: no race to detect either
        o_race = type(o)("race", o.op_index, o.op, o.statement, o.engine, o.status, 0.0, o.message, cex)
        return replay(program, kernel, ops, o_race, out, oob_at)
    result = _differs_near(pairs, kernel, sizes, out, cex.instance)
    if result not in ("failed", "vacuous"):
        return result
    if o.kind == "dependence" and _hardware(after, kernel) and (oob_at is None or oob_at > o.op_index):
        # an order violated only between concurrently running blocks or threads shows as a
        # race (or a different result) in the emulator, not in the serializing interpreter
        o_race = type(o)("race", o.op_index, o.op, o.statement, o.engine, o.status, 0.0, o.message, cex)
        return replay(program, kernel, ops, o_race, out, oob_at)
    return result


def _differs_near(pairs, kernel, sizes, out, given=None) -> str:
    """'replayed' when some (before, after) pair runs differently in the interpreter at the
    sizes or just above, 'skipped' when they cannot be run, 'vacuous' when every run left every
    output zero on both sides (a kernel whose outputs are zero whatever its inputs, e.g. every
    value derived from a `zero`: no run can show a changed order there), else 'failed'."""
    seen = set()
    try:
        for s in [sizes] + [{k: v + d for k, v in sizes.items()} for d in (1, 2, 3)]:
            for b, a in pairs:
                seen.add(_differ(b, a, kernel, s, out, given if s is sizes else None))
                if "differs" in seen:
                    return "replayed"
    except UsageError:  # the two programs declare different tensors, or sizes not admitted
        return "skipped"
    return "vacuous" if seen == {"vacuous"} else "failed"


def _check_illegal(program, kernel, ops, report, out: Outcome) -> None:
    oob = [o.op_index for o in report.obligations if o.status == "refuted" and o.kind == "in_bounds"]
    for o in report.obligations:
        if o.status != "refuted":
            continue
        result = replay(program, kernel, ops, o, out, min(oob, default=None))
        out.replays.append((o.kind, result))
        if result == "failed":
            sizes = o.counterexample.sizes if o.counterexample is not None else {}
            op = op_name(ops[o.op_index - 1]) if o.op_index else "kernel"
            out.finding = Finding("counterexample", f"refuted {o.kind} of op {o.op_index} ({o.op}) does not replay at "
                                  f"{sizes}: {o.message}", [sizes], obligation=o.kind, op=op)
            return
