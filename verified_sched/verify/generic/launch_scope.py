"""A shared or local tensor lives for one launch (README, Semantics: each top-level statement
of a kernel is one launch; a launch with hardware loops gets fresh shared and local memory,
as on a GPU, in the interpreter and in the emulator, which poison it). A value written to one
in a launch and read in another, where either launch has hardware loops, is gone by the time
it is read.

Goal (kind `dataflow`), stated only for a kernel where some shared or local tensor is written
in one top-level statement and read in another, one of them with hardware loops: every read
of such a tensor sees a value of its own launch (polyhedral/launch_reads.py, an isl question
over the launch index: proved when the set of reads that may not is empty). Otherwise the read
instance isl samples names the sizes, and running is what refutes: the kernel before the op
and after it, in the interpreter (which poisons a hardware launch's shared and local memory),
at those sizes and then at the file's example sizes; a differing observable cell refutes the
goal with that counterexample (`vsched run FILE --target interp` replays it). A kernel's own
goal (no op: nothing to compare against) and a read no run shows to matter stay `unknown`,
never proved. Found by `vsched fuzz`: privatize's load loop retyped to `block.x` was proved
legal while the accumulation, in the next launch, read dead local copies.
"""
from __future__ import annotations

from ...core import ir
from ...core.counterexample import Cell, Counterexample, Instance
from ...core.errors import VschedError
from ...core.obligations import Decided, Goal, Procedure

STATEMENT = ("shared and local tensors live for one launch: every read of one sees a value stored in its own "
             "launch, or, in a launch without hardware loops, one of the storage those launches share")
MAX_SIZE_SETS = 3
MAX_INSTANCES = 50_000


def _accesses(program: ir.Program, stmt) -> tuple:
    """(hardware?, scratch tensors written, scratch tensors read) of one top-level statement."""
    scratch = {t.name for t in program.tensors if t.memory in ("shared", "local")}
    hw, written, read = False, set(), set()
    for n in ir.nodes_of(stmt, (ir.For, ir.Assign, ir.Zero, ir.Load)):
        if isinstance(n, ir.For) and ir.is_hardware(n.axis):
            hw = True
        elif isinstance(n, (ir.Assign, ir.Zero)) and n.tensor in scratch:
            written.add(n.tensor)
        elif isinstance(n, ir.Load) and n.tensor in scratch:
            read.add(n.tensor)
    return hw, written, read


def crossing(program: ir.Program, kernel_name: str) -> list:
    """Shared/local tensors written in one top-level statement and read in another, either of
    them with hardware loops (sorted names)."""
    body = program.kernel(kernel_name).body
    if len(body) < 2:  # one top-level statement: no other to cross into (no walk per op)
        return []
    if not any(t.memory in ("shared", "local") for t in program.tensors):
        return []  # no scratch tensor to cross with (most programs: no walk per op either)
    parts = [_accesses(program, s) for s in body]
    out = set()
    for i, (hw_i, w_i, _) in enumerate(parts):
        for j, (hw_j, _, r_j) in enumerate(parts):
            if i != j and (hw_i or hw_j):
                out |= w_i & r_j
    return sorted(out)


def launch_scope_goals(program: ir.Program, kernel_name: str, model=None, before: ir.Program | None = None) -> list:
    """[] or the one `dataflow` goal (module docstring). `model`: the kernel's KernelModel (of
    `program`); `before`: the program before the op (None for the kernel's own goal)."""
    names = crossing(program, kernel_name)
    if not names:
        return []
    if model is None:
        from polyhedral.model import KernelModel
        model = KernelModel(program, kernel_name)
    return [Goal("dataflow", STATEMENT, Procedure(lambda: decide(program, kernel_name, model, names, before)))]


def decide(program: ir.Program, kernel_name: str, model, names: list, before) -> Decided:
    from polyhedral.describe import coords, instance, param_values
    from polyhedral.isltools import point_of
    from polyhedral.launch_reads import bad_reads
    bad, inexact = bad_reads(model, set(names))
    tensors = ", ".join(names)
    if bad.is_empty() and not inexact:
        return Decided("proved", f"every read of {tensors} (shared/local) sees a value stored in its own launch",
                       STATEMENT)
    pt = point_of(bad)
    why = (f"a store of {inexact} that would give {tensors} its value depends on data" if pt is None else "")
    cex = None
    if pt is not None:
        p, [(name, vals)] = coords(pt)
        params = param_values(model, p)
        read = instance(model, name, vals, params, "after" if before is not None else "kernel")
        cex = Counterexample(Instance(params), [read])
        cells = ", ".join(f"{r['tensor']}[{', '.join(map(str, r['index'] or []))}]"
                          for r in read.get("reads", []) if r["tensor"] in names)
        at = ", ".join(f"{k}={v}" for k, v in read["at"].items())
        sizes = ", ".join(f"{k}={v}" for k, v in params.items())
        why = (f"{read['stmt']} at ({at}) reads {cells} at {sizes}, which no store of its own launch "
               "gives a value (each launch with hardware loops gets fresh shared and local memory)")
    shown = _shown_by_run(program, kernel_name, before, cex)
    if shown is not None:
        sizes, text, cell = shown
        out = Counterexample(Instance(dict(sizes), seed=0),
                             cex.instances if cex is not None and sizes == cex.sizes else None,
                             cells=None if cell is None else (cell,))
        return Decided("refuted", f"{why}; a run shows it: {text.splitlines()[0] if text else ''}", STATEMENT, out,
                       engine="run")
    return Decided("unknown", f"{why}; no run shows the value reaching an observable cell", STATEMENT)


def _shown_by_run(program, kernel_name, before, cex):
    """(sizes, text, first differing cell) of an interpreter run that shows the read's value
    matters, or None: `before` against `program` (the op); None for the kernel's own goal."""
    from verified_sched.oracle.compare import OutOfStorage, compare_kernels
    from ...interp.interpreter import KernelError, run_kernel
    from ...analysis.resources import check_run
    from ...analysis.sizes import check_sizes, example_sizes
    sizes_list = []
    if cex is not None:
        try:
            check_sizes(program, cex.sizes)
            sizes_list.append(dict(cex.sizes))
        except VschedError:
            pass
    try:
        sizes_list += [s for s in example_sizes(program, MAX_SIZE_SETS) if s not in sizes_list]
    except VschedError:
        pass
    if before is None:
        return None
    ref = before
    for sizes in sizes_list:
        try:
            check_run([(ref, kernel_name), (program, kernel_name)], sizes, max_instances=MAX_INSTANCES)
            rep = compare_kernels(ref, kernel_name, kernel_name, sizes, 0, "random",
                                  lambda k, s, a: run_kernel(ref, k, s, a, seed=0),
                                  lambda k, s, a: run_kernel(program, k, s, a, seed=0), program_cand=program)
        except (OutOfStorage, KernelError, VschedError, MemoryError):
            continue
        if not rep.equal:
            d = rep.first_diff
            cell = Cell(d.tensor, [int(x) for x in d.index]) if d is not None else None
            return sizes, rep.text(), cell
    return None
