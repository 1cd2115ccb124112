"""GPU-on-CPU emulation: equal to the interpreter / unscheduled C at several sizes and five
thread orders; the race detector and the barrier-divergence check fire where they should."""
from __future__ import annotations

import numpy as np
import pytest

from codegen.build import load_c
from codegen.emulate import BarrierDivergenceError, RaceError, emit_emulated, load_emulated
from verified_sched.oracle.compare import compare_kernels, poison, random_inputs, written
from verified_sched.interp.interpreter import run_kernel

from test_gpu_kernels import (CASES, GPU_CASES, hardware_kernels, load_case, misc_program, scheduled, small_sizes,
                              tensor_core_program, tiled_program)

SEEDS = range(5)


def interp_runner(program, seed=0):
    return lambda k, sizes, arrays: run_kernel(program, k, sizes, arrays, seed=seed)


def assert_equal_to(program, kernel, ref_runner, sizes_list, modules, ref_kernel=None, cand_program=None):
    for sizes in sizes_list:
        for seed in SEEDS:
            for mod in modules:
                report = compare_kernels(program, ref_kernel or kernel, kernel, sizes, seed=seed,
                                         runner_ref=ref_runner,
                                         runner_cand=lambda k, s, a, m=mod, sd=seed: m.run(k, s, a, seed=sd),
                                         program_cand=cand_program)
                assert report.ok, report.text()


def test_shared_with_barrier_equals_interpreter_and_c():
    p = load_case("shared_with_barrier")
    mods = [load_emulated(p), load_emulated(p, detect_races=True)]
    sizes = [{"B": 1}, {"B": 2}, {"B": 5}]
    assert_equal_to(p, "shift", interp_runner(p), sizes[:2], mods)
    assert_equal_to(p, "shift", load_c(p).run, sizes, mods)


def test_stage_shared_matmul_unscheduled_runs_emulated():
    p = load_case("stage_shared_matmul")
    mods = [load_emulated(p)]
    assert_equal_to(p, "matmul", load_c(p).run, small_sizes(p, 2), mods)


LEGAL_GPU_CASES = [c for c in GPU_CASES + ["stage_swizzle_matmul"]
                   if "# expect: legal" in (CASES / f"{c}.vs").read_text()]


@pytest.mark.parametrize("case", LEGAL_GPU_CASES)
def test_legal_corpus_gpu_kernels_emulated(case):
    """Every legal GPU corpus kernel runs emulated (detector off and on: no race reported) equal
    to the reference at several sizes and five thread orders: a scheduled kernel (where every
    op of its schedule is available) against its unscheduled C, an unscheduled GPU kernel
    against the interpreter. Reassociating schedules (split_reduction) compare with a tolerance."""
    p = load_case(case)
    ran = 0
    for kernel, after in hardware_kernels(p):
        ref = load_c(p).run if after is not p else interp_runner(p)
        tol = {"rtol": 1e-4, "atol": 1e-5} if case == "split_reduction" else {}
        for det in (False, True):
            mod = load_emulated(after, detect_races=det)
            for sizes in small_sizes(p, 2):
                for seed in SEEDS:
                    report = compare_kernels(p, kernel.name, kernel.name, sizes, seed=seed, runner_ref=ref,
                                             runner_cand=lambda k, s, a, sd=seed: mod.run(k, s, a, seed=sd),
                                             program_cand=after, **tol)
                    assert report.ok, report.text()
        ran += 1
    assert ran, f"{case}: no kernel with hardware loops was run"


@pytest.mark.parametrize("kernel", ["tiled", "tiled_local"])
def test_tiled_matmul_equals_unscheduled_c(kernel):
    p = tiled_program()
    mods = [load_emulated(p, kernels=[kernel]), load_emulated(p, detect_races=True, kernels=[kernel])]
    sizes = [{"TN": 1, "TM": 1, "TK": 1}, {"TN": 2, "TM": 3, "TK": 2}, {"TN": 3, "TM": 1, "TK": 4}]
    assert_equal_to(p, kernel, load_c(p, kernels=["matmul"]).run, sizes, mods, ref_kernel="matmul")


def test_tiled_matmul_equals_interpreter_tiny():
    p = tiled_program()
    mod = load_emulated(p, kernels=["tiled_local"])
    assert_equal_to(p, "tiled_local", interp_runner(p), [{"TN": 1, "TM": 2, "TK": 1}], [mod])


@pytest.mark.parametrize("kernel", ["leader", "data_if", "triangle", "edge"])
def test_misc_kernels_equal_interpreter(kernel):
    p = misc_program()
    mods = [load_emulated(p, kernels=[kernel]), load_emulated(p, detect_races=True, kernels=[kernel])]
    sizes = [{"B": 1}, {"B": 3}, {"B": 9 if kernel != "edge" else 5}]
    assert_equal_to(p, kernel, interp_runner(p), sizes, mods)


