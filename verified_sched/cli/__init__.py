"""The `vsched` command line: show, emit, run, exec, verify.

Exit codes (core/exits.py): 0 success (legal / equal), 1 a finding (illegal verdict, kernels that
differ, a kernel that fails at run time), 2 usage or input errors, 3 unknown verdict (verify:
nothing refuted, something unproved), 4 internal error (any command: one line, the traceback
with --debug; verify: also the worst file's, gate/runner.py). Every error caused by the
input prints `FILE:LINE:COL: message` (or `vsched: error: message` where there is no
position) on stderr, never a traceback. Progress goes to stderr, and only on a terminal.
"""
from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: `vsched --help` starts without them (benchmarks/startup.py)
    from ..core import ir
    from ..core.errors import VschedError


# ---------------------------------------------------------------- helpers


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


@contextlib.contextmanager
def _progress(message: str):
    """A spinner on stderr while long work runs; silent when stderr is not a terminal."""
    if not sys.stderr.isatty():
        yield
        return
    from ..core.progress import console  # shared, so the interpreter's progress bar nests inside

    with console().status(message):
        yield


def _load(path: str) -> ir.Program:
    from ..dsl import parse_file
    from ..core.errors import Loc, ParseError

    program = parse_file(path)
    if not program.kernels:
        raise ParseError("no kernel in this file (a .vs file needs at least one `kernel NAME { ... }`)",
                         Loc(str(path), 1, 1))
    return program


def _scheduled(program: ir.Program, kernel: str, upto=None) -> ir.Program:
    """The program after the first `upto` ops (all when None) of `kernel`'s schedule."""
    from ..ops import apply_schedule

    sched = program.schedule_for(kernel)
    ops = sched.ops if sched else ()
    if upto is not None and upto > len(ops):
        from ..core.errors import UsageError

        raise UsageError(f"kernel {kernel} has {len(ops)} schedule op(s); --after {upto} is too many")
    return apply_schedule(program, kernel, upto)


def _after(program: ir.Program, upto, only=None) -> ir.Program:
    """Apply the first `upto` ops of every schedule (of `only`); keep the remaining ops as the
    schedules, so the printed program means the same as the file."""
    import dataclasses

    out = program
    rest = []
    for sched in program.schedules:
        if only is not None and sched.kernel != only:
            rest.append(sched)
            continue
        out = _scheduled(out, sched.kernel, upto)
        left = sched.ops[len(sched.ops) if upto is None else upto:]
        if left:
            rest.append(dataclasses.replace(sched, ops=left))
    return dataclasses.replace(out, schedules=tuple(rest))


def _kernel_names(program: ir.Program, only) -> list:
    names = [k.name for k in program.kernels]
    if only is not None and only not in names:
        from ..core.errors import UsageError

        raise UsageError(f"no kernel named {only!r} (kernels: {', '.join(names) or 'none'})")
    return [only] if only is not None else names


def _size_sets(program: ir.Program, text) -> list:
    from ..analysis.sizes import check_sizes, example_sizes, parse_size_arg

    if text is None:
        return example_sizes(program, 3)
    sizes = parse_size_arg(text)
    check_sizes(program, sizes)
    return [sizes]


# ---------------------------------------------------------------- show / emit


def cmd_show(args) -> int:
    from ..core.printer import print_program

    program = _load(args.file)
    if args.kernel is not None:
        _kernel_names(program, args.kernel)
    if args.after:
        program = _after(program, args.after, args.kernel)
    print(print_program(program), end="")
    return 0


def cmd_emit(args) -> int:
    program = _load(args.file)
    if args.target == "mlir":  # at fixed sizes, as written (verified_sched/mlir/emit.py)
        from ..mlir.emit import emit_cli

        source = emit_cli(program, args)
    elif args.target == "cuda":
        from codegen.cuda import emit_cuda

        source = emit_cuda(_after(program, args.after))
    else:
        from codegen.c import emit_c

        from ..analysis.full_tiles import full_tiles

        source = emit_c(_after(program, args.after), split=full_tiles)
    if args.output:
        Path(args.output).write_text(source)
    else:
        sys.stdout.write(source)
    return 0


# ---------------------------------------------------------------- run


