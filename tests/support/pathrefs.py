"""Repository paths and module names written in prose, and the ones that name nothing (stale
after a move): every `dir/.../x.py` or `x.py` path and every dotted module name of the four
packages (`verified_sched.a.b`, `polyhedral.x`, `smt.x`, `codegen.x`, optionally followed by
one of the module's top-level names) in the package and benchmarks sources (read whole:
docstrings, comments and strings; code outside them names only modules that import), and in
README.md and docs/**/*.md.

A path resolves when some file of the repository ends with it (`ops/split.py`), a bare name
in a package source when it is a file beside that source (elsewhere: any file of that name);
a dotted name when its longest module prefix exists and the next part, if any, is a top-level
name of that module (or a submodule of that package). History may name what is gone: a name
right after "formerly" or right before "->" or "(now" (the old side of a move), and a
paragraph or section whose first line says "(old -> new)", are not checked.

    python tests/support/pathrefs.py     # prints FILE:LINE: name for every stale one
"""
from __future__ import annotations

import ast
import re
import sys
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("verified_sched", "polyhedral", "smt", "codegen")
# files named in the docs that are not the repository's: a reproducer script printed inline
NOT_IN_REPOSITORY = {"tm_groups.py"}

PATH = re.compile(r"(?<![\w./-])((?:[A-Za-z_]\w*/)*[A-Za-z_]\w*\.py)(?![\w/])")
DOTTED = re.compile(r"(?<![\w./-])((?:%s)(?:\.[A-Za-z_]\w*)+)" % "|".join(PACKAGES))
OLD_BEFORE = re.compile(r"formerly\s+`?$")
OLD_AFTER = re.compile(r"^`?\s*(->|\(now\b)")


def sources() -> list:
    """The files whose prose is checked: package and benchmarks .py files, README.md, docs."""
    py = [p for d in PACKAGES + ("benchmarks",) for p in (ROOT / d).rglob("*.py")]
    return sorted(py) + [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


@lru_cache(maxsize=None)
def _py_paths(root: Path) -> frozenset:
    """Every .py file of the repository and every tail of its path (`a/b/c.py`, `b/c.py`, `c.py`)."""
    out = set()
    for p in root.rglob("*.py"):
        parts = p.relative_to(root).parts
        if not any(part.startswith(".") or part == "__pycache__" for part in parts):
            out.update("/".join(parts[k:]) for k in range(len(parts)))
    return frozenset(out)


def path_exists(path: str, root: Path = None) -> bool:
    return path in NOT_IN_REPOSITORY or path in _py_paths(root or ROOT)


@lru_cache(maxsize=None)
def _top_names(file: Path) -> frozenset:
    names = set()
    for node in ast.parse(file.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names)


def module_exists(dotted: str, root: Path = None) -> bool:
    root = root or ROOT
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        base = root.joinpath(*parts[:k])
        file = base / "__init__.py" if (base / "__init__.py").exists() else base.with_suffix(".py")
        if not file.exists():
            continue
        if k == len(parts):
            return True
        nxt = parts[k]
        return nxt in _top_names(file) or (base / nxt).with_suffix(".py").exists() or (base / nxt / "__init__.py").exists()
    return False


def _prose(path: Path) -> str:
    """The text checked of one file: a .py file whole, a markdown file less its "(old -> new)"
    paragraphs and sections (blanked, so line numbers stay)."""
    text = path.read_text()
    if path.suffix == ".py":
        return text
    lines, skip, out = text.splitlines(), None, []
    for i, line in enumerate(lines):
        heading = re.match(r"#+ ", line)
        if skip == "section" and heading:
            skip = None
        elif skip == "paragraph" and not line.strip():
            skip = None
        if skip is None and "(old -> new)" in line and (heading or i == 0 or not lines[i - 1].strip()):
            skip = "section" if heading else "paragraph"
        out.append("" if skip else line)
    return "\n".join(out)


def stale(paths=None, root: Path = None) -> list:
    """'file:line: name' for every path or module name in prose that names nothing."""
    root = root or ROOT
    out = []
    for path in paths or sources():
        beside = path.suffix == ".py" and path.relative_to(root).parts[0] in PACKAGES
        text = _prose(path)
        for regex, exists in ((PATH, path_exists), (DOTTED, module_exists)):
            for m in regex.finditer(text):
                name = m.group(1)
                if OLD_BEFORE.search(text[max(0, m.start() - 20):m.start()]) or OLD_AFTER.match(text[m.end():m.end() + 8]):
                    continue
                if not exists(name, root) or (beside and regex is PATH and "/" not in name
                                              and name not in NOT_IN_REPOSITORY and not (path.parent / name).exists()):
                    out.append(f"{path.relative_to(root).as_posix()}:{1 + text.count(chr(10), 0, m.start())}: {name}")
    return sorted(set(out))


if __name__ == "__main__":
    found = stale()
    print(*found or ["no stale names"], sep="\n")
    sys.exit(1 if found else 0)
