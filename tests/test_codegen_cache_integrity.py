"""Compile cache integrity (codegen/build.py): private folders, libraries loaded only when
their content hash matches their record, planted or changed libraries rebuilt."""
from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from codegen import build
from codegen.build import cache_dir, cached_library, compile_shared, file_sha256, load_c
from verified_sched.dsl import parse_text
from verified_sched.core.errors import UsageError

SRC = "#include <stdint.h>\nint64_t vs_answer(void) { return %d; }\n"
AXPY = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel axpy {
  for i in 0 .. N {
    y[i] = COEF * x[i]
  }
}
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(root))
    build.MEMO.clear()
    return root


def test_cache_dir_is_created_private(cache):
    folder = cache_dir()
    for p in (cache, folder):
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o700


def test_world_writable_cache_dir_is_made_private(cache):
    cache.mkdir(mode=0o777)
    os.chmod(cache, 0o777)
    (cache / "c").mkdir()
    os.chmod(cache / "c", 0o775)
    cache_dir()
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(cache / "c").st_mode) == 0o700


def test_cache_dir_of_another_user_is_refused(cache, monkeypatch):
    cache_dir()
    monkeypatch.setattr(os, "getuid", lambda: os.stat(cache).st_uid + 4242)
    with pytest.raises(UsageError, match="belongs to another user"):
        cache_dir()


def test_cache_dir_that_is_a_file_is_refused(cache):
    cache.write_text("not a folder")
    with pytest.raises(UsageError, match="compile cache"):
        cache_dir()


def test_library_is_stored_under_its_content_hash(cache):
    path, key, status = compile_shared(SRC % 1)
    assert status == "compiled"
    digest = (path.parent / f"{key}.sha256").read_text().strip()
    assert file_sha256(path) == digest and path.name == f"{key}-{digest[:32]}.so"
    assert cached_library(path.parent, key) == path
    assert compile_shared(SRC % 1)[2] == "disk"
    assert not [p for p in path.parent.iterdir() if p.name.startswith((".build-", ".tmp-"))]


def test_planted_library_is_rebuilt_never_loaded(cache):
    """Someone replaces a cached library with another one (same name): the hash no longer
    matches its record, so the next load rebuilds instead of loading it."""
    good, key, _ = compile_shared(SRC % 1)
    evil, _, _ = compile_shared(SRC % 666)
    data = evil.read_bytes()
    os.unlink(good)
    good.write_bytes(data)  # planted content under the trusted name
    assert cached_library(good.parent, key) is None
    path, _, status = compile_shared(SRC % 1)
    assert status == "compiled" and path == good and file_sha256(path) != file_sha256(evil)


def test_changed_record_is_rebuilt(cache):
    path, key, _ = compile_shared(SRC % 2)
    record = path.parent / f"{key}.sha256"
    record.write_text("0" * 64 + "\n")
    assert cached_library(path.parent, key) is None
    assert compile_shared(SRC % 2)[2] == "compiled"


def test_group_writable_library_is_not_trusted(cache):
    path, key, _ = compile_shared(SRC % 3)
    os.chmod(path, 0o777)
    assert cached_library(path.parent, key) is None
    assert compile_shared(SRC % 3)[2] == "compiled"


def test_truncated_library_is_rebuilt_and_kernel_still_correct(cache):
    program = parse_text(AXPY.replace("COEF", "3"))
    first = load_c(program)
    path = first.path
    data = path.read_bytes()
    os.unlink(path)  # a new inode: the loaded library stays mapped as it was
    path.write_bytes(data[:100])  # a torn file
    build.MEMO.clear()
    again = load_c(program)
    assert again.status == "compiled"
    x = np.arange(4, dtype=np.float32)
    arrays = {"x": x, "y": np.zeros(4, np.float32)}
    again.run("axpy", {"N": 4}, arrays)
    assert np.array_equal(arrays["y"], 3 * x)


def test_build_is_deterministic_so_racing_builds_agree(cache):
    """The compiler runs in the build folder on relative names: no random temporary path ends
    up in the library, so two builds of one source give the same bytes."""
    path, key, _ = compile_shared(SRC % 5)
    first = file_sha256(path)
    os.unlink(path.parent / f"{key}.sha256")
    path2, _, status = compile_shared(SRC % 5)
    assert status == "compiled" and file_sha256(path2) == first and path2 == path
