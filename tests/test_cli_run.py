"""`vsched run`: scheduled vs unscheduled (and claims) on the corpus at concrete sizes."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from verified_sched.cli import main
from verified_sched.dsl import parse_file
from verified_sched.analysis.sizes import example_sizes

CASES = Path(__file__).resolve().parent / "cases"
FILES = sorted(CASES.glob("*.vs"))
LEGAL = [f for f in FILES if re.search(r"^#\s*expect:\s*legal\b", f.read_text(), re.M)]


def size_arg(sizes: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in sizes.items())


@pytest.mark.parametrize("path", LEGAL, ids=[f.stem for f in LEGAL])
def test_run_passes_on_legal_corpus_cases(path, capsys):
    program = parse_file(path)
    sizes = example_sizes(program, 3)[-1]  # odd / random extents
    code = main(["run", str(path), "--size", size_arg(sizes), "--seed", "3"])
    cap = capsys.readouterr()
    assert code == 0, cap.out
    assert ": ok" in cap.out and "DIFFERENT" not in cap.out
    if program.schedules:
        assert "schedule of" in cap.out  # the schedule itself ran, not a fallback


def test_run_default_sizes_and_interp_target(repo_root, capsys):
    path = repo_root / "examples" / "matmul.vs"
    assert main(["run", str(path), "--target", "interp", "--inputs", "small-int"]) == 0
    out = capsys.readouterr().out
    assert out.count("schedule of matmul: ok") == 3 and "N=1,M=1,K=1" in out


def test_run_without_schedules_checks_c_against_the_interpreter(tmp_path, capsys):
    path = tmp_path / "plain.vs"
    path.write_text("params N where N >= 1\ntensor x[N] f32\ntensor y[N] f32\n"
                    "kernel twice {\n  for i in 0 .. N {\n    y[i] = 2 * x[i] + exp(x[i])\n  }\n}\n")
    assert main(["run", str(path), "--size", "N=7"]) == 0
    assert "kernel twice (C vs interpreter): ok" in capsys.readouterr().out


@pytest.mark.parametrize("name,sizes,word", [
    ("stencil_interchange_illegal", "N=3,M=3", "DIFFERENT"),
    ("rowsum_shift_inward", "N=9,K=2", "DIFFERENT"),
    ("matmul_round_up_oob", "N=2,M=3,K=2", "outside the storage of tensor"),
    ("claim_matmul_off_by_one", "N=2,M=3,K=4", "DIFFERENT"),
    ("shared_missing_barrier", "B=2", "DIFFERENT"),
    ("barrier_divergent", "B=1", "barrier divergence"),
])
def test_run_shows_the_difference_at_counterexample_sizes(cases_dir, capsys, name, sizes, word):
    assert main(["run", str(cases_dir / f"{name}.vs"), "--size", sizes]) == 1
    assert word in capsys.readouterr().out


def test_run_in_the_interpreter_names_the_out_of_bounds_access(cases_dir, capsys):
    assert main(["run", str(cases_dir / "matmul_round_up_oob.vs"), "--size", "N=2,M=3,K=2",
                 "--target", "interp"]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "index out of bounds: c[0, 3]" in out and "jo=0, ji=3" in out


def test_run_reproducible_profile_is_bitwise(cases_dir, capsys):
    assert main(["run", str(cases_dir / "sum_interchange.vs"), "--size", "N=2,K1=9,K2=7"]) == 0
    assert "rtol=" in capsys.readouterr().out  # default profile: reassociation licensed
    main(["run", str(cases_dir / "sum_interchange_reproducible.vs"), "--size", "N=2,K1=9,K2=7"])
    assert "(bitwise)" in capsys.readouterr().out


def test_run_keeps_in_place_inputs(cases_dir, capsys):
    """A stencil reads the tensor it writes: its inputs must not be poisoned (non-vacuous)."""
    assert main(["run", str(cases_dir / "stencil_interchange_legal.vs"), "--size", "N=4,M=3"]) == 0
    assert "VACUOUS" not in capsys.readouterr().out


def test_run_draws_inputs_from_declared_ranges(tmp_path):
    from verified_sched.core.dtypes import bf16_to_f32
    from verified_sched.oracle.compare import random_inputs

    path = tmp_path / "inp.vs"
    path.write_text("params N where N >= 1\ninputs x int in [-3, 3]\ninputs w in [-1, 1] grid 1/4\n"
                    "tensor x[N] f32\ntensor w[N] bf16\ntensor y[N] f32\n"
                    "kernel k {\n  for i in 0 .. N {\n    y[i] = x[i] * w[i]\n  }\n}\n")
    program = parse_file(path)
    arrays = random_inputs(program, None, {"N": 50}, seed=1)  # honours the `inputs` lines
    x, w = arrays["x"], bf16_to_f32(arrays["w"])
    assert set(np.unique(x)) <= set(range(-3, 4)) and len(np.unique(x)) > 3
    assert np.all(w * 4 == np.round(w * 4)) and np.abs(w).max() <= 1 and len(np.unique(w)) > 3
    assert main(["run", str(path), "--size", "N=5"]) == 0


@pytest.mark.parametrize("sizes", ["N=1,OH=5,OW=7,C=3,F=2", "N=1,OH=4,OW=6,C=2,F=2"])
def test_winograd_small_int_run_is_bitwise_at_odd_and_even_sizes(cases_dir, capsys, sizes):
    """Small integers satisfy the proved exactness bound: the oracle demands bitwise equality."""
    assert main(["run", str(cases_dir / "winograd_odd.vs"), "--inputs", "small-int", "--size", sizes]) == 0
    out = capsys.readouterr().out
    assert "(bitwise): equal" in out and "max abs error 0," in out


def test_winograd_random_run_uses_a_tolerance(cases_dir, capsys):
    assert main(["run", str(cases_dir / "winograd_odd.vs"), "--size", "N=1,OH=5,OW=7,C=3,F=2"]) == 0
    assert "(rtol=" in capsys.readouterr().out
