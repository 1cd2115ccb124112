"""The seed pipeline end to end: `vsched conv-backward ... --against torch-mlir` exports
aten.convolution_backward through torch-mlir, imports the lowering beside the proved kernels,
and IREE runs it; its error against the float64 oracle stays within a small multiple of
PyTorch's own (the numerics report). Needs torch, torch-mlir and IREE (the test extra)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("torch_mlir")
pytest.importorskip("iree.runtime")

from codegen.build import load_c  # noqa: E402
from verified_sched.oracle.compare import compare_kernels  # noqa: E402
from verified_sched.cli import main  # noqa: E402
from verified_sched.dsl.parser import parse_file  # noqa: E402
from verified_sched.generators.conv_backward import make_conv  # noqa: E402
from verified_sched.mlir.iree_backend import load_iree  # noqa: E402
from verified_sched.mlir.numerics import numerics_rows  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONVS = json.loads((ROOT / "tests" / "fixtures" / "mlir" / "convs.json").read_text())
TOL = {"f32": 1e-6, "bf16": 2e-2}  # absolute slack on top of 8x PyTorch's max_abs


def _argv(cfg: dict, out, frontend: str = "torch-mlir") -> list:
    argv = ["conv-backward", "--x", ",".join(map(str, cfg["x"])), "--w", ",".join(map(str, cfg["w"])),
            "--layout", cfg["layout"], "--grads", "input,weight", "--against", frontend, "-o", str(out)]
    for key in ("stride", "padding", "dilation", "groups"):
        if key in cfg:
            argv += [f"--{key}", str(cfg[key])]
    return argv


@pytest.mark.parametrize("name", list(CONVS))
def test_torch_mlir_lowering_through_iree_agrees_with_the_oracle(name, tmp_path, capsys):
    """torch-mlir's direct lowering (the default of --against torch-mlir): both gradients of
    every configuration imported, equal to the reference and the direct kernel through IREE,
    and the seed pipeline's error within a small multiple of PyTorch's."""
    _check_frontend(name, "torch-mlir", tmp_path, capsys)


@pytest.mark.parametrize("name", ["seed_nhwc"])
def test_iree_turbine_lowering_through_iree_agrees_with_the_oracle(name, tmp_path, capsys):
    """The second frontend, exported now (iree-turbine + IREE's torch input pipeline); every
    configuration's committed turbine lowering is proved in test_mlir_conv_proofs.py."""
    pytest.importorskip("iree.turbine")
    _check_frontend(name, "iree-turbine", tmp_path, capsys)


def _check_frontend(name, frontend, tmp_path, capsys):
    cfg = CONVS[name]
    out = tmp_path / f"{name}.vs"
    rc = main(_argv(cfg, out, frontend))
    err = capsys.readouterr().err
    assert rc == 0, err
    program = parse_file(str(out))
    stem = "turbine" if frontend == "iree-turbine" else "torch_mlir"
    names = {k.name for k in program.kernels}
    assert {f"{stem}_input_grad", f"{stem}_weight_grad"} <= names
    for g in ("input", "weight"):  # the imported lowering through IREE vs the reference and the direct kernel in C
        for ref in (f"{g}_grad_reference", f"{g}_grad"):
            report = compare_kernels(program, ref, f"{stem}_{g}_grad", {},
                                     runner_ref=load_c(program).run, runner_cand=load_iree(program).run,
                                     rtol=1e-4, atol=1e-4)
            assert report.ok and not report.vacuous, report.text()
    cv = make_conv(**cfg, grads=("input", "weight"))
    rows = numerics_rows(cv, program, dtypes=("f32", "bf16") if name == "seed_nhwc" else ("f32",),
                         frontend=frontend)
    eager = {(g, d): st[2] for g, d, src, st in rows if src == "PyTorch"}
    assert eager and {src for _, _, src, _ in rows} == {"PyTorch", "imported -> IREE", f"{frontend} -> IREE"}
    for g, dtype, source, st in rows:
        assert not isinstance(st, str), (g, dtype, source, st)
        assert st[2] <= 8 * eager[g, dtype] + TOL[dtype], (g, dtype, source, st)


def test_decomposed_path_documents_the_grouped_weight_gradient_bug(tmp_path, capsys):
    """`--against torch-mlir-decomposed` (torch-mlir's default pipeline): the seed's weight
    gradient is a cross-group product cast to the weight shape; refused with the cast's line
    (exit 1), and IREE, which compiles it, returns values off by far more than PyTorch."""
    cfg = CONVS["seed_nhwc"]
    out = tmp_path / "seed.vs"
    assert main(_argv(cfg, out, "torch-mlir-decomposed")) == 1
    err = capsys.readouterr().err
    saved = f"{out}.torch_mlir_weight.mlir"
    assert f"{saved}:" in err and "'tensor.cast'" in err
    line = int(err.split(f"{saved}:")[1].split(":")[0])
    assert "tensor.cast" in Path(saved).read_text().splitlines()[line - 1]
    program = parse_file(str(out))
    rows = numerics_rows(make_conv(**cfg, grads=("input", "weight")), program, dtypes=("f32",),
                         frontend="torch-mlir-decomposed")
    eager = {g: st[2] for g, _, src, st in rows if src == "PyTorch"}
    wrong = next(st for g, _, src, st in rows if g == "weight" and src == "torch-mlir-decomposed -> IREE")
    assert isinstance(wrong, str) or wrong[2] > max(1.0, 100 * eager["weight"]), wrong


def test_the_fixture_script_still_writes_the_committed_fixtures():
    """tests/support/make_mlir_fixtures.py regenerates one committed lowering of each frontend
    as committed (the fixtures the proofs read are what the pinned frontends write)."""
    sys.path.insert(0, str(ROOT / "tests" / "support"))
    import make_mlir_fixtures as mk

    for frontend in ("torch-mlir", "iree-turbine"):
        if frontend == "iree-turbine":
            pytest.importorskip("iree.turbine")
        stem, text, suffix = mk.conv_fixture("pad0", "input", frontend)
        assert suffix == ".mlir"
        assert text == (ROOT / "tests" / "fixtures" / "mlir" / f"{stem}{suffix}").read_text()


def test_run_target_iree_prints_the_numerics_report(tmp_path, capsys):
    out = tmp_path / "pad0.vs"
    assert main(_argv(CONVS["pad0"], out)) == 0
    capsys.readouterr()
    rc = main(["run", str(out), "--target", "iree"])
    r = capsys.readouterr()
    assert rc == 0, r.out + r.err
    assert "claim torch_mlir_input_grad == input_grad_reference (input_grad_reference in C, " \
           "torch_mlir_input_grad through IREE): ok" in r.out
    assert "numerics (as IREE's verify-numerics)" in r.out
    for g in ("input", "weight"):
        assert f"torch-mlir lowering torch_mlir_{g}_grad (IREE) vs the direct kernel {g}_grad (C): ok" in r.out
    for dtype in ("f32", "bf16"):
        assert f"{'weight':8}{dtype:7}imported -> IREE" in r.out


def test_exported_lowering_is_proved_by_vsched_verify(tmp_path, capsys):
    """The whole pipeline: export with torch-mlir now, import, prove (profile finite, declared
    by the file), and the report says the finite-input assumption was used."""
    out = tmp_path / "stride3.vs"
    assert main(_argv(CONVS["stride3"], out)) == 0
    capsys.readouterr()
    rc = main(["verify", str(out), "--no-cache", "--timeout", "120"])
    r = capsys.readouterr()
    assert rc == 0, r.out + r.err
    for g in ("input", "weight"):
        assert f"torch_mlir_{g}_grad == {g}_grad_reference: LEGAL" in r.out
    assert "assuming finite inputs (the finite profile)" in r.out
    rc = main(["verify", str(out), "--no-cache", "--timeout", "120", "--profile", "reproducible"])
    r = capsys.readouterr()
    assert rc != 0 and "assuming finite" not in r.out


@pytest.mark.slow
@pytest.mark.parametrize("frontend", ["torch-mlir", "iree-turbine"])
def test_seed_family_exported_now_is_proved_and_runs_equal_through_iree(tmp_path, capsys, frontend):
    """Issue 21 "done when": the seed family through each frontend, exported with the pinned
    frontend now, proved and run through IREE (all 18 pairs: tests/support/conv_iree_sweep.py)."""
    if frontend == "iree-turbine":
        pytest.importorskip("iree.turbine")
    out = tmp_path / "seed.vs"
    assert main(_argv(CONVS["seed_nhwc"], out, frontend)) == 0
    capsys.readouterr()
    assert main(["verify", str(out), "--no-cache", "--timeout", "120"]) == 0
    capsys.readouterr()
    rc = main(["run", str(out), "--target", "iree"])
    r = capsys.readouterr()
    assert rc == 0, r.out + r.err
    stem = "turbine" if frontend == "iree-turbine" else "torch_mlir"
    for g in ("input", "weight"):
        assert f"claim {stem}_{g}_grad == {g}_grad_reference" in r.out and ": ok" in r.out
