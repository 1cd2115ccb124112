"""Staged kernels run equal to the unscheduled kernel: GPU schedules emulated (five thread
orders, several sizes, race detector off and on), CPU packing through C and the interpreter;
the CUDA of the corpus stages compiles with nvcc and ptxas reports exactly the tiles' bytes."""
from __future__ import annotations

import re
import shutil

import pytest

from codegen.build import load_c
from codegen.emulate import load_emulated
from verified_sched.oracle.compare import compare_kernels
from verified_sched.interp.interpreter import run_kernel

from test_stage_support import broadcast, case, cpu, lanes, rowsum, scheduled

SEEDS = range(5)


def _equal_emulated(p, kernel, sizes_list):
    q = scheduled(p, kernel)
    ref = load_c(p).run
    for detect in (False, True):
        mod = load_emulated(q, detect_races=detect)
        for sizes in sizes_list:
            for seed in SEEDS:
                r = compare_kernels(p, kernel, kernel, sizes, seed=seed, runner_ref=ref,
                                    runner_cand=lambda k, s, a, sd=seed: mod.run(k, s, a, seed=sd),
                                    program_cand=q)
                assert r.ok, r.text()


@pytest.mark.parametrize("name", ["stage_shared_matmul", "stage_swizzle_matmul"])
def test_corpus_stages_run_emulated_equal(name):
    _equal_emulated(case(name), "matmul", [{"TN": 1, "TM": 1, "TK": 1}, {"TN": 2, "TM": 1, "TK": 3},
                                           {"TN": 1, "TM": 2, "TK": 2}])


@pytest.mark.parametrize("opts", ["", "pad_stride=3"])
def test_block_only_staging_runs_emulated_equal(opts):
    _equal_emulated(rowsum(opts), "rowsum", [{"T": 1, "K": 1}, {"T": 2, "K": 3}])


@pytest.mark.parametrize("opts", ["cooperative=5", "cooperative=16 pipeline=2",
                                  "cooperative=4 pipeline=2 swizzle=elem",
                                  "cooperative=8 swizzle=b128 pad_stride=16"])
def test_lane_aware_options_run_emulated_equal(opts):
    _equal_emulated(lanes(opts), "matmul", [{"TN": 1, "TM": 1, "TK": 1}, {"TN": 1, "TM": 2, "TK": 3}])


def test_stage_without_anchor_runs_emulated_equal():
    _equal_emulated(broadcast(), "bc", [{"B": 1}, {"B": 3}])


def test_cpu_packing_runs_equal_in_c_and_interpreter():
    p = cpu()
    q = scheduled(p, "mm")
    cand = load_c(q).run
    for sizes in ({"N": 3, "M": 5, "K": 7}, {"N": 2, "M": 16, "K": 8}, {"N": 1, "M": 1, "K": 1}):
        for seed in range(2):
            r = compare_kernels(p, "mm", "mm", sizes, seed=seed, runner_cand=cand, program_cand=q)
            assert r.ok, r.text()
    sizes = {"N": 2, "M": 3, "K": 5}
    r = compare_kernels(p, "mm", "mm", sizes, runner_ref=lambda k, s, a: run_kernel(p, k, s, a),
                        runner_cand=lambda k, s, a: run_kernel(q, k, s, a), program_cand=q)
    assert r.ok, r.text()


@pytest.mark.skipif(shutil.which("nvcc") is None and not shutil.os.path.exists("/usr/local/cuda/bin/nvcc"),
                    reason="nvcc not installed")
@pytest.mark.parametrize("name", ["stage_shared_matmul", "stage_swizzle_matmul"])
def test_nvcc_shared_memory_equals_the_tiles(name, tmp_path):
    from codegen.cuda import emit_cuda
    from support.nvcc import compile_cuda
    q = scheduled(case(name), "matmul")
    src = emit_cuda(q)
    assert src.count("__shared__") >= 2 and "__syncthreads" in src
    r = compile_cuda(src, tmp_path)
    assert r.returncode == 0, r.stderr
    assert [int(x) for x in re.findall(r"(\d+) bytes smem", r.stderr)] == [2 * 16 * 16 * 4]
