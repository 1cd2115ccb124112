"""`vsched import`: linalg on tensors (the committed torch-mlir fixtures) to .vs programs, checked
by running them against the C reference. Needs only xdsl (fixtures: make_mlir_fixtures.py)."""
from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("xdsl")

from codegen.build import load_c  # noqa: E402
from verified_sched.core.dtypes import NP_DTYPE, global_tensors, storage_shape  # noqa: E402
from verified_sched.oracle.compare import compare_kernels  # noqa: E402
from verified_sched.dsl.parser import parse_file, parse_text  # noqa: E402
from verified_sched.core.printer import print_kernel, print_program  # noqa: E402
from verified_sched.core.errors import UsageError  # noqa: E402
from verified_sched.generators.conv_backward import conv_backward_dsl, make_conv  # noqa: E402
from verified_sched.mlir.emit import emit_mlir  # noqa: E402
from support.mlir_import import import_mlir, import_mlir_file  # noqa: E402
from verified_sched.mlir.importer import Importer  # noqa: E402
from verified_sched.mlir.run_iree import expressible  # noqa: E402
from verified_sched.mlir.torch_pipeline import against_torch_mlir_text  # noqa: E402
from verified_sched.mlir.ximport import MlirImportError  # noqa: E402
from verified_sched.analysis.sizes import example_sizes  # noqa: E402

FIX = Path(__file__).parent / "fixtures" / "mlir"
CONVS = json.loads((FIX / "convs.json").read_text())
CASES = Path(__file__).parent / "cases"


FIXTURE_STEM = {"torch-mlir": "conv_{name}_{grad}", "iree-turbine": "turbine_{name}_{grad}",
                "torch-mlir-decomposed": "conv_{name}_{grad}.decomposed"}
FRONTENDS = ("torch-mlir", "iree-turbine")


def conv_program_refused(name: str, frontend: str = "torch-mlir"):
    """The conv-backward program of fixture configuration `name` with the committed lowerings of
    `frontend` imported, and the gradients refused."""
    cfg = CONVS[name]
    cv = make_conv(**cfg, grads=("input", "weight"))
    base = conv_backward_dsl(**cfg, grads=("input", "weight"))

    def source(grad):
        stem = FIX / FIXTURE_STEM[frontend].format(name=name, grad=grad)
        path = Path(f"{stem}.mlir")
        if not path.exists():
            raise MlirImportError(Path(f"{stem}.error").read_text().strip())
        return path.read_text()

    text, refused = against_torch_mlir_text(cv, base, source, frontend=frontend)
    return parse_text(text), refused


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("name", list(CONVS))
def test_imported_conv_lowering_equals_chain_rule_reference(name, frontend):
    """The imported kernels of torch-mlir's direct lowering and of iree-turbine compute the
    reference's gradients (C backend both sides), grouped and depthwise included."""
    program, refused = conv_program_refused(name, frontend)
    stem = "turbine" if frontend == "iree-turbine" else "torch_mlir"
    names = {k.name for k in program.kernels}
    assert not refused
    for grad in ("input", "weight"):
        assert f"{stem}_{grad}_grad" in names
        report = compare_kernels(program, f"{grad}_grad_reference", f"{stem}_{grad}_grad", {},
                                 rtol=1e-4, atol=1e-5)
        assert report.ok and not report.vacuous, report.text()
        assert any(cl.a == f"{stem}_{grad}_grad" and cl.b == f"{grad}_grad_reference" for cl in program.claims)


@pytest.mark.parametrize("name", ["seed_nhwc", "seed_nchw"])
def test_decomposed_path_mislowers_the_grouped_weight_gradient(name):
    """torch-mlir's default path (DecomposeComplexOps, `--against torch-mlir-decomposed`) still
    lowers the seed's input gradient correctly; its weight gradient is refused (the cast)."""
    program, refused = conv_program_refused(name, "torch-mlir-decomposed")
    names = {k.name for k in program.kernels}
    assert "torch_mlir_input_grad" in names and "torch_mlir_weight_grad" not in names
    assert len(refused) == 1 and "'tensor.cast'" in refused[0]
    report = compare_kernels(program, "input_grad_reference", "torch_mlir_input_grad", {}, rtol=1e-4, atol=1e-5)
    assert report.ok and not report.vacuous, report.text()


