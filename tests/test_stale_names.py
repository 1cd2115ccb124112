"""Module paths and dotted module names written in prose name what exists (issue 24: the layer
move left docstrings, comments and docs naming `verified_sched/semantics.py`,
`codegen/oracle.py`, `polyhedral/claims_value.py`, ...). The check is tests/support/pathrefs.py."""
from __future__ import annotations

from support import pathrefs


def test_no_stale_module_paths_after_the_layer_move():
    assert pathrefs.stale() == []


def test_the_check_reads_the_package_docs_and_readme():
    names = {p.relative_to(pathrefs.ROOT).as_posix() for p in pathrefs.sources()}
    assert {"README.md", "docs/architecture.md", "docs/ops/winograd.md", "verified_sched/values/claims_value.py",
            "polyhedral/checks.py", "smt/fp.py", "codegen/c.py", "benchmarks/semantic_mutants.py"} <= names


def _tree(root, files: dict) -> list:
    out = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        out.append(path)
    return out


def test_the_check_finds_stale_paths_and_module_names(tmp_path):
    files = _tree(tmp_path, {
        "verified_sched/__init__.py": "",
        "verified_sched/core/__init__.py": "",
        "verified_sched/core/ir.py": "X = 1\ndef walk():\n    pass\n",
        "polyhedral/__init__.py": "",
        "polyhedral/checks.py": (
            '"""Uses verified_sched/core/ir.py, ir.py and checks.py, formerly `polyhedral/old.py`."""\n'
            "# see verified_sched.core.ir.walk, verified_sched.core.ir.gone, verified_sched.semantics\n"
            "A = 'polyhedral/gone.py'\n"),
        "docs/a.md": ("`polyhedral/checks.py` and `core/ir.py`; `smt/fp.py`;\n"
                      "`codegen/old.py` -> `polyhedral/checks.py`; `verified_sched.core.ir.X`\n\n"
                      "Moved (old -> new): `verified_sched/semantics.py` ->\n`core/semantics.py`.\n\n"
                      "## Renames (old -> new)\n\n| verified_sched.rewrites | x |\n\n## Next\n\n"
                      "`polyhedral.checks.A` (now `x`), `codegen.gone` at last\n"),
    })
    found = pathrefs.stale(files, root=tmp_path)
    assert found == sorted([
        "docs/a.md:1: smt/fp.py",
        "docs/a.md:13: codegen.gone",
        "polyhedral/checks.py:1: ir.py",  # a bare name in a package source: beside it, or say where
        "polyhedral/checks.py:2: verified_sched.core.ir.gone",
        "polyhedral/checks.py:2: verified_sched.semantics",
        "polyhedral/checks.py:3: polyhedral/gone.py",
    ])