def _runner(program: ir.Program, target: str, seed: int, races: bool = False, cflags: str = ""):
    """callable(kernel, sizes, arrays) running `program`'s kernels on `target` (`cflags`: the
    user's extra C flags, checked against the profile by codegen.build.flags_for)."""
    match target:
        case "interp":
            from ..interp.interpreter import run_kernel

            return lambda k, sizes, arrays: run_kernel(program, k, sizes, arrays, seed=seed)
        case "c":
            from codegen.checked import load_checked  # every access bounds-checked

            from codegen.build import flags_for

            from ..analysis.full_tiles import full_tiles

            return load_checked(program, flags=flags_for(program.profile, cflags), split=full_tiles).run
        case "emulate":
            from codegen.emulate import load_emulated

            return load_emulated(program, seed=seed, detect_races=races).run
        case "cuda":
            from codegen.cuda import load_cuda

            return load_cuda(program).run
        case "iree":
            from ..mlir.iree_backend import load_iree

            return load_iree(program).run
    from ..core.errors import UsageError

    raise UsageError(f"unknown target {target!r}")


def _runtime_errors() -> tuple:
    """Errors that are findings about a running kernel (exit 1), not usage errors."""
    from codegen.emulate import EmulationError
    from verified_sched.oracle.compare import OutOfStorage
    from ..interp.interpreter import KernelError
    from ..mlir.iree_backend import IreeError

    return (KernelError, OutOfStorage, EmulationError, IreeError)


def _reassociates(program: ir.Program, profile: str, kernel=None, claim=None) -> bool:
    """Whether a schedule (or a claim) may change rounding: the verifier's reassociation
    license (for a schedule, only the obligations that can grant it: verify/reassociation.py), or the
    approximate profile. Unknown counts as yes, so a legal reassociation is not
    reported as a difference; bitwise equality is required only where the verifier says no
    reduction is reordered."""
    if profile == "approximate":
        return True
    from ..core.budget import DEFAULT_TIMEOUT
    from ..core.errors import VschedError
    from ..verify.reassociation import schedule_reassociates
    from ..verify.driver import verify_claim

    try:
        if claim is not None:  # an unproved claim may sum in another order: tolerance, not bits
            report = verify_claim(program, claim, profile, DEFAULT_TIMEOUT)
            return report.reassociates or report.verdict == "unknown"
        return schedule_reassociates(program, kernel, profile)  # not the whole verifier
    except VschedError:
        return True


def _jobs(program: ir.Program, args) -> list:
    """What `run` compares: (label, ref program, ref kernel, cand program, cand kernel, ref
    target, cand target, rtol or None for bitwise)."""
    from verified_sched.oracle import compare as oracle

    profile = program.profile or "default"
    ref_target = "interp" if args.target == "interp" else "c"
    jobs = []
    for claim in program.claims if args.kernel is None else ():
        rtol = oracle.tolerance(program, [claim.a, claim.b]) if _reassociates(program, profile, claim=claim) else None
        jobs.append((f"claim {claim.a} == {claim.b}", program, claim.a, program, claim.b,
                     ref_target, args.target, rtol))
    for sched in program.schedules:
        if args.kernel is not None and sched.kernel != args.kernel:
            continue
        after = _scheduled(program, sched.kernel)
        rtol = oracle.tolerance(program, [sched.kernel]) if _reassociates(program, profile, kernel=sched.kernel) else None
        jobs.append((f"schedule of {sched.kernel}", program, sched.kernel, after, sched.kernel,
                     ref_target, args.target, rtol))
    plain = [] if jobs else _kernel_names(program, args.kernel)
    other = args.target if args.target in ("emulate", "cuda", "iree") else "interp"
    jobs += [(f"kernel {k}", program, k, program, k, "c", other, None) for k in plain]
    if args.target == "iree":  # which side IREE can run (verified_sched/mlir/run_iree.py)
        from ..mlir.run_iree import iree_jobs

        return iree_jobs([(f"{job[0]} (C vs IREE)" if plain else job[0], *job[1:]) for job in jobs])
    return [_backends(job, bool(plain)) for job in jobs]


def _backends(job: tuple, plain: bool) -> tuple:
    """The job with the targets that actually run it (run_plan.choose_targets), named in
    the label of a plain kernel's job."""
    from ..oracle.run_plan import BACKEND, choose_targets

    label, p_ref, ref, p_cand, cand, t_ref, t_cand, rtol = job
    t_ref, t_cand, notes = choose_targets(p_ref, ref, p_cand, cand, t_ref, t_cand)
    for note in notes:
        _stderr(note)
    if plain:
        label += f" ({BACKEND[t_ref]} vs {BACKEND[t_cand]})"
    return label, p_ref, ref, p_cand, cand, t_ref, t_cand, rtol


def _exact_at(program: ir.Program, kernel: str, sizes: dict, inputs: str) -> bool:
    """Whether an op of `kernel`'s schedule is proved to compute exactly (so bitwise equal to
    the reference) at these sizes for the inputs drawn: the optional `exact_at` hook of the
    schedule's op modules (winograd's, under small integers or declared `inputs` ranges)."""
    from ..ops import op_spec

    sched = program.schedule_for(kernel)
    specs = dict.fromkeys(op_spec(op) for op in (sched.ops if sched else ()))
    return any(s.exact_at(program, kernel, sizes, inputs) for s in specs if s.exact_at is not None)