def test_grouped_weight_grad_cast_of_wrong_shape_is_refused_with_its_line():
    """torch-mlir 20261001's default path lowers the grouped weight gradient to a 6x6x3x3
    result cast to the 6x2x3x3 weight shape: the importer names the cast and its position."""
    path = FIX / "conv_seed_nchw_weight.decomposed.mlir"
    text = path.read_text()
    with pytest.raises(MlirImportError) as info:
        import_mlir(text, str(path))
    e = info.value
    assert "'tensor.cast'" in e.message and "6x6x3x3" in e.message and "6x2x3x3" in e.message
    line = text.splitlines()[e.loc.line - 1]
    assert e.loc.file == str(path) and line[e.loc.col - 1:].startswith("tensor.cast")


def test_depthwise_lowering_fails_in_torch_mlirs_default_path():
    """Recorded finding: torch-mlir's default path cannot lower the depthwise backward (the
    direct lowering can: test_imported_conv_lowering_equals_chain_rule_reference)."""
    for grad in ("input", "weight"):
        assert "torch-mlir failed" in (FIX / f"conv_depthwise_{grad}.decomposed.error").read_text()
    assert "torch-mlir failed" in (FIX / "conv_depthwise_m2_weight.decomposed.error").read_text()


def test_util_func_of_iree_input_is_imported_with_positions():
    """IREE's torch input pipeline writes util.func/util.return: imported as func.func, and an
    error's column on such a file is the column in the file."""
    text = (FIX / "turbine_pad0_input.mlir").read_text()
    assert "util.func public @conv_backward" in text
    program = import_mlir(text, "t.mlir")
    assert [k.name for k in program.kernels] == ["conv_backward"]
    bad = text.replace("arith.mulf", "math.atan2", 1)
    with pytest.raises(MlirImportError) as info:
        import_mlir(bad, "t.mlir")
    line = bad.splitlines()[info.value.loc.line - 1]
    assert "'math.atan2'" in info.value.message and line[info.value.loc.col - 1:].startswith("math.atan2")


@pytest.mark.parametrize("model", ["mlp", "expsum", "mixed"])
def test_imported_model_matches_pytorch(model):
    program = import_mlir_file(str(FIX / f"{model}.mlir"))
    data = np.load(FIX / f"{model}.npz")
    sizes = {p: int(p[1:]) for p in program.params}
    arrays = {t.name: np.zeros(storage_shape(t, sizes), NP_DTYPE[t.prec]) for t in global_tensors(program)}
    k = 0
    while f"in{k}" in data:
        arrays[f"{model}_arg{k}"][...] = data[f"in{k}"]
        k += 1
    load_c(program).run(model, sizes, arrays)
    np.testing.assert_allclose(arrays[f"{model}_result0"], data["out0"], rtol=1e-5, atol=1e-6)


def test_generalized_fill_with_a_scalar_input_imports():
    """Regression (issue 21): the README's recipe `iree-opt --linalg-generalize-named-ops` makes
    every linalg.fill a linalg.generic whose input is a scalar (map `-> ()`); importing it
    exited 4 (an internal error). It imports and runs equal to PyTorch."""
    text = (FIX / "mlp_generalized.mlir").read_text()
    assert "ins(%cst : f32)" in text and "linalg.fill" not in text
    program = import_mlir(text, "mlp_generalized.mlir")
    data = np.load(FIX / "mlp.npz")
    sizes = {p: int(p[1:]) for p in program.params}
    arrays = {t.name: np.zeros(storage_shape(t, sizes), NP_DTYPE[t.prec]) for t in global_tensors(program)}
    for k in range(3):
        arrays[f"mlp_arg{k}"][...] = data[f"in{k}"]
    load_c(program).run("mlp", sizes, arrays)
    np.testing.assert_allclose(arrays["mlp_result0"], data["out0"], rtol=1e-5, atol=1e-6)


