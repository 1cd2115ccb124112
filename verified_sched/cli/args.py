"""The parsers of the built-in subcommands of `vsched` (verify, show, emit, run, exec), each
registered on the CLI's subparsers by its `add_*` function when that command runs (cli.COMMANDS),
and the argument types they share."""
from __future__ import annotations

import argparse

from .. import cli

TARGETS = ("c", "cuda", "emulate", "interp", "iree")
HELP = {name: help_ for name, (_, _, help_) in cli.COMMANDS.items()}

EXIT_CODES = """exit codes:
  0  legal: every obligation proved (for several files: all of them)
  1  illegal: an obligation refuted, with a counterexample that `vsched run`/`exec` replays
  2  usage or input error (FILE:LINE:COL: message)
  3  unknown: nothing refuted, something not proved within the budget (never legal)
  4  internal error (a bug in vsched; --debug prints the traceback)
several files exit with the worst code: 4, 2, 1, 3, 0 in that order"""


def add_verify(sub) -> None:
    from ..core import memlimit
    from ..core.budget import DEFAULT_TIMEOUT
    from ..core.profiles import PROFILES
    from ..core.target_limits import SHARED_LIMIT

    p = sub.add_parser("verify", help=HELP["verify"], epilog=EXIT_CODES,
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Prove every schedule op and claim of each file (isl and z3), or refute "
                                   "it with a counterexample. The text report lists each obligation: "
                                   "status, kind, engine, seconds, message (`vsched explain KIND`).")
    p.add_argument("files", nargs="+", metavar="FILE|DIR", help="files, or directories (their *.vs, recursively)")
    p.add_argument("--json", action="store_true", help="one JSON object per file (--format json)")
    p.add_argument("--profile", choices=PROFILES, help="override the file's profile")
    p.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT, metavar="S", help="seconds per kernel")
    p.add_argument("--max-memory", type=memlimit.byte_count, default=None, metavar="BYTES",
                   help="address-space cap, e.g. 4G (default: 75%% of RAM more than mapped now)")
    p.add_argument("--shared-limit", type=count, default=SHARED_LIMIT, metavar="BYTES",
                   help=f"shared memory a block may use (hardware_limits; default {SHARED_LIMIT})")
    from ..gate import runner as gate_runner  # the CI gate (README "CI gate")

    gate_runner.add_arguments(p)
    p.set_defaults(fn=cli.cmd_verify)


def add_show(sub) -> None:
    p = sub.add_parser("show", help=HELP["show"])
    p.add_argument("file", metavar="FILE")
    p.add_argument("--after", type=count, default=0, metavar="K",
                   help="apply the first K ops of each schedule and print the result, the remaining "
                        "ops as its schedule (default 0: the program as written)")
    p.add_argument("--kernel", metavar="K", help="apply only this kernel's schedule")
    p.set_defaults(fn=cli.cmd_show)


def add_emit(sub) -> None:
    p = sub.add_parser("emit", help=HELP["emit"])
    p.add_argument("file", metavar="FILE")
    p.add_argument("--target", choices=("c", "cuda", "mlir"), default="c",
                   help="c: C99 (default); cuda: CUDA C++ for the hardware loops; mlir: linalg on "
                        "tensors at the --size sizes")
    p.add_argument("--after", type=count, default=None, metavar="K",
                   help="apply only the first K ops of each schedule (default: all; 0: as written)")
    p.add_argument("--size", metavar="N=37,M=20", help="--target mlir: the static sizes")
    p.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")
    p.set_defaults(fn=cli.cmd_emit)


def add_run(sub) -> None:
    p = sub.add_parser("run", help=HELP["run"])
    p.add_argument("file", metavar="FILE")
    p.add_argument("--size", metavar="N=37,M=20", help="default: three small size sets")
    p.add_argument("--target", choices=TARGETS, default="c",
                   help="what runs the scheduled side: c (compiled, bounds-checked; default), cuda, "
                        "emulate (GPU kernels on the CPU), interp (the interpreter), iree")
    p.add_argument("--seed", type=count, default=0, metavar="S",
                   help="seed of the random inputs (and of the emulator's thread order); default 0")
    p.add_argument("--inputs", choices=("random", "small-int", "special", "special-finite"), default="random",
                   help="random floats (default), small integers (exact sums: bitwise comparisons), "
                        "special: the seed's pattern of -0.0, NaN, infinities, extremes; "
                        "special-finite: the finite ones (for the finite profile)")
    p.add_argument("--set", dest="set_values", action="append", default=[], metavar="NAME[i]=V",
                   help="an input cell's value (a counterexample's: -0.0, inf, nan, 1e300, 0x1p-3)")
    p.add_argument("--kernel", metavar="K",
                   help="compare only this kernel (its schedule, or C against the interpreter); "
                        "default: every claim and schedule")
    p.add_argument("--races", action="store_true", help="with --target emulate: the race detector")
    p.add_argument("--cflags", default="", metavar="FLAGS",
                   help="extra C flags (target c), e.g. '-march=native'; -ffp-contract=fast only under "
                        "the approximate profile")
    p.set_defaults(fn=cli.cmd_run)


def add_exec(sub) -> None:
    p = sub.add_parser("exec", help=HELP["exec"])
    p.add_argument("file", metavar="FILE")
    p.add_argument("--kernel", required=True, metavar="K")
    p.add_argument("--size", metavar="N=37", help="default: inferred from the arrays' shapes")
    p.add_argument("--in", dest="inputs", action="append", default=[], metavar="NAME=a.npy",
                   help="initial value of global tensor NAME (storage or logical shape; repeatable; "
                        "tensors not given start at zero)")
    p.add_argument("--out", dest="outputs", action="append", default=[], metavar="NAME=b.npy",
                   help="write tensor NAME's final value (logical shape) here; repeatable, at least one")
    p.add_argument("--target", choices=("c", "interp"), default="c")
    p.add_argument("--seed", type=count, default=0, metavar="S")
    p.set_defaults(fn=cli.cmd_exec)



def count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return int(text)


def seconds(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive, finite number of seconds, got {text!r}")
    return value
