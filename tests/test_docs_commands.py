"""Every command in the docs runs, as written, with the exit code the docs give it.

A fenced block whose info string is `sh` holds commands to run: each non-empty line that is not
a comment is one command (a leading `$ ` is dropped), run with `bash` in a scratch folder that
holds a copy of `examples/` and `tests/cases/`, with `vsched` meaning this checkout's
`python -m verified_sched`. A trailing `# exit N` (or `# exit N: why`) states the expected exit
code; otherwise it is 0. Blocks of synopsis or placeholders (`FILE`, `[--opt]`) are `text`
blocks and are not run; `shell` blocks are commands that need the files of the blocks around
them or only upstream tools (the bmm recipe of docs/mlir.md: tests/test_mlir_import.py; the
reproducers of docs/upstream-bugs.md: the strict xfails it names). The README's first block (install, test) is what CI runs.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
SKIP_PREFIXES = ("pip ", "python -m pytest", "cd ", "git ")


def _blocks(path: Path):
    """(first line number, info string, lines) of each fenced block."""
    info, start, body = None, 0, []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            if info is None:
                info, start, body = line[3:].strip(), n, []
            else:
                yield start, info, body
                info = None
        elif info is not None:
            body.append((n, line))


def doc_blocks():
    """One param per `sh` block: its commands, each with the exit code the docs give it."""
    found = []
    for path in DOCS:
        for k, (start, info, body) in enumerate(_blocks(path)):
            if info != "sh" or (path.name == "README.md" and path.parent == REPO and k == 0):
                continue
            commands = []
            for n, line in body:
                text = line.strip()
                if text.startswith("$ "):
                    text = text[2:]
                if not text or text.startswith("#") or text.startswith(SKIP_PREFIXES):
                    continue
                m = re.search(r"\s#\s*exit (\d+)\b.*$", text)
                commands.append((re.sub(r"\s+#.*$", "", text), int(m.group(1)) if m else 0))
            if commands:
                found.append(pytest.param(commands, id=f"{path.relative_to(REPO)}:{start}"))
    return found


BLOCKS = doc_blocks()


def test_the_docs_have_commands_to_run():
    assert sum(len(b.values[0]) for b in BLOCKS) >= 15


@pytest.fixture(scope="module")
def docs_cache(tmp_path_factory) -> Path:
    """One proof and compile cache for every block, so a folder is verified once: under xdist,
    one for the session's workers together (in the folder above each worker's own; entries are
    written atomically, so parallel workers share it: docs/semantics.md), else this module's."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        cache = tmp_path_factory.getbasetemp().parent / "docs-cache"
        cache.mkdir(exist_ok=True)
        return cache
    return tmp_path_factory.mktemp("docs-cache")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    root = tmp_path_factory.mktemp("docs")
    shutil.copytree(REPO / "examples", root / "examples")
    shutil.copytree(REPO / "tests" / "cases", root / "tests" / "cases")
    shutil.copytree(REPO / "tests" / "fixtures", root / "tests" / "fixtures")
    return root


@pytest.mark.parametrize("commands", BLOCKS)
def test_doc_commands_run_as_written(scratch, docs_cache, tmp_path, commands):
    """The block's commands run in order in one folder (a later one may read what an earlier
    one wrote), each with its stated exit code and no traceback."""
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "vsched").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m verified_sched "$@"\n')
    (shim / "vsched").chmod(0o755)
    env = dict(os.environ, PATH=f"{shim}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
               VSCHED_CACHE_DIR=str(docs_cache))
    work = tmp_path / "work"
    shutil.copytree(scratch, work)
    for command, code in commands:
        p = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True,
                           timeout=300, stdin=subprocess.DEVNULL)
        assert p.returncode == code, f"{command}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}"
        assert "Traceback" not in p.stderr, command