def test_a_dense_literal_constant_is_a_parameter():
    """A non-splat dense<[...]> constant (was refused) is an input tensor with its values kept."""
    from verified_sched.mlir.importer import Importer as Imp

    imp = Imp("func.func @f() -> tensor<2xf32> {\n  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
              "  return %c : tensor<2xf32>\n}\n", "c.mlir")
    program = imp.run()
    (name, values), = imp.constants.items()
    assert name in {t.name for t in program.tensors} and values.tolist() == [1.0, 2.0]


def test_import_cli_then_run(tmp_path):
    out = tmp_path / "mlp.vs"
    r = subprocess.run([sys.executable, "-m", "verified_sched", "import", str(FIX / "mlp.mlir"), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "params" in text and "== 3" in text and "kernel mlp" in text
    r = subprocess.run([sys.executable, "-m", "verified_sched", "run", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "kernel mlp (C vs interpreter): ok" in r.stdout


BAD = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.atan %in : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def test_unsupported_op_is_named_with_its_position(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text(BAD)
    r = subprocess.run([sys.executable, "-m", "verified_sched", "import", str(path)], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"{path}:5:10: 'math.atan': unsupported operation"), r.stderr


@pytest.mark.parametrize("text, fragment", [
    ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %r = tensor.cast %a : tensor<4xf32> to tensor<5xf32>\n"
     "  return %r : tensor<4xf32>\n}\n", "cannot parse"),
    ("func.func @f() -> tensor<2xbf16> {\n  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xbf16>\n"
     "  return %c : tensor<2xbf16>\n}\n", "a non-splat bf16 constant"),
    ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %r = tensor.cast %a : tensor<4xf32> to tensor<?xf32>\n"
     "  %s = tensor.cast %r : tensor<?xf32> to tensor<5xf32>\n  return %a : tensor<4xf32>\n}\n", "static shapes differ"),
    ("this is not MLIR", "cannot parse"),
])
def test_import_errors_are_usage_errors(text, fragment):
    with pytest.raises(UsageError) as info:
        import_mlir(text, "x.mlir")
    assert fragment in info.value.message


def _corpus_kernels():
    out = []
    for path in sorted(CASES.glob("*.vs")):
        program = parse_file(str(path))
        for k in program.kernels:
            if expressible(program, k.name) is None:
                out.append(pytest.param(path, k.name, id=f"{path.stem}-{k.name}"))
    return out


def _round_trip(program, kernel: str, sizes: dict):
    """emit --target mlir at `sizes`, import it back as kernel `round_trip` beside the original
    (its intermediates local), and compare the two in C, bitwise."""
    text = emit_mlir(program, sizes, [kernel])
    k = program.kernel(kernel)
    used = {n.tensor for n in _walk(k)}
    written = {n.tensor for n in _walk(k, writes=True)}
    args = [t.name for t in global_tensors(program) if t.name in used]
    imp = Importer(text, "emitted.mlir", params=False, prefix="rt_", memory="local",
                   bind={kernel: (args, [a for a in args if a in written], "round_trip")},
                   reserved=[t.name for t in program.tensors])
    imp.translate()
    extra = "\n".join(imp.tensor_lines()) + "\n\n" + "\n".join(print_kernel(k) for k in imp.kernels)
    full = parse_text(print_program(program) + "\n" + extra)
    return compare_kernels(full, kernel, "round_trip", sizes)


@pytest.mark.parametrize("path, kernel", _corpus_kernels())
def test_emit_then_import_round_trips_bitwise(path, kernel):
    """emit --target mlir, then import back: the imported kernel equals the original bit for bit
    (both follow the C typing rules and keep the loop order), at the largest example sizes."""
    program = dataclasses.replace(parse_file(str(path)), schedules=(), claims=())
    sizes = max(example_sizes(program, 3), key=lambda s: sum(s.values()))
    report = _round_trip(program, kernel, sizes)
    assert report.ok and not report.vacuous, report.text()


PRECS = ("f32", "f16", "bf16", "i32", "f64")


@st.composite
def _exprs(draw, depth=0, casts=PRECS):
    leaves = ["a[i, j]", "b[j]", "i", "j", "2", "0.75", "c[i]"]
    if depth >= 2 or draw(st.booleans()):
        return draw(st.sampled_from(leaves))
    kind = draw(st.sampled_from(["bin", "bin", "call", "where", "cast"]))
    x, y = draw(_exprs(depth + 1, casts)), draw(_exprs(depth + 1, casts))
    if kind == "bin":
        return f"({x} {draw(st.sampled_from(['+', '-', '*', '/']))} {y})"
    if kind == "call":
        fn = draw(st.sampled_from(["min", "max", "abs", "neg", "relu", "fma"]))
        return {"abs": f"abs({x})", "neg": f"neg({x})", "relu": f"relu({x})",
                "fma": f"fma({x}, {y}, 0.5)"}.get(fn, f"{fn}({x}, {y})")
    if kind == "where":
        return f"where({x} < {y}, {x}, {y})"
    return f"{draw(st.sampled_from(casts))}({x})"


@st.composite
def linalg_kernels(draw, casts=PRECS):
    """Kernels linalg can express: an elementwise 2-D nest and/or a row reduction, random
    precisions, values built from loads, iterators, constants, + - * /, calls, where, casts."""
    pa, pb, pc, py = (draw(st.sampled_from(PRECS)) for _ in range(4))
    body = []
    if draw(st.booleans()):
        body.append(f"  for i in 0 .. N {{\n    for j in 0 .. M {{\n      y[i, j] = {draw(_exprs(0, casts))}\n    }}\n  }}")
    op = draw(st.sampled_from(["+=", "*="]))
    if draw(st.booleans()) or not body:
        e = draw(_exprs(0, casts)).replace("c[i]", "b[j]")
        body.append(f"  zero c\n  for i in 0 .. N {{\n    for j in 0 .. M {{\n      c[i] {op} {e}\n    }}\n  }}")
    text = (f"params N, M where N >= 1, M >= 1\ntensor a[N, M] {pa}\ntensor b[M] {pb}\n"
            f"tensor c[N] {pc}\ntensor y[N, M] {py}\nkernel k {{\n" + "\n".join(body) + "\n}\n")
    return parse_text(text)


@settings(max_examples=25)
@given(linalg_kernels(), st.sampled_from([{"N": 1, "M": 1}, {"N": 3, "M": 5}, {"N": 6, "M": 2}]))
def test_emit_then_import_round_trips_random_kernels(program, sizes):
    report = _round_trip(program, "k", sizes)
    assert report.equal, report.text()


def _walk(kernel, writes=False):
    from verified_sched.core import ir

    for n in ir.walk(kernel.body):
        if isinstance(n, (ir.Assign, ir.Zero)) or (not writes and isinstance(n, ir.Load)):
            yield n


def _readme_recipe():
    """The fenced blocks of the README's "Scheduling an imported kernel" paragraph."""
    text = (Path(__file__).parents[1] / "docs" / "mlir.md").read_text()
    part = text.split("**Scheduling an imported kernel.**")[1].split("**IREE as a backend.**")[0]
    blocks = [b.split("\n", 1) for b in part.split("```")[1::2]]
    return {head.strip() or "schedule": body for head, body in blocks}


def test_readme_recipe_tiles_an_imported_bmm(tmp_path, monkeypatch, capsys):
    """Every imported loop has a name unique in its kernel (g<n>_i<k>), so the README's schedule
    of an imported linalg.batch_matmul applies, verifies and runs as written."""
    from verified_sched.cli import main

    blocks = _readme_recipe()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bmm.mlir").write_text(blocks["mlir"])
    (tmp_path / "schedule.vs").write_text(blocks["schedule"])
    for line in blocks["shell"].splitlines():
        cmd = line.split("#")[0].split()
        if cmd[0] == "cat":  # cat schedule.vs >> bmm.vs
            with open(cmd[3], "a") as fh:
                fh.write("\n" + (tmp_path / cmd[1]).read_text())
            continue
        assert cmd[0] == "vsched"
        rc = main(cmd[1:] + (["--no-cache"] if cmd[1] == "verify" else []))
        out = capsys.readouterr()
        assert rc == 0, (line, out.out, out.err)
        if cmd[1] == "run":
            assert "schedule of bmm: ok" in out.out
    program = parse_file(str(tmp_path / "bmm.vs"))
    loops = [n.var for n in _loops(program.kernel("bmm"))]
    assert loops == ["g0_i0", "g0_i1", "g0_i2", "g0_i3", "c0_i0", "c0_i1", "c0_i2"]


def _loops(kernel):
    from verified_sched.core import ir

    return [n for n in ir.walk(kernel.body) if isinstance(n, ir.For)]


def test_imported_loop_names_are_unique_per_kernel():
    """Regression (issue 21): every imported nest used i0, i1, ..., so no schedule could name
    one loop of an imported kernel."""
    program = import_mlir_file(str(FIX / "conv_seed_nhwc_weight.mlir"))
    names = [n.var for n in _loops(program.kernels[0])]
    assert len(names) == len(set(names)) and any(n.startswith("g") for n in names)


CONCAT_REDUCE = """func.func @f(%a: tensor<3x4xf32>, %b: tensor<2x4xf32>) -> tensor<5xf32> {
  %c = tensor.concat dim(0) %a, %b : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %r = linalg.reduce ins(%c : tensor<5x4xf32>) outs(%i : tensor<5xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<5xf32>
}
"""


def test_concat_and_reduce_import_and_run():
    """tensor.concat (each operand copied at its offset) and linalg.reduce (the `dimensions`
    reduced, its region the combiner) import and compute numpy's values."""
    program = import_mlir(CONCAT_REDUCE, "cr.mlir")
    sizes = {p: int(p[1:]) for p in program.params}
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((2, 4)).astype(np.float32)
    arrays = {t.name: np.zeros(storage_shape(t, sizes), NP_DTYPE[t.prec]) for t in global_tensors(program)}
    arrays["f_a"][...], arrays["f_b"][...] = a, b
    load_c(program).run("f", sizes, arrays)
    np.testing.assert_array_equal(arrays["f_result0"], np.maximum(np.concatenate([a, b]).max(axis=1), 0))


MAP_MLIR = """func.func @m(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.map { arith.addf } ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>)
  return %r : tensor<4xf32>
}
"""


@pytest.mark.skipif(shutil.which("iree-opt") is None, reason="needs iree-opt (the .[iree] extra)")
def test_linalg_map_imports_through_iree_opts_generalization(tmp_path, capsys):
    """Issue 21 item 3: xdsl 0.74 does not parse `linalg.map`'s short form; the importer then
    imports what `iree-opt --linalg-generalize-named-ops` prints (a linalg.generic)."""
    from verified_sched.cli import main

    (tmp_path / "map.mlir").write_text(MAP_MLIR)
    assert main(["import", str(tmp_path / "map.mlir"), "-o", str(tmp_path / "map.vs")]) == 0
    text = (tmp_path / "map.vs").read_text()
    assert "empty[g0_i0] = m_arg0[g0_i0] + m_arg1[g0_i0]" in text
    capsys.readouterr()
    assert main(["run", str(tmp_path / "map.vs")]) == 0
    assert "kernel m (C vs interpreter): ok" in capsys.readouterr().out


def test_unparseable_mlir_keeps_its_location_when_the_fallback_fails_too(tmp_path, capsys):
    from verified_sched.cli import main

    (tmp_path / "bad.mlir").write_text(MAP_MLIR.replace("arith.addf }", "arith.addf"))
    assert main(["import", str(tmp_path / "bad.mlir")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'bad.mlir'}:3:" in err and "cannot parse the MLIR" in err and "Traceback" not in err
