"""Real PyTorch modules through torch-mlir into vsched (issue 21): ten small modules exported by
torch-mlir (committed fixtures: tests/support/make_model_fixtures.py) import, with their
parameters as input tensors whose values are kept beside the program (a .npy per constant),
verify (every obligation of the imported kernel proved), and run equal to PyTorch in C and
through IREE. Needs xdsl (IREE for the IREE runs, torch-mlir for the regeneration check)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("xdsl")

from codegen.build import load_c  # noqa: E402
from verified_sched.core.dtypes import NP_DTYPE, global_tensors, storage_shape  # noqa: E402
from verified_sched.mlir.importer import import_with_constants  # noqa: E402
from verified_sched.verify.driver import verify_kernel  # noqa: E402

FIX = Path(__file__).parent / "fixtures" / "models"
MODELS = ["linear_relu", "mlp_gelu", "softmax", "layer_norm", "rms_norm", "bmm_bias_relu", "attention",
          "max_pool", "depthwise", "residual"]


def _arrays(name):
    program, constants = import_with_constants(str(FIX / f"{name}.mlir"))
    data = np.load(FIX / f"{name}.npz")
    sizes = {p: int(p[1:]) for p in program.params}
    arrays = {t.name: np.zeros(storage_shape(t, sizes), NP_DTYPE[t.prec]) for t in global_tensors(program)}
    k = 0
    while f"in{k}" in data:
        arrays[f"{name}_arg{k}"][...] = data[f"in{k}"]
        k += 1
    for t, values in constants.items():
        arrays[t][...] = values
    return program, sizes, arrays, data["out0"]


@pytest.mark.parametrize("name", MODELS)
def test_module_imports_and_runs_equal_to_pytorch_in_c(name):
    program, sizes, arrays, want = _arrays(name)
    load_c(program).run(name, sizes, arrays)
    np.testing.assert_allclose(arrays[f"{name}_result0"], want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", MODELS)
def test_imported_module_verifies(name):
    program, _, _, _ = _arrays(name)
    rep = verify_kernel(program, name, "default", 60.0)
    assert rep.verdict == "legal", [(o.kind, o.status, o.message) for o in rep.obligations]


@pytest.mark.parametrize("name", MODELS)
def test_module_runs_equal_to_pytorch_through_iree(name):
    pytest.importorskip("iree.runtime")
    from verified_sched.mlir.iree_backend import load_iree

    program, sizes, arrays, want = _arrays(name)
    load_iree(program).run(name, sizes, arrays)
    np.testing.assert_allclose(arrays[f"{name}_result0"], want, rtol=1e-4, atol=1e-5)


def test_import_writes_parameters_beside_the_program_and_exec_loads_them(tmp_path, capsys):
    # in process (main): docs/mlir.md's sh block runs the same `vsched import -o` and `vsched
    # exec --in --out` as subprocesses (tests/test_docs_commands.py), so three more Python
    # start-ups here added nothing
    from verified_sched.cli import main

    out = tmp_path / "lin.vs"
    assert main(["import", str(FIX / "linear_relu.mlir"), "-o", str(out)]) == 0, capsys.readouterr().err
    params = sorted(p.name for p in tmp_path.glob("lin.*.npy"))
    assert len(params) == 2, params  # the weight and the bias
    data = np.load(FIX / "linear_relu.npz")
    np.save(tmp_path / "x.npy", data["in0"])
    assert main(["exec", str(out), "--kernel", "linear_relu", "--in", f"linear_relu_arg0={tmp_path / 'x.npy'}",
                 "--out", f"linear_relu_result0={tmp_path / 'y.npy'}"]) == 0, capsys.readouterr().err
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), data["out0"], rtol=1e-5, atol=1e-6)
    capsys.readouterr()
    assert main(["import", str(FIX / "linear_relu.mlir")]) == 2
    err = capsys.readouterr().err
    assert "give -o OUT.vs" in err and "Traceback" not in err


def test_the_fixture_script_still_writes_the_committed_fixtures():
    pytest.importorskip("torch_mlir")
    sys.path.insert(0, str(Path(__file__).parent / "support"))
    import make_model_fixtures as mk

    text, ins, out = mk.export("softmax")
    assert text == (FIX / "softmax.mlir").read_text()
    np.testing.assert_array_equal(out, np.load(FIX / "softmax.npz")["out0"])
