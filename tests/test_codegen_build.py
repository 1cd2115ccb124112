"""The build/run layer: boundary checks, the content-hash cache, foreign libraries."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from codegen import build
from codegen.build import compile_shared, load_c, load_shared
from verified_sched.dsl import parse_text
from verified_sched.core.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]

AXPY = """
params N where N >= 2
tensor x[N] f32
tensor y[N, 2] f32 pad(0, 1)
kernel axpy {
  for i in 0 .. N {
    y[i, 0] = 2 * x[i] + y[i, 1]
  }
}
"""


def arrays(n=4):
    return {"x": np.arange(n, dtype=np.float32), "y": np.ones((n, 3), np.float32)}


@pytest.fixture()
def module():
    return load_c(parse_text(AXPY))


def test_runs_in_place(module):
    a = arrays()
    module.run("axpy", {"N": 4}, a)
    assert np.array_equal(a["y"][:, 0], 2 * np.arange(4) + 1)


def test_float64_array_for_f32_tensor_is_refused(module):
    a = arrays()
    a["x"] = a["x"].astype(np.float64)
    with pytest.raises(UsageError, match=r"tensor x is f32: expected dtype float32, got float64"):
        module.run("axpy", {"N": 4}, a)


def test_shape_mismatch_names_tensor_and_both_shapes(module):
    a = arrays()
    a["y"] = np.ones((4, 2), np.float32)  # forgot the padding column
    with pytest.raises(UsageError, match=r"tensor y: expected shape \(4, 3\).*got \(4, 2\)"):
        module.run("axpy", {"N": 4}, a)


@pytest.mark.parametrize("case, pattern", [
    ("noncontig", "C-contiguous"),
    ("missing", "missing array for tensor x"),
    ("extra", "not a global tensor"),
    ("constraint", "violate"),
    ("size", "missing size for parameter N"),
    ("kernel", "no kernel 'nope'"),
    ("list", "expected a numpy array"),
])
def test_boundary_errors(module, case, pattern):
    a, sizes, kernel = arrays(), {"N": 4}, "axpy"
    match case:
        case "noncontig":
            a["x"] = np.arange(8, dtype=np.float32)[::2]
        case "missing":
            del a["x"]
        case "extra":
            a["q"] = a["x"]
        case "constraint":
            sizes = {"N": 1}
            a = arrays(1)
        case "size":
            sizes = {}
        case "kernel":
            kernel = "nope"
        case "list":
            a["x"] = [0.0] * 4
    with pytest.raises(UsageError, match=pattern):
        module.run(kernel, sizes, a)


def test_second_load_does_not_recompile(tmp_path, monkeypatch):
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(tmp_path))
    program = parse_text(AXPY.replace("2 * x[i]", "5 * x[i]"))
    first = load_c(program)
    second = load_c(program)
    assert (first.status, second.status) == ("compiled", "memory")
    assert first.path == second.path and first.path.parent == tmp_path / "c"
    mtime = first.path.stat().st_mtime_ns
    # a fresh process finds the library on disk
    out = subprocess.run([sys.executable, "-c", LOADER], env=_env(tmp_path, "5 * x[i]"),
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["disk", "ok"]
    assert first.path.stat().st_mtime_ns == mtime


LOADER = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r})
import numpy as np
from codegen.build import load_c
from verified_sched.dsl import parse_text
text = {AXPY!r}.replace("2 * x[i]", os.environ["VS_TEST_COEF"])
m = load_c(parse_text(text))
a = {{"x": np.arange(4, dtype=np.float32), "y": np.ones((4, 3), np.float32)}}
m.run("axpy", {{"N": 4}}, a)
print(m.status, "ok" if a["y"][3, 0] != 1 else "bad")
"""


def _env(cache: Path, coef: str) -> dict:
    env = dict(os.environ)
    env.update(VSCHED_CACHE_DIR=str(cache), VS_TEST_COEF=coef)
    return env


def test_cache_shared_by_two_processes_at_once(tmp_path):
    env = _env(tmp_path, "7 * x[i]")
    procs = [subprocess.Popen([sys.executable, "-c", LOADER], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    statuses = sorted(out.split()[0] for out, _ in results)
    assert all(out.split()[1] == "ok" for out, _ in results)
    assert statuses in (["compiled", "compiled"], ["compiled", "disk"])
    files = sorted(p.name for p in (tmp_path / "c").iterdir())
    assert len([f for f in files if f.endswith(".so")]) == 1, files
    assert not [f for f in files if f.startswith(".build-")], files


def test_cache_key_covers_flags():
    assert build.cache_key("int x;") != build.cache_key("int x;", build.FLAGS + ("-g",))
    assert build.cache_key("int x;") == build.cache_key("int x;")


def test_foreign_shared_library_symbol(tmp_path, monkeypatch):
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(tmp_path))
    program = parse_text(AXPY)
    source = """#include <stdint.h>
void my_axpy(int64_t N, float *x, float *y) {
  for (int64_t i = 0; i < N; i++) y[i * 3] = 2 * x[i] + y[i * 3 + 1];
}
"""
    path, _, _ = compile_shared(source)
    foreign = load_shared(program, path, {"axpy": "my_axpy"})
    a = arrays()
    foreign.run("axpy", {"N": 4}, a)
    assert np.array_equal(a["y"][:, 0], 2 * np.arange(4) + 1)
    with pytest.raises(UsageError, match="no shared library"):
        load_shared(program, tmp_path / "missing.so")
    with pytest.raises(UsageError, match="no symbol 'vs_axpy'"):
        load_shared(program, path)


def test_compile_error_is_an_internal_error(tmp_path, monkeypatch):
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(tmp_path))
    from verified_sched.core.errors import InternalError
    with pytest.raises(InternalError, match="C compilation failed"):
        compile_shared("this is not C;")
    assert not [p for p in (tmp_path / "c").iterdir()]
