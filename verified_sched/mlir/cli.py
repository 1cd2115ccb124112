"""`vsched import FILE.mlir [-o OUT.vs]` (registered by cli.build_parser through add_subparser)."""
from __future__ import annotations

import argparse
import sys


def add_subparser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("import", help="translate linalg-on-tensors MLIR into a .vs program",
                              description="Translate MLIR (func.func on tensors with linalg, tensor and "
                                          "arith ops, as torch-mlir produces) into a DSL program: one "
                                          "kernel per function, one global tensor per tensor value.")
    p.add_argument("file", metavar="FILE.mlir")
    p.add_argument("-o", "--output", metavar="OUT.vs", help="write here (default stdout)")
    p.set_defaults(fn=run_import)
    from . import check_pass_cli  # `vsched check-pass` (affine/scf/memref, verified_sched/mlir/check_pass.py)

    check_pass_cli.add_subparser(subparsers)
    return p


def run_import(args) -> int:
    from pathlib import Path

    from verified_sched.dsl.printer import print_program

    from .affine_import import import_affine_file, is_affine_file
    from .importer import import_mlir_file

    text = print_program(import_affine_file(args.file) if is_affine_file(args.file) else import_mlir_file(args.file))
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0
