"""CUDA backend: structure of the emitted code (always) and nvcc compile-only checks with the
ptxas shared-memory report (skipped where nvcc is absent)."""
from __future__ import annotations

import os
import re

import pytest

from codegen.build import load_c
from codegen.cuda import emit_cuda, load_cuda, nvcc
from support.nvcc import compile_cuda
from verified_sched.oracle.compare import compare_kernels
from verified_sched.core.errors import UsageError

from test_gpu_kernels import (GPU_CASES, has_hw, load_case, misc_program, scheduled, tensor_core_program,
                              tiled_program)

needs_nvcc = pytest.mark.skipif(nvcc() is None, reason="nvcc not installed")


def host_part(src: str, kernel: str) -> str:
    start = src.index(f'extern "C" int vs_launch_{kernel}(')
    return src[start:src.index("\n}\n", start)]


def smem_report(stderr: str) -> dict:
    """Entry function (mangled name contains the kernel name) -> shared bytes, from -Xptxas -v."""
    out, current = {}, None
    for line in stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = m.group(1)
        m = re.search(r"(\d+) bytes smem", line)
        if m and current:
            out[current] = int(m.group(1))
    return out


def test_shared_with_barrier_structure():
    src = emit_cuda(load_case("shared_with_barrier"))
    assert "__global__ void vs_shift_L0(int64_t B, float *__restrict__ x, float *__restrict__ y, int *vs_err)" in src
    assert "__shared__ float t[64];" in src
    assert "const int64_t b = (int64_t)blockIdx.x;" in src and "const int64_t i = (int64_t)threadIdx.x;" in src
    assert "if (i < 63)" in src  # the shorter thread loop is guarded ...
    assert "__syncthreads();" in src and "__syncthreads_count" not in src  # ... the barrier is not
    assert 'extern "C" int vs_launch_shift(int64_t B, float *h_x, float *h_y)' in src


def test_every_cuda_call_is_checked():
    for src, kernel in ((emit_cuda(load_case("shared_with_barrier")), "shift"),
                        (emit_cuda(tiled_program()), "tiled")):
        host = host_part(src, kernel)
        assert re.search(r"\bcuda[A-Z]\w*\(", host)
        for line in host.splitlines():
            for call in re.findall(r"\b(cuda[A-Z]\w*)\(", line):
                if call == "cudaGetErrorString":
                    continue
                checked = f"VS_CHECK({call}(" in line or re.search(rf"cudaError_t vs_e = {call}\(", line)
                assert checked, f"unchecked CUDA call: {line.strip()}"
        assert "<<<" in host and "cudaGetLastError" in host and "cudaDeviceSynchronize" in host


def test_divergent_barrier_is_counted_not_guarded():
    src = emit_cuda(load_case("barrier_divergent"))
    assert "__syncthreads_count(" in src and "vs_report(vs_err, 1, 0," in src
    assert re.search(r"if \([^\n]*\) \{\n\s*__syncthreads\(\)", src) is None


def test_launch_geometry_and_zero():
    src = emit_cuda(tiled_program())
    host = host_part(src, "tiled")
    assert "VS_CHECK(cudaMemset(d_c, 0, vs_n_c));" in host  # a top-level zero
    assert "vs_g[1] = vs_max_i64(vs_g[1], TN);" in host and "vs_g[0] = vs_max_i64(vs_g[0], TM);" in host
    assert "vs_t[0] = vs_max_i64(vs_t[0], 16);" in host and "vs_t[1] = vs_max_i64(vs_t[1], 16);" in host
    # every loop of an axis shares one extent: no guards, plain barriers
    dev = src[src.index("__global__ void vs_tiled_L1"):src.index('extern "C" int vs_launch_tiled(')]
    assert "__syncthreads_count" not in dev and dev.count("__syncthreads();") == 3
    tri = emit_cuda(misc_program(), ["triangle"])
    assert "for (int64_t vs_hx = 0; vs_hx < vs_g[0]; vs_hx++)" in tri  # thread extents per block


def test_tensor_core_fallback_under_lane_zero():
    src = emit_cuda(tensor_core_program(), ["tc"])
    assert "if (lane == 0) {" in src


def gpu_case_programs():
    """(label, program, kernel) for every GPU-typed corpus kernel whose schedule is available."""
    out = []
    for case in GPU_CASES:
        p = load_case(case)
        for k in p.kernels:
            after = scheduled(p, k.name) if p.schedule_for(k.name) else p
            if after is not None and has_hw(after, k.name):
                out.append((f"{case}:{k.name}", after, k.name))
    return out


@needs_nvcc
def test_corpus_gpu_kernels_compile_with_nvcc(tmp_path):
    progs = gpu_case_programs()
    assert {label for label, _, _ in progs} >= {"shared_with_barrier:shift", "shared_missing_barrier:shift",
                                                "barrier_divergent:shift"}
    for i, (label, program, kernel) in enumerate(progs):
        folder = tmp_path / str(i)
        folder.mkdir()
        proc = compile_cuda(emit_cuda(program, [kernel]), folder)
        assert proc.returncode == 0, f"{label}:\n{proc.stderr[-3000:]}"


@needs_nvcc
def test_shared_memory_report_matches_tiles(tmp_path):
    proc = compile_cuda(emit_cuda(load_case("shared_with_barrier")), tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = smem_report(proc.stderr)
    (shift,) = [v for k, v in report.items() if "vs_shift_L0" in k]
    assert shift == 64 * 4
    (tmp_path / "t").mkdir()
    proc = compile_cuda(emit_cuda(tiled_program(), ["tiled"]), tmp_path / "t")
    assert proc.returncode == 0, proc.stderr[-3000:]
    (tiled,) = [v for k, v in smem_report(proc.stderr).items() if "vs_tiled_L1" in k]
    assert tiled == 2 * 16 * 16 * 4


@needs_nvcc
def test_misc_kernels_compile(tmp_path):
    proc = compile_cuda(emit_cuda(misc_program()), tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (tmp_path / "l").mkdir()
    proc = compile_cuda(emit_cuda(tiled_program(), ["tiled_local"]), tmp_path / "l")
    assert proc.returncode == 0, proc.stderr[-3000:]


def _has_gpu() -> bool:
    return os.path.exists("/dev/nvidia0")


@needs_nvcc
def test_launcher_runs_or_reports_the_missing_gpu():
    p = load_case("shared_with_barrier")
    mod = load_cuda(p)
    if not _has_gpu():
        from verified_sched.oracle.compare import random_inputs

        with pytest.raises(UsageError, match="CUDA call failed"):
            mod.run("shift", {"B": 2}, random_inputs(p, None, {"B": 2}, 0))
        return
    for sizes in ({"B": 1}, {"B": 7}):
        report = compare_kernels(p, "shift", "shift", sizes, runner_ref=load_c(p).run, runner_cand=mod.run)
        assert report.ok, report.text()
