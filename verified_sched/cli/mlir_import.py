"""`vsched import FILE.mlir [-o OUT.vs]` (registered by cli.build_parser through add_subparser)."""
from __future__ import annotations

import argparse
import sys


def add_subparser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("import", help="translate linalg-on-tensors MLIR into a .vs program",
                              description="Translate MLIR (func.func on tensors with linalg, tensor and "
                                          "arith ops, as torch-mlir produces) into a DSL program: one "
                                          "kernel per function, one global tensor per tensor value; "
                                          "each non-splat constant (a parameter) becomes an input "
                                          "tensor whose values are written beside OUT.vs as OUT.NAME.npy.")
    p.add_argument("file", metavar="FILE.mlir")
    p.add_argument("-o", "--output", metavar="OUT.vs", help="write here (default stdout)")
    p.set_defaults(fn=run_import)
    return p


def run_import(args) -> int:
    from pathlib import Path

    from verified_sched.core.printer import print_program

    import numpy as np

    from verified_sched.core.errors import UsageError

    from ..mlir.affine_import import import_affine_file, is_affine_file
    from ..mlir.importer import import_with_constants

    if is_affine_file(args.file):
        program, constants = import_affine_file(args.file), {}
    else:
        program, constants = import_with_constants(args.file)
    text = print_program(program)
    if args.output in (None, "-"):
        if constants:
            raise UsageError(f"{args.file} has {len(constants)} non-splat constant(s) (parameters: "
                             f"{', '.join(constants)}): give -o OUT.vs, beside which each is written as OUT.NAME.npy")
        sys.stdout.write(text)
        return 0
    Path(args.output).write_text(text)
    for name, values in constants.items():
        np.save(constant_path(args.output, name), values)
    return 0


def constant_path(program_path: str, tensor: str) -> str:
    """Where `vsched import -o OUT.vs` keeps the values of parameter `tensor`: OUT.TENSOR.npy
    (`vsched exec OUT.vs` loads it for a tensor not given with --in)."""
    from pathlib import Path

    p = Path(program_path)
    return str(p.with_name(f"{p.stem}.{tensor}.npy"))
