"""Quick emulation builds link the runtime's object instead of compiling the runtime into every
kernel (codegen/emulate_runtime.py, build.compile_object). The same definitions either way: a
linked build runs every GPU corpus kernel to the same bits and the same race, divergence and
out-of-bounds findings as the build with the runtime in its own unit; the object is built once
per flags and, in the cache, checked like a library. Work is counted, never timed."""
from __future__ import annotations

import numpy as np
import pytest

from codegen import build, emulate
from codegen.emulate import EmulationError, emit_emulated, load_emulated
from codegen.emulate_runtime import RUNTIME, RUNTIME_DECLARED, RUNTIME_OBJECT
from verified_sched.oracle.compare import random_inputs

from test_gpu_kernels import GPU_CASES, hardware_kernels, load_case, small_sizes


def _outcome(mod, kernel, program, sizes, seed):
    arrays = random_inputs(program, [kernel], sizes, seed)
    try:
        mod.run(kernel, sizes, arrays, seed=seed)
    except EmulationError as e:
        return type(e).__name__, str(e)
    return {k: v.tobytes() for k, v in arrays.items()}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(build, "OBJECTS", {})
    monkeypatch.setattr(emulate, "MEMO", {})
    return tmp_path / "c"


@pytest.mark.parametrize("case", GPU_CASES)
def test_linked_runtime_runs_like_the_runtime_in_the_kernels_unit(case, cache):
    """`quick` (-O0, runtime linked) against the optimized build (runtime in the unit, which
    quick_flags says gives the same bits): outputs and findings equal, detector off and on."""
    p = load_case(case)
    ran = 0
    for kernel, after in hardware_kernels(p):
        for det in (False, True):
            full = load_emulated(after, detect_races=det, kernels=[kernel.name])
            quick = load_emulated(after, detect_races=det, kernels=[kernel.name], quick=True)
            if "#pragma omp simd" in quick.source:
                continue  # quick keeps -O3 and the runtime in the unit there
            for sizes in small_sizes(p, 2):
                for seed in (0, 1, 2):
                    assert _outcome(quick, kernel.name, after, sizes, seed) == \
                        _outcome(full, kernel.name, after, sizes, seed)
            ran += 1
    assert ran, f"{case}: no kernel with hardware loops was run quick"


def test_the_runtime_object_is_built_once_per_flags_and_its_libraries_have_their_own_state(cache, monkeypatch):
    built = []
    real = build._build_object
    monkeypatch.setattr(build, "_build_object", lambda *a: built.append(a[3]) or real(*a))
    p = load_case("shared_missing_barrier")
    for det in (True, False, True):
        load_emulated(p, detect_races=det, quick=True)
    assert len(built) == 2  # with and without VS_RACE
    monkeypatch.setattr(build, "OBJECTS", {})  # a new process: from the disk cache, not rebuilt
    monkeypatch.setattr(emulate, "MEMO", {})
    a = load_emulated(p, detect_races=True, quick=True, seed=3)
    b = load_emulated(p, detect_races=False, quick=True)
    assert len(built) == 2
    # two libraries, two copies of the runtime's state: a finding in one leaves the other clean
    with pytest.raises(EmulationError):
        a.run("shift", {"B": 2}, random_inputs(p, ["shift"], {"B": 2}, 0))
    assert a.lib.vs_emu_status() != 0 and b.lib.vs_emu_status() == 0


def test_a_changed_runtime_object_in_the_cache_is_rebuilt_never_linked(cache, monkeypatch):
    p = load_case("shared_missing_barrier")
    load_emulated(p, detect_races=True, quick=True)
    (obj,) = cache.glob("*.o")
    obj.write_bytes(obj.read_bytes()[:-8] + b"\0" * 8)
    monkeypatch.setattr(build, "OBJECTS", {})
    monkeypatch.setattr(emulate, "MEMO", {})
    built = []
    real = build._build_object
    monkeypatch.setattr(build, "_build_object", lambda *a: built.append(a[3]) or real(*a))
    build.compile_object(RUNTIME_OBJECT, build.FLAGS + ("-DVS_RACE=1",))
    assert built


def test_the_linked_source_only_declares_the_runtime():
    p = load_case("shared_with_barrier")
    src = emit_emulated(p)
    linked = emit_emulated(p, linked=True)
    assert RUNTIME in src and RUNTIME not in linked and linked == src.replace(RUNTIME, RUNTIME_DECLARED, 1)
    assert "vs_fail(int code) {" not in linked and "vs_fail(int code) {" in RUNTIME_OBJECT
