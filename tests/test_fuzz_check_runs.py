"""A fuzz example runs each distinct interpreter run once (verified_sched/fuzz/check.py `_RUNS`):
the same program, kernel, sizes, seed and input bytes give the stored arrays, or the stored
KernelError, bit for bit. The outcome is the one the example has with every run made afresh.
Runs are counted, never timed."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from verified_sched.analysis.sizes import example_sizes
from verified_sched.core.errors import KernelError
from verified_sched.dsl import parse_file, parse_text
from verified_sched.fuzz import check

CASES = ["stage_shared_matmul.vs", "stencil_interchange_illegal.vs", "rowsum_parallel_race.vs",
         "matmul_round_up_oob.vs", "privatize_matmul.vs", "relu_shift_inward.vs",
         "fuzz_privatize_local_acc_across_blocks.vs", "fuzz_stage_shared_then_split_coverage.vs"]


def _outcome(program, kernel, monkeypatch, fresh: bool) -> tuple:
    calls = []
    real = check.run_kernel
    monkeypatch.setattr(check, "run_kernel", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    if fresh:  # every run made afresh: no two digests alike
        counter = itertools.count()
        monkeypatch.setattr(check, "_digest", lambda arrays: next(counter))
    out = check.check_example(program, kernel, example_sizes(program, 2))
    monkeypatch.undo()
    f = out.finding
    return (out.verdict, out.replays, out.sizes_run, out.vacuous, f and (f.kind, f.message, f.sizes)), len(calls)


@pytest.mark.parametrize("case", CASES)
def test_stored_runs_give_the_outcome_of_fresh_runs(case, cases_dir, monkeypatch):
    program = parse_file(cases_dir / case)
    kernel = program.schedules[0].kernel
    fresh, n_fresh = _outcome(program, kernel, monkeypatch, True)
    stored, n_stored = _outcome(program, kernel, monkeypatch, False)
    assert stored == fresh and n_stored <= n_fresh


def test_the_unscheduled_kernel_beside_the_emulator_is_not_run_again(cases_dir, monkeypatch):
    """A small GPU example: the interpreter runs both kernels, then the emulator's comparison
    needs the unscheduled kernel's result at the same sizes and inputs again: stored."""
    program = parse_file(cases_dir / "stage_shared_matmul.vs")
    kernel = program.schedules[0].kernel
    (_, n_fresh), (_, n_stored) = (_outcome(program, kernel, monkeypatch, fresh) for fresh in (True, False))
    assert n_stored < n_fresh


def test_a_stored_run_that_failed_fails_again_with_its_error_and_arrays():
    p = parse_text("params N where N >= 1\ntensor a[N] f32\ntensor b[N] f32\n"
                   "kernel k {\n  for i in 0 .. N { b[i] = a[i] }\n  b[N] = 1.0\n}\n")
    runner = check._interp(p, 0)
    check._RUNS.clear()
    results = []
    for _ in range(2):
        arrays = {"a": np.arange(3, dtype=np.float32), "b": np.zeros(3, dtype=np.float32)}
        with pytest.raises(KernelError) as err:
            runner("k", {"N": 3}, arrays)
        results.append((str(err.value), arrays["b"].tobytes()))
    assert results[0] == results[1] and len(check._RUNS) == 1
    assert np.frombuffer(results[1][1], dtype=np.float32).tolist() == [0.0, 1.0, 2.0]