def cmd_run(args) -> int:
    from verified_sched.oracle.compare import compare_kernels
    from ..analysis.resources import check_run
    from ..oracle.run_plan import name_backends, outcome

    from verified_sched.core.dtypes import global_tensors
    from .exec_support import beside_inputs, fit_array, parse_set
    from ..core.errors import UsageError

    program = _load(args.file)
    values = parse_set(args.set_values)
    params = beside_inputs(args.file, {t.name for t in global_tensors(program)}, {})
    if params:  # an imported model's parameters (`vsched import -o FILE.vs` wrote FILE.NAME.npy)
        print(f"{args.file}: parameters from {', '.join(sorted(params))} "
              f"({Path(args.file).stem}.NAME.npy beside it); the other inputs drawn")
    jobs = _jobs(program, args)
    failed = 0
    for sizes in _size_sets(program, args.size):
        try:
            given = {name: fit_array(program, name, arr, sizes) for name, arr in params.items()}
        except UsageError as e:
            raise UsageError(f"{args.file}: a parameter beside it does not fit the sizes {sizes}: {e}") from None
        for label, p_ref, ref, p_cand, cand, t_ref, t_cand, rtol in jobs:
            if rtol is not None and _exact_at(p_ref, ref, sizes, args.inputs):
                rtol = None  # a proved exactness bound: the rewrite must agree bitwise here
            check_run([(p_ref, ref), (p_cand, cand)], sizes)
            with _progress(f"running {label} at {sizes}"):
                try:
                    report = compare_kernels(p_ref, ref, cand, sizes, args.seed, args.inputs,
                                             _runner(p_ref, t_ref, args.seed, args.races, args.cflags),
                                             _runner(p_cand, t_cand, args.seed, args.races, args.cflags),
                                             rtol=rtol, atol=rtol or 0.0, program_cand=p_cand,
                                             values=values, given=given)
                except _runtime_errors() as e:
                    print(f"{label}: FAILED at {sizes}: {e}")
                    failed += 1
                    continue
            name_backends(report, t_ref, t_cand)
            print(f"{label}: {outcome(report)}")
            print("  " + report.text().replace("\n", "\n  "))
            failed += not report.ok
    if args.target == "iree":  # a conv-backward --against torch-mlir file: the numerics report
        from ..mlir.numerics import report_for_file

        report_for_file(args.file, program)
    return 1 if failed else 0


# ---------------------------------------------------------------- exec


def cmd_exec(args) -> int:
    import numpy as np  # here, not at the top: `vsched verify` starts faster without numpy

    from .exec_support import beside_inputs, fit_array, infer_sizes, output_paths, read_inputs, write_npy
    from ..analysis.resources import EXEC_COPIES, check_run
    from verified_sched.core.dtypes import NP_DTYPE, global_tensors, logical_shape, storage_shape
    from ..analysis.sizes import check_sizes, parse_size_arg

    program = _load(args.file)
    _kernel_names(program, args.kernel)
    globals_ = {t.name for t in global_tensors(program)}
    given = read_inputs(args.inputs, globals_)
    given.update(beside_inputs(args.file, globals_, given))  # parameters of an imported model
    outs = output_paths(args.outputs, globals_)
    sizes = parse_size_arg(args.size) if args.size else {}
    sizes = infer_sizes(program, sizes, given) if any(p not in sizes for p in program.params) else sizes
    check_sizes(program, sizes)
    check_run([(program, args.kernel)], sizes, copies=EXEC_COPIES, temp_bytes=0)
    arrays = {t.name: np.zeros(storage_shape(t, sizes), dtype=NP_DTYPE[t.prec])
              for t in global_tensors(program)}
    for name, arr in given.items():
        arrays[name] = fit_array(program, name, arr, sizes)
    with _progress(f"running {args.kernel}"):
        _runner(program, args.target, args.seed)(args.kernel, sizes, arrays)
    for name, path in outs:
        t = program.tensor(name)
        write_npy(path, arrays[name][tuple(slice(0, n) for n in logical_shape(t, sizes))])
    return 0


# ---------------------------------------------------------------- verify


def cmd_verify(args) -> int:
    from ..gate.runner import run_verify  # files, directories, -j, the proof cache, formats

    return run_verify(args)


# ---------------------------------------------------------------- the subcommands

