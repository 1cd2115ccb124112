"""Static checks of the package's architecture (docs/architecture.md), read from the source:

- `private_uses()`: every place a module imports a `_private` name from another module or
  uses `module._private` of another module (the rule: public names for what others use);
- `import_graph()` and `cycles()`: the module import graph (every `import`, at the top or
  inside a function, plus the package `__init__` files an import runs) and its strongly
  connected components of more than one module;
- `layer_of()`, `ALLOWED`, `layer_violations()`, `layer_graph()`: the layers of
  docs/architecture.md ("Layers") and every import that runs against their one direction;
- `long_files(limit)`: package files over `limit` lines.

    python tests/support/archcheck.py     # prints them all
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


_NODES: dict = {}  # (path, mtime, size) -> (import nodes, private attribute nodes): one walk per file


def _nodes(path: Path) -> tuple:
    """The file's import statements and its `name._private` attributes, from one walk of its
    tree (read once per process and file version)."""
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _NODES:
        imports, attributes = [], []
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imports.append(node)
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \
                    and isinstance(node.value, ast.Name):
                attributes.append(node)
        _NODES[key] = (imports, attributes)  # in ast.walk order, as before
    return _NODES[key]


def _imports(path: Path):
    """(line, imported module, imported name or None) for every import of the file."""
    mod = module_name(path)
    for node in _nodes(path)[0]:
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
        for node in _nodes(path)[1]:
            if node.value.id in aliases:
                target = aliases[node.value.id]
                if _is_module(target) and target != module_name(path):
                    out.append(f"{rel}:{node.lineno}: {target}.{node.attr}")
    return sorted(set(out))


def _run_packages(importer: str, target: str) -> list:
    """The package `__init__` modules that importing `target` runs from `importer`: every
    package above `target` that does not contain `importer` (those already ran)."""
    parts = target.split(".")
    out = []
    for k in range(1, len(parts)):
        pkg = ".".join(parts[:k])
        if not importer.startswith(pkg + ".") and importer != pkg:
            out.append(pkg)
    return out


_GRAPHS: dict = {}  # (ROOT, inits) -> graph: the tree does not change during a test run


def import_graph(inits: bool = True) -> dict:
    """module -> set of package modules it imports (anywhere in the file: at the top, inside a
    function, under TYPE_CHECKING), with (`inits`) the package `__init__` modules each of
    those imports runs. Read once per root (do not mutate the result)."""
    key = (str(ROOT), inits)
    if key not in _GRAPHS:
        _GRAPHS[key] = _import_graph(inits)
    return _GRAPHS[key]


def _import_graph(inits: bool) -> dict:
    mods = {module_name(p): p for p in package_files()}
    graph = {}
    for mod, path in mods.items():
        deps = set()
        for _line, src, name, _as in _imports(path):
            for cand in ([f"{src}.{name}"] if name else []) + [src]:
                if cand in mods:
                    deps.add(cand)
                    if inits:
                        deps.update(p for p in _run_packages(mod, cand) if p in mods)
                    break
        deps.discard(mod)
        graph[mod] = deps
    return graph


def cycles(graph=None) -> list:
    """The import cycles: strongly connected components of more than one module, sorted.
    Every edge counts, a package `__init__` importing its own submodules included."""
    graph = graph or import_graph()
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


# ---------------------------------------------------------------- layers

# The layers (docs/architecture.md "Layers"), and which layers each may import. A module's
# layer is its top-level package (polyhedral, smt, codegen) or its first sub-package of
# verified_sched; the package root and `__main__` are core and cli.
BELOW_APPS = {"core", "smt", "polyhedral", "codegen", "analysis", "values", "interp", "oracle", "ops", "dsl",
              "verify", "report"}
ALLOWED = {
    "core": set(),
    "smt": {"core"},                                  # engines: only core
    "polyhedral": {"core"},
    "codegen": {"core"},                              # backends: only core
    "analysis": {"core", "smt", "polyhedral"},
    "values": {"core", "smt", "polyhedral"},          # claims by value: both engines combined
    "interp": {"core", "analysis"},
    "oracle": {"core", "analysis", "interp", "codegen"},
    "ops": {"core", "smt", "polyhedral", "analysis"},
    "dsl": {"core", "analysis", "ops"},
    "verify": {"core", "smt", "polyhedral", "codegen", "analysis", "values", "interp", "oracle", "ops", "dsl"},
    "report": {"core", "smt", "polyhedral", "codegen", "analysis", "values", "interp", "oracle", "ops", "dsl",
               "verify"},
    "generators": BELOW_APPS,                         # the applications, in this order
    "mlir": BELOW_APPS | {"generators"},
    "fuzz": BELOW_APPS | {"generators", "mlir"},
    "gate": BELOW_APPS,
    "tune": BELOW_APPS | {"gate"},
    "cli": BELOW_APPS | {"generators", "mlir", "fuzz", "gate", "tune"},
}


# Front ends whose module path is fixed from outside: the pytest plugin is named by the installed
# `pytest11` entry point (verified_sched.gate.pytest_plugin), and runs `vsched run` like the CLI.
FRONT_ENDS = {"verified_sched.gate.pytest_plugin": "cli"}


def layer_of(module: str) -> str:
    if module in FRONT_ENDS:
        return FRONT_ENDS[module]
    parts = module.split(".")
    if parts[0] != "verified_sched":
        return parts[0]
    if len(parts) == 1:
        return "core"
    return "cli" if parts[1] == "__main__" else parts[1]


def layer_violations(graph=None) -> list:
    """(importer, imported) for every import (function-level and `__init__` included) that
    runs against the layers' direction, sorted; a module in no known layer is one too."""
    graph = graph or import_graph()
    out = []
    for mod, deps in graph.items():
        a = layer_of(mod)
        if a not in ALLOWED:
            out.append((mod, f"<no layer {a!r}>"))
            continue
        out += [(mod, d) for d in deps if layer_of(d) != a and layer_of(d) not in ALLOWED[a]]
    return sorted(out)


def layer_graph(graph=None) -> dict:
    """layer -> the layers its modules import (the package-level graph)."""
    graph = graph or import_graph()
    out = {layer_of(m): set() for m in graph}
    for mod, deps in graph.items():
        out[layer_of(mod)] |= {layer_of(d) for d in deps} - {layer_of(mod)}
    return out


def long_files(limit: int = 500) -> dict:
    return {str(p.relative_to(ROOT)): n for p in package_files()
            if (n := len(p.read_text().splitlines())) > limit}


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    print("private names used across modules:", *private_uses() or ["none"], sep="\n  ")
    print("import cycles:", *[" <-> ".join(c) for c in cycles()] or ["none"], sep="\n  ")
    print("imports against the layers:", *[f"{a} -> {b}" for a, b in layer_violations()] or ["none"],
          sep="\n  ")
    print("layer cycles:", *[" <-> ".join(c) for c in cycles(layer_graph())] or ["none"], sep="\n  ")
    print("files over 500 lines:", *[f"{k} {v}" for k, v in long_files().items()] or ["none"], sep="\n  ")
