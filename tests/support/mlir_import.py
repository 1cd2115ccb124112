"""MLIR text or a file to a Program, for the importer's tests (the package's own entries are
`Importer(...).run()` and `import_with_constants`)."""
from __future__ import annotations

from verified_sched.core import ir
from verified_sched.mlir.importer import Importer, import_with_constants


def import_mlir(text: str, filename: str = "<mlir>", params: bool = True, bind: dict | None = None) -> ir.Program:
    return Importer(text, filename, params, bind).run()


def import_mlir_file(path: str) -> ir.Program:
    return import_with_constants(path)[0]
