"""Static checks of the package's architecture (docs/architecture.md), read from the source:

- `private_uses()`: every place a module imports a `_private` name from another module or
  uses `module._private` of another module (the rule: public names for what others use);
- `import_graph()` and `cycles()`: the module import graph (every `import`, at the top or
  inside a function) and its strongly connected components of more than one module;
- `long_files(limit)`: package files over `limit` lines.

    python tests/support/archcheck.py     # prints all three
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("verified_sched", "polyhedral", "smt", "codegen")


def package_files() -> list:
    return sorted(p for d in PACKAGES for p in (ROOT / d).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package(mod: str) -> bool:
    return (ROOT.joinpath(*mod.split(".")) / "__init__.py").exists()


def _is_module(mod: str) -> bool:
    p = ROOT.joinpath(*mod.split("."))
    return p.with_suffix(".py").exists() or (p / "__init__.py").exists()


def _resolve(mod: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = mod.split(".") if _is_package(mod) else mod.split(".")[:-1]
    base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(path: Path):
    """(line, imported module, imported name or None) for every import of the file."""
    mod = module_name(path)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name, None, a.asname
        elif isinstance(node, ast.ImportFrom):
            src = _resolve(mod, node)
            for a in node.names:
                yield node.lineno, src, a.name, a.asname


def private_uses(paths=None) -> list:
    """'file:line: what' for every cross-module use of a private name."""
    out = []
    for path in paths or package_files():
        rel = path.relative_to(ROOT)
        aliases = {}
        for line, src, name, asname in _imports(path):
            if name is None:
                aliases[asname or src.split(".")[0]] = src if asname else src.split(".")[0]
                continue
            if name.startswith("_") and not name.startswith("__"):
                out.append(f"{rel}:{line}: from {src} import {name}")
            full = f"{src}.{name}"
            aliases[asname or name] = full
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \
                    and isinstance(node.value, ast.Name) and node.value.id in aliases:
                target = aliases[node.value.id]
                if _is_module(target) and target != module_name(path):
                    out.append(f"{rel}:{node.lineno}: {target}.{node.attr}")
    return sorted(set(out))


def import_graph() -> dict:
    """module -> set of package modules it imports (anywhere in the file)."""
    mods = {module_name(p): p for p in package_files()}
    graph = {}
    for mod, path in mods.items():
        deps = set()
        for _line, src, name, _as in _imports(path):
            for cand in ([f"{src}.{name}"] if name else []) + [src]:
                if cand in mods:
                    deps.add(cand)
                    break
        deps.discard(mod)
        graph[mod] = deps
    return graph


def cycles(graph=None, top_level_only: bool = False) -> list:
    """The import cycles: strongly connected components of more than one module, sorted.
    A package's `__init__` importing its own submodules is not counted as a cycle edge."""
    graph = graph or import_graph()
    graph = {m: {d for d in ds if not d.startswith(m + ".")} for m, ds in graph.items()}
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def strong(v):  # Tarjan's algorithm (recursion depth: the package's module count)
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return sorted(comps)


def long_files(limit: int = 500) -> dict:
    return {str(p.relative_to(ROOT)): n for p in package_files()
            if (n := len(p.read_text().splitlines())) > limit}


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    print("private names used across modules:", *private_uses() or ["none"], sep="\n  ")
    print("import cycles:", *[" <-> ".join(c) for c in cycles()] or ["none"], sep="\n  ")
    print("files over 500 lines:", *[f"{k} {v}" for k, v in long_files().items()] or ["none"], sep="\n  ")
