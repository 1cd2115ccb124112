"""Issue 21 item 3: an imported model's parameters (the `.npy` per non-splat constant that
`vsched import -o FILE.vs` writes beside the program) are loaded by `vsched run`, as by
`vsched exec`, instead of being drawn at random."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from verified_sched.cli import main

pytest.importorskip("xdsl")
FIXTURE = Path(__file__).parent / "fixtures" / "models" / "linear_relu.mlir"


@pytest.fixture
def imported(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(FIXTURE, tmp_path / "lin.mlir")
    assert main(["import", "lin.mlir", "-o", "lin.vs"]) == 0
    return tmp_path


def test_run_loads_the_parameters_beside_the_program(imported, monkeypatch, capsys):
    import verified_sched.oracle.compare as oracle

    seen = []
    real = oracle.compare_kernels

    def spy(*args, **kwargs):
        seen.append(kwargs.get("given"))
        return real(*args, **kwargs)

    monkeypatch.setattr(oracle, "compare_kernels", spy)
    assert main(["run", "lin.vs"]) == 0
    out = capsys.readouterr().out
    assert "parameters from cst, cst_1" in out and ": ok" in out
    assert seen and all(g is not None and set(g) == {"cst", "cst_1"} for g in seen)
    for name in ("cst", "cst_1"):
        want = np.load(imported / f"lin.{name}.npy")
        assert all(np.array_equal(g[name], want) for g in seen), name


def test_given_arrays_are_what_the_kernels_read(imported):
    """compare_kernels runs both kernels on the given values, not on drawn ones."""
    from verified_sched.oracle.compare import compare_kernels
    from verified_sched.dsl.parser import parse_file

    program = parse_file("lin.vs")
    sizes = {"D3": 3, "D4": 4, "D5": 5}
    got = {}

    def runner(kernel, sizes_, arrays):
        got.setdefault("cst_1", arrays["cst_1"].copy())

    ones = np.full((4, 5), 0.25, dtype=np.float32)
    compare_kernels(program, "linear_relu", "linear_relu", sizes, 0, "random", runner, runner, given={"cst_1": ones})
    assert np.array_equal(got["cst_1"][:4, :5], ones)


def test_a_parameter_that_does_not_fit_is_an_input_error(imported, capsys):
    np.save(imported / "lin.cst.npy", np.zeros((7,), dtype=np.float32))
    assert main(["run", "lin.vs"]) == 2
    err = capsys.readouterr().err
    assert "a parameter beside it does not fit" in err and "Traceback" not in err
