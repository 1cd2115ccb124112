"""No dead or test-only code in the package (issue 24 item 5).

Every top-level definition (function, class, module-level constant) of the package modules
(verified_sched, polyhedral, smt, codegen) must be referenced somewhere in the packages: a
textual identifier search over the package sources (strings included, so the lazy COMMANDS
table and `__all__` count) and pyproject.toml (entry points), not counting the definition's
own text. A definition only tests use belongs in tests/support/ (or in its test); one nothing
uses is deleted. Public API named in the docs stays, listed in ALLOWED with its reason.

Pure ast + text: no package module is imported, so the test takes well under a second.
"""
from __future__ import annotations

import ast
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("verified_sched", "polyhedral", "smt", "codegen")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# (module path, name) -> why it stays although nothing in the packages refers to it
ALLOWED = {
    ("verified_sched/gate/pytest_plugin.py", "pytest_addoption"):
        "pytest hook: pytest calls it through pyproject's pytest11 entry point (docs/ci-gate.md)",
    ("verified_sched/gate/pytest_plugin.py", "pytest_configure"):
        "pytest hook: pytest calls it through pyproject's pytest11 entry point (docs/ci-gate.md)",
    ("verified_sched/gate/pytest_plugin.py", "pytest_collect_file"):
        "pytest hook: pytest calls it through pyproject's pytest11 entry point (docs/ci-gate.md)",
    ("verified_sched/core/semantics.py", "markdown"):
        "docs/testing.md: the semantics table's `markdown()` writes docs/semantics.md's table",
    ("verified_sched/verify/kernel_report.py", "file_report_json"):
        "docs/verification.md: `vsched verify --json`'s object of a list of reports, from Python",
    ("verified_sched/ops/winograd/apply.py", "random_atol"):
        "docs/ops/winograd.md: the tolerance of a random-input comparison of a winograd rewrite",
}
# dead, but in files another change owns now (issue 24 item 3, the declared op contract, moves
# these lists into the registry): remove them there, then drop them from here
PENDING: dict = {}  # (path, name) -> why it stays for now; empty since the op contract landed


def _package_files(root: Path) -> list:
    return sorted(p for d in PACKAGES for p in (root / d).rglob("*.py"))


def _defined(node) -> list:
    """The names a top-level statement defines (dunders excepted)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names = [node.name]
    elif isinstance(node, ast.Assign):
        names = [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        names = [node.target.id]
    else:
        names = []
    return [n for n in names if not (n.startswith("__") and n.endswith("__"))]


@lru_cache(maxsize=None)
def unreferenced(root: Path = ROOT) -> tuple:
    """(module path, line, name) of each top-level definition nothing in the packages names."""
    texts = {p: p.read_text(encoding="utf-8") for p in _package_files(root)}
    words = Counter(_WORD.findall((root / "pyproject.toml").read_text(encoding="utf-8")))
    for text in texts.values():
        words.update(_WORD.findall(text))
    found = []
    for path, text in texts.items():
        lines = text.splitlines(keepends=True)
        for node in ast.parse(text, str(path)).body:
            names = _defined(node)
            if not names:
                continue
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            own = Counter(_WORD.findall("".join(lines[start - 1:node.end_lineno])))
            found += [(path.relative_to(root).as_posix(), node.lineno, name)
                      for name in names if words[name] - own[name] <= 0]
    return tuple(found)


def test_every_package_definition_is_referenced_in_the_packages():
    dead = [f"{path}:{line}: {name}" for path, line, name in unreferenced()
            if (path, name) not in ALLOWED and (path, name) not in PENDING]
    assert not dead, ("defined in the package, referenced nowhere in it: delete it, or move it to "
                      "tests/support/ when only tests use it:\n  " + "\n  ".join(dead))


def test_the_allowlists_hold_only_unreferenced_definitions():
    """A stale entry (the name now has a caller, or is gone) is dropped from the lists."""
    dead = {(path, name) for path, _, name in unreferenced()}
    assert not (set(ALLOWED) | set(PENDING)) - dead


def test_allowed_public_api_is_named_in_the_docs():
    docs = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md"))
    for (_, name), why in ALLOWED.items():
        assert name in docs or name.startswith("pytest_"), (name, why)


def test_the_search_sees_a_dead_definition_and_not_a_used_one(tmp_path):
    pkg = tmp_path / "verified_sched"
    pkg.mkdir()
    (pkg / "a.py").write_text('"""A."""\nLIVE = 1\nDEAD = LIVE\n\n\n@wrap\ndef gone(x):\n    return gone(x)\n\n\n'
                              'def wrap(f):\n    return f\n\n\nCOMMANDS = {"x": "a:lazy"}\n\n\ndef lazy():\n    pass\n')
    (tmp_path / "pyproject.toml").write_text('[project.scripts]\nx = "verified_sched.a:main"\n')
    assert sorted(name for _, _, name in unreferenced(tmp_path)) == ["COMMANDS", "DEAD", "gone"]