def test_tensor_core_fallback_runs_once():
    p = tensor_core_program()
    mods = [load_emulated(p, kernels=["tc"]), load_emulated(p, detect_races=True, kernels=["tc"])]
    assert_equal_to(p, "tc", load_c(p, kernels=["matmul"]).run, [{"TN": 1, "TM": 2, "TK": 1}], mods,
                    ref_kernel="matmul")


def _inputs(program, kernel, sizes):
    arrays = random_inputs(program, [kernel], sizes, 0)
    poison(arrays, written(program, [kernel]), program)
    return arrays


def test_detector_catches_shared_missing_barrier():
    p = load_case("shared_missing_barrier")
    mod = load_emulated(p, detect_races=True)
    for seed in SEEDS:
        with pytest.raises(RaceError) as info:
            mod.run("shift", {"B": 2}, _inputs(p, "shift", {"B": 2}), seed=seed)
        e = info.value
        assert e.tensor == "t" and e.phase == 0
        (cell,) = e.cell
        threads = {e.first[1], e.second[1]}
        assert len(threads) == 2 and f"thread.x={cell}" in threads and f"thread.x={cell - 1}" in threads
        kinds = {e.first[2], e.second[2]}
        assert kinds == {"reads", "writes"}
        assert f"t[{cell}]" in str(e) and "phase 0" in str(e)


def test_detector_quiet_on_shared_with_barrier():
    p = load_case("shared_with_barrier")
    mod = load_emulated(p, detect_races=True)
    for seed in SEEDS:
        arrays = _inputs(p, "shift", {"B": 3})
        mod.run("shift", {"B": 3}, arrays, seed=seed)
        assert not np.isnan(arrays["y"][:, :63]).any()


def test_thread_orders_differ_between_seeds():
    """Without a barrier the result depends on the thread order: the seeds really permute."""
    p = load_case("shared_missing_barrier")
    mod = load_emulated(p)
    outs = []
    for seed in SEEDS:
        arrays = _inputs(p, "shift", {"B": 2})
        mod.run("shift", {"B": 2}, arrays, seed=seed)
        outs.append(arrays["y"].view(np.uint32).copy())
    assert any(not np.array_equal(outs[0], o) for o in outs[1:])
    again = _inputs(p, "shift", {"B": 2})
    mod.run("shift", {"B": 2}, again, seed=0)
    assert np.array_equal(again["y"].view(np.uint32), outs[0])  # a seed is reproducible


def test_detector_catches_tile_reuse_without_trailing_barrier():
    p = tiled_program()
    mod = load_emulated(p, detect_races=True, kernels=["tiled_no_trailing_barrier"])
    sizes = {"TN": 1, "TM": 1, "TK": 2}
    with pytest.raises(RaceError) as info:
        mod.run("tiled_no_trailing_barrier", sizes, _inputs(p, "tiled_no_trailing_barrier", sizes))
    assert info.value.tensor in ("a_tile", "b_tile") and info.value.phase == 1


def test_detector_catches_cross_block_race():
    p = misc_program()
    mod = load_emulated(p, detect_races=True, kernels=["cross_block"])
    with pytest.raises(RaceError, match="different blocks are unordered") as info:
        mod.run("cross_block", {"B": 2}, _inputs(p, "cross_block", {"B": 2}))
    assert info.value.tensor == "y" and info.value.first[0] != info.value.second[0]
    load_emulated(p, detect_races=True, kernels=["cross_block"]).run("cross_block", {"B": 1},
                                                                     _inputs(p, "cross_block", {"B": 1}))


def test_detector_catches_parallel_rowsum():
    p = load_case("rowsum_parallel_race")
    after = scheduled(p, "rowsum")
    mod = load_emulated(after, detect_races=True)
    with pytest.raises(RaceError) as info:
        mod.run("rowsum", {"N": 2, "K": 3}, _inputs(after, "rowsum", {"N": 2, "K": 3}))
    assert info.value.tensor == "s"


@pytest.mark.parametrize("detect", [False, True])
def test_barrier_divergent_is_an_error(detect):
    p = load_case("barrier_divergent")
    mod = load_emulated(p, detect_races=detect)
    with pytest.raises(BarrierDivergenceError, match=r"reached by 32 of 64 threads") as info:
        mod.run("shift", {"B": 2}, _inputs(p, "shift", {"B": 2}))
    assert "barrier_divergent.vs:14" in str(info.value)


def test_counted_barriers_diverge():
    p = misc_program()
    mod = load_emulated(p, kernels=["counted"])
    with pytest.raises(BarrierDivergenceError, match="barrier divergence"):
        mod.run("counted", {"B": 1}, _inputs(p, "counted", {"B": 1}))


def test_emulated_source_keeps_the_c_signature():
    p = load_case("shared_with_barrier")
    src = emit_emulated(p)
    assert "void vs_shift(int64_t B, float *restrict x, float *restrict y)" in src
    assert "vs_shuffle(vs_perm, vs_nt)" in src and "vs_phase++" in src