# name -> (the module that registers the subcommand, the function it calls on the
# subparsers, the one-line help of `vsched --help`). Only the module of the command that runs
# is imported (and its parser built): `vsched --help` imports none of them. A new subcommand
# is a row here and an `add_subparser(sub)` in its module.
COMMANDS = {
    "verify": ("verified_sched.cli.args", "add_verify", "prove every schedule op and claim, or give a counterexample"),
    "show": ("verified_sched.cli.args", "add_show", "print the program in the DSL (after K schedule ops)"),
    "emit": ("verified_sched.cli.args", "add_emit", "emit source code of the scheduled kernels"),
    "run": ("verified_sched.cli.args", "add_run", "scheduled vs unscheduled kernels (or claims) on random inputs"),
    "exec": ("verified_sched.cli.args", "add_exec", "run one kernel on given .npy inputs"),
    "conv-backward": ("verified_sched.cli.conv_backward", "add_subparser",
                      "emit direct convolution-backward nests with proved claims"),
    "explain": ("verified_sched.report.explain", "add_subparser",
                "verify one op (or kernel) and draw its counterexamples as HTML"),
    "import": ("verified_sched.cli.mlir_import", "add_subparser", "translate linalg-on-tensors MLIR into a .vs program"),
    "cache": ("verified_sched.gate.cache", "add_subparser", "show or clear the compile and proof caches"),
    "check-pass": ("verified_sched.cli.check_pass", "add_subparser",
                   "prove an MLIR loop pass (affine/scf/memref) correct for all sizes on one input"),
    "tune": ("verified_sched.tune.search", "add_subparser", "search proved-legal schedules of a kernel for speed at given sizes"),
    "fuzz": ("verified_sched.cli.fuzz", "add_subparser",
             "property-based fuzzing of rewrites (and of another backend)"),
}

# ---------------------------------------------------------------- main


def build_parser(only=None) -> argparse.ArgumentParser:
    """The parser of `vsched` with every subcommand's parser; with `only` (a name, or "" for
    none), just that subcommand's parser is built (its module imported), the others are only
    listed by name and help."""
    import importlib

    ap = argparse.ArgumentParser(prog="vsched", description="Verify, show, compile and run loop-nest schedules.",
                                 epilog="exit codes: 0 legal/equal, 1 illegal/different, 2 usage or input "
                                        "error, 3 unknown (verify), 4 internal error")
    ap.add_argument("--debug", action="store_true",
                    help="print the traceback of an internal error (also VSCHED_DEBUG=1); accepted anywhere")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, function, help_) in COMMANDS.items():
        if only is None or name == only:
            getattr(importlib.import_module(module), function)(sub)
        else:
            sub.add_parser(name, help=help_, add_help=False)
    return ap


def _command(argv: list):
    """The subcommand named in argv (the first word not an option), or None."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in COMMANDS else None


# a missing optional dependency (top-level module) -> (its name, the extra that installs it)
EXTRAS = {"hypothesis": ("hypothesis", "fuzz"), "distributed": ("distributed", "dask"),
          "torch": ("torch", "torch"), "torch_mlir": ("torch-mlir", "iree"), "iree": ("iree", "iree"),
          "xdsl": ("xdsl", "iree")}


def missing_extra(e: BaseException, command) -> str | None:
    """`'vsched fuzz' needs hypothesis: pip install ...` for an optional module that is not
    installed, else None."""
    if not isinstance(e, ModuleNotFoundError) or not e.name:
        return None
    extra = EXTRAS.get(e.name.split(".")[0])
    if extra is None:
        return None
    return f"'vsched {command}' needs {extra[0]}: pip install 'verified_sched[{extra[1]}]'"


def _guarded(fn, command):
    """fn, with a missing optional dependency turned into a usage error (exit 2)."""
    def run(args):
        try:
            return fn(args)
        except ModuleNotFoundError as e:
            message = missing_extra(e, command)
            if message is None:
                raise
            from ..core.errors import UsageError

            raise UsageError(message) from None
    return run


def main(argv=None) -> int:
    """Exit codes (verified_sched/core/exits.py): 0 legal/equal, 1 illegal/different, 2 usage or
    input error, 3 unknown (verify), 4 internal error (the traceback only with --debug)."""
    from ..core.exits import USAGE, run_guarded

    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    command = _command(argv)
    try:
        parser = build_parser(command or "")
    except ModuleNotFoundError as e:  # the command's module needs a missing extra
        message = missing_extra(e, command)
        if message is None:
            raise
        print(f"vsched: error: {message}", file=sys.stderr)
        return USAGE
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse printed the usage error
        return 0 if e.code in (0, None) else USAGE
    if args.command is None:
        parser.print_help(sys.stderr)
        return USAGE
    return run_guarded(_guarded(args.fn, args.command), args, debug, _runtime_errors)
