"""Test-wide setup: a deterministic hypothesis profile and the location of the verdict corpus.

The "ci" profile is loaded by default so every run (CI, a developer's machine, parallel
xdist workers) tries the same examples: derandomized, no example database and
the constants cache in a temporary folder (so no `.hypothesis/` directory is written), no
deadline (2 shared cores make timings noisy).
Set VSCHED_HYPOTHESIS_PROFILE=explore for a randomized, longer run while developing.
"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

settings.register_profile("ci", derandomize=True, database=None, deadline=None, max_examples=50,
                          print_blob=True)
settings.register_profile("explore", database=None, deadline=None, max_examples=500)
settings.load_profile(os.environ.get("VSCHED_HYPOTHESIS_PROFILE", "ci"))

# Hypothesis also caches constants collected from the source under `.hypothesis/` in the
# working directory, whatever the database setting: keep that in a private temporary folder.
_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="vsched-hypothesis-")
set_hypothesis_home_dir(_HYPOTHESIS_HOME)
atexit.register(shutil.rmtree, _HYPOTHESIS_HOME, ignore_errors=True)

# The slowest tests (each 10 s or more on 2 shared cores: property-based soundness campaigns,
# IREE and PyTorch runs of every convolution configuration, grids of emitted kernels), marked
# `slow`: the README's test command (`python -m pytest -n 2`) deselects them through
# pyproject's addopts (`-m "not slow"`) and `.ci/run` runs them too (`-m slow`). A test file's
# own `@pytest.mark.slow` counts as well. Figures: `--durations=60`, docs/testing.md.
SLOW = {
    "test_mlir_conv.py::test_torch_mlir_lowering_through_iree_agrees_with_the_oracle",
    "test_mlir_conv.py::test_iree_turbine_lowering_through_iree_agrees_with_the_oracle",
    "test_mlir_conv.py::test_exported_lowering_is_proved_by_vsched_verify",
    "test_mlir_conv.py::test_decomposed_path_documents_the_grouped_weight_gradient_bug",
    "test_convbwd_emit.py::test_grid_direct_kernels_match_numpy",
    "test_convbwd_torch.py::test_direct_kernels_match_torch",
    "test_convbwd_claims.py::test_broken_direct_kernel_is_refuted",
    "test_mlir_import.py::test_imported_conv_lowering_equals_chain_rule_reference",
    "test_mlir_import.py::test_decomposed_path_mislowers_the_grouped_weight_gradient",
    "test_mlir_emit.py::test_random_kernels_on_iree_equal_c",
    "test_verify_soundness.py::test_legal_runs_equal_and_refutations_replay",
    "test_claims_value_fuzz.py::test_proved_claims_run_equal_and_refuted_claims_replay",
    "test_claims_value.py::test_last_writer_inside_one_nest_is_compared",
    "test_claims_value.py::test_winograd_claim_is_decided_by_the_op_proofs",
    "test_privatize_fuzz.py::test_random_privatize",
    "test_dsl_fuzz.py::test_mutants_exit_0_to_3_without_traceback",
    "test_replay_tails.py::test_every_tail_refutation_replays",
    "test_interp_fuzz.py::test_interp_agrees_with_c_on_generated_kernels",
    "test_splitred_dynamic.py::test_generated_scatters",
    "test_value_dependences_fuzz.py::test_value_based_dependence_verdicts_agree_with_runs",
    "test_ops_reverse.py::test_reverse_legal_runs_equal_and_refutations_replay",
    "test_fuse_fuzz.py::test_random_fuse",
    # 5 s or more each on a quiet machine: the default run stays under 6 minutes
    "test_mlir_conv.py::test_run_target_iree_prints_the_numerics_report",
    "test_mlir_conv.py::test_the_fixture_script_still_writes_the_committed_fixtures",
    "test_mlir_conv_proofs.py::test_without_the_finite_assumption_the_zero_terms_are_not_dropped",
    "test_semantics_backends.py::test_every_operation_through_iree_against_the_table",
    "test_gpu_cuda.py::test_corpus_gpu_kernels_compile_with_nvcc",
    "test_fuzz_dask.py::test_campaign_on_local_cluster",
    "test_fuzz_mlir_passes.py::test_fuzz_mlir_passes_on_a_local_dask_cluster",
    "test_fuzz_regressions.py::test_reverse_reverse_stage_value_flow_closure_does_not_crash_isl",
    "test_gate_pytest_plugin.py::test_corpus_with_xdist_passes_with_one_item_per_kernel_and_claim",
    "test_mlir_emit.py::test_run_target_iree_cli",
    "test_values_ieee.py::test_f16_intermediate_store_rounds",
    "test_fuzz_strategies.py::test_every_op_drawn_and_schedules_long_enough",
    "test_fuzz_campaign.py::test_planted_backend_bug_found_and_shrunk",
    "test_fuzz_speed.py::test_restricted_pair_relations_on_the_gpu_corpus",
    "test_stage_fuzz.py::test_cpu_packing_stages",
    # claim scheduled == original over every legal corpus kernel (tests/support/claims_corpus.py
    # runs it as a script): about 20 s in all
    "test_claims_value.py::test_scheduled_equals_original_by_value",
    # moved to the slow run this session (10 s or more each on a loaded machine, covered in
    # the default run by cheaper tests of the same area): the default run keeps a margin under 6 minutes
    "test_poly_crosscheck.py::test_random_nests_with_data_guards_and_dynamic_indices_agree",
    "test_poly_crosscheck.py::test_random_nests_and_schedules_agree_with_brute_force",
    "test_fuzz_speed.py::test_verify_obligations_same_with_a_warm_memo",
    "test_gpu_cuda.py::test_shared_memory_report_matches_tiles",
    "test_gpu_cuda.py::test_misc_kernels_compile",
    "test_gate_workshare.py::test_corpus_with_this_process_taking_part_equals_one_worker",
    "test_verify_budgets.py::test_isl_z3_numpy_under_a_small_address_space_cap",
    "test_gate_runner.py::test_reports_go_to_redirected_stdout_while_progress_shows_on_a_terminal",
    "test_mutation_regressions.py::test_refute_by_run_never_proves",
    "test_fuzz_crashes.py::test_a_backend_that_kills_the_worker_gives_a_crash_reproducer",
    "test_walk_scoped.py::test_walk_scoped_matches_the_recursive_definition",
    "test_fuzz_deadline.py::test_budgeted_campaign_on_a_pool_counts_the_batches_in_flight",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if f"{item.path.name}::{item.originalname}" in SLOW:
            item.add_marker(pytest.mark.slow)


# Answers polyhedral keeps per process (a fuzz campaign verifies one program many times, and
# each op restates what the op before it left alone): each test starts without them, so a
# test that counts work does not depend on which tests ran before it. Modules not imported yet
# have none.
_ANSWER_CACHES = {"polyhedral.checks": ("_DEPENDENCE.store", "_COVERAGE.store", "_IN_BOUNDS", "_INDEPENDENT"),
                  "polyhedral.coverage": ("_COVERED",), "polyhedral.race": ("_RACE_FREE",),
                  "verified_sched.fuzz.check": ("_REPORTS",)}


@pytest.fixture(autouse=True)
def _fresh_answer_caches(monkeypatch):
    import sys

    for module, names in _ANSWER_CACHES.items():
        mod = sys.modules.get(module)
        for name in names if mod is not None else ():
            *owner, attr = name.split(".")
            monkeypatch.setattr(getattr(mod, owner[0]) if owner else mod, attr, {})


REPO_ROOT = Path(__file__).resolve().parents[1]
# The verdict corpus, copied into the repository (tests/cases): the suite reads nothing outside it.
CASES_DIR = REPO_ROOT / "tests" / "cases"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def cases_dir() -> Path:
    assert CASES_DIR.is_dir(), f"verdict corpus missing at {CASES_DIR}"
    return CASES_DIR


def same_bits(a, b) -> bool:
    """Bitwise equality of two arrays, two NaNs counting as equal whatever their sign and
    payload (the C compiler may rewrite `a + -b` as `a - b`, which keeps a NaN's sign)."""
    import numpy as np

    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return bool(np.all((a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}")) | (np.isnan(a) & np.isnan(b))))
    return bool(np.array_equal(a, b))


def run_both(program, kernel: str, sizes: dict, arrays: dict, seed: int = 0):
    """Run one kernel in C and in the interpreter on copies of `arrays`; return both results."""
    from codegen.build import load_c
    from verified_sched.interp.interpreter import run_kernel

    c_out = {k: v.copy() for k, v in arrays.items()}
    i_out = {k: v.copy() for k, v in arrays.items()}
    load_c(program).run(kernel, dict(sizes), c_out)
    run_kernel(program, kernel, dict(sizes), i_out, seed=seed)
    return c_out, i_out


@pytest.fixture(scope="session")
def interp_vs_c():
    """`check(program, kernel, sizes, arrays, seed)`: C and interpreter agree on every storage
    cell (NaN-aware bitwise); returns (c_out, interp_out)."""

    def check(program, kernel, sizes, arrays, seed=0):
        c_out, i_out = run_both(program, kernel, sizes, arrays, seed)
        bad = [name for name in arrays if not same_bits(c_out[name], i_out[name])]
        assert not bad, f"{kernel} at {sizes}: C and interpreter differ on {bad}"
        return c_out, i_out

    return check
