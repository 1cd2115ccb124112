"""`vsched emit --target mlir` and IREE as a backend: every corpus kernel linalg can express
compiles with iree-compile and runs equal to the C oracle (bitwise without accumulations,
within the reassociation tolerance otherwise); what linalg cannot express is refused by name."""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

from codegen.build import load_c  # noqa: E402
from verified_sched.oracle.compare import compare_kernels  # noqa: E402
from verified_sched.dsl.parser import parse_file, parse_text  # noqa: E402
from verified_sched.core.errors import UsageError  # noqa: E402
from verified_sched.mlir.emit import emit_mlir  # noqa: E402
from verified_sched.mlir.iree_backend import IreeError, factory, load_iree  # noqa: E402
from verified_sched.core.printer import print_program  # noqa: E402
from verified_sched.mlir.run_iree import expressible, has_accumulation  # noqa: E402
from verified_sched.analysis.sizes import example_sizes  # noqa: E402
from test_mlir_import import linalg_kernels  # noqa: E402

CASES = Path(__file__).parent / "cases"
ROOT = Path(__file__).resolve().parents[1]


def _vsched(*args):
    return subprocess.run([sys.executable, "-m", "verified_sched", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


def _corpus():
    out, refused = [], []
    for path in sorted(CASES.glob("*.vs")):
        program = parse_file(str(path))
        for k in program.kernels:
            (out if expressible(program, k.name) is None else refused).append((path, k.name))
    return out, refused


CORPUS, REFUSED = _corpus()


def test_most_of_the_corpus_is_expressible():
    # most kernels: the refused ones use guards, min/max indices or GPU axes linalg cannot
    # express (the fuzz regressions add such kernels; a proportion, not a count, bounds them)
    assert len(CORPUS) >= 20 and len(REFUSED) <= len(CORPUS) // 2, (len(CORPUS), REFUSED)


@pytest.mark.parametrize("path, kernel", [pytest.param(p, k, id=f"{p.stem}-{k}") for p, k in CORPUS])
def test_corpus_kernel_on_iree_equals_c(path, kernel):
    program = dataclasses.replace(parse_file(str(path)), schedules=(), claims=())
    sizes = max(example_sizes(program, 3), key=lambda s: sum(s.values()))
    rtol = 1e-4 if has_accumulation(program, kernel) else None
    report = compare_kernels(program, kernel, kernel, sizes, seed=1, runner_ref=load_c(program).run,
                             runner_cand=load_iree(program).run, rtol=rtol, atol=rtol or 0.0)
    assert report.ok and not report.vacuous, report.text()


MIXED = """params N where N >= 1
tensor a[N] bf16
tensor b[N] bf16
tensor s[N] f32
tensor h[N] f16
tensor q[N] i32
tensor d[N] f64
kernel mixed {
  for i in 0 .. N {
    b[i] = a[i] * 3.1 + 1
  }
  for i in 0 .. N {
    s[i] = where(a[i] > 0, a[i] / 7 + h[i], min(a[i], h[i])) + f16(s[i] * 1.1)
  }
  for i in 0 .. N {
    h[i] = h[i] * 1.7 - abs(a[i])
  }
  for i in 0 .. N {
    q[i] = q[i] / (q[i] % 5 - 2) + i * 3
  }
  for i in 0 .. N {
    d[i] = d[i] * 0.1 + fma(d[i], 1.5, f32(d[i])) - floor(i / 3)
  }
}
"""


def test_precisions_and_functions_bitwise_through_iree():
    program = parse_text(MIXED)
    for sizes in ({"N": 1}, {"N": 37}):
        for inputs in ("random", "small-int"):
            report = compare_kernels(program, "mixed", "mixed", sizes, inputs=inputs,
                                     runner_ref=load_c(program).run, runner_cand=factory(program))
            assert report.ok and not report.vacuous, report.text()


@pytest.mark.parametrize("body, fragment", [
    ("for i in 0 .. N {\n if i < 3 {\n y[i] = x[i]\n }\n}", "a guard (if i < 3)"),
    ("for i in 1 .. N {\n y[i] = y[i - 1] + x[i]\n}", "the read y[i - 1] of the tensor it writes"),
    ("for i in 0 .. N {\n y[i] = x[min(i + 1, N - 1)]\n}", "the min index min(i + 1, 4 - 1) (in `y[i] = x[min(i + 1, N - 1)]`)"),
    ("for i in 0 .. N {\n y[i] = x[k[i]]\n}", "non-affine (dynamic) index k[i]"),
    ("for i in 0 .. N {\n for j in 0 .. N {\n y[i] = x[j]\n }\n}", "loop j, which does not index the written cell"),
    ("for i in 0 .. N {\n for j in 0 .. i {\n z[i] += x[j]\n }\n}", "the loop bound of j, which depends on i"),
    ("for i in 0 .. N {\n y[N - 1 - i] = x[i]\n}", "the written index 4 - 1 - i"),
    ("for b in 0 .. 2 : block.x {\n for i in 0 .. N : thread.x {\n y[i] = x[i]\n }\n barrier\n}", "a barrier"),
])
def test_refusals_name_what_linalg_cannot_express(body, fragment):
    program = parse_text(f"params N where N >= 2\ntensor x[N] f32\ntensor y[N] f32\ntensor z[N] f32\n"
                         f"tensor k[N] i32\nkernel bad {{\n{body}\n}}\n", "bad.vs")
    with pytest.raises(UsageError) as info:
        emit_mlir(program, {"N": 4})
    assert fragment in info.value.message and "linalg cannot express" in info.value.message
    assert info.value.loc is not None and info.value.loc.file == "bad.vs"


def test_emit_cli_matmul():
    r = _vsched("emit", "examples/matmul.vs", "--target", "mlir", "--size", "N=4,M=5,K=6")
    assert r.returncode == 0, r.stderr
    assert "func.func @matmul(%arg0: tensor<4x6xf32>, %arg1: tensor<6x5xf32>, %arg2: tensor<4x5xf32>)" in r.stdout
    assert 'iterator_types = ["parallel", "parallel", "reduction"]' in r.stdout
    assert "linalg.fill" in r.stdout and "affine_map<(d0, d1, d2) -> (d0, d2)>" in r.stdout


def test_emit_cli_errors():
    r = _vsched("emit", "examples/matmul.vs", "--target", "mlir")
    assert r.returncode == 2 and "needs static sizes: give --size N=..,M=..,K=.." in r.stderr
    r = _vsched("emit", "tests/cases/prefix_vectorize.vs", "--target", "mlir", "--size", "N=5")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("tests/cases/prefix_vectorize.vs:11:5: kernel prefix: linalg cannot express")


def test_run_target_iree_cli():
    r = _vsched("run", "tests/cases/matmul_tiled.vs", "--target", "iree", "--size", "N=5,M=7,K=9")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "kernel matmul as written (C vs IREE): ok" in r.stdout
    r = _vsched("run", "tests/cases/claim_matmul_orders.vs", "--target", "iree", "--size", "N=3,M=4,K=5")
    assert r.returncode == 0 and r.stdout.count(": ok") == 1, r.stdout + r.stderr
    r = _vsched("run", "tests/cases/concat_partition.vs", "--target", "iree", "--size", "N=3,M=4")
    assert r.returncode == 0 and "comparing in C only" in r.stderr, r.stdout + r.stderr


def test_iree_finds_a_wrong_kernel():
    """The runner is a real backend: a kernel that differs from the reference is reported."""
    program = parse_text("params N where N >= 1\ntensor x[N] f32\ntensor y[N] f32\n"
                         "kernel a {\n for i in 0 .. N {\n y[i] = x[i] * 2\n }\n}\n"
                         "kernel b {\n for i in 0 .. N {\n y[i] = x[i] + x[i] + x[i]\n }\n}\n")
    report = compare_kernels(program, "a", "b", {"N": 9}, runner_ref=load_c(program).run,
                             runner_cand=factory(program))
    assert not report.ok


@settings(max_examples=10)
@given(linalg_kernels(casts=("f32", "f16", "i32", "f64")), st.sampled_from([{"N": 1, "M": 1}, {"N": 3, "M": 5}, {"N": 6, "M": 2}]))
def test_random_kernels_on_iree_equal_c(program, sizes):
    """Random precisions, calls, where and casts: IREE computes the C oracle's bits (a product
    reduction within tolerance: IREE may reorder it). No bf16 casts inside expressions: see
    test_iree_keeps_the_rounding_of_a_bf16_cast."""
    rtol = 1e-2 if has_accumulation(program, "k") else None
    try:
        report = compare_kernels(program, "k", "k", sizes, runner_ref=load_c(program).run,
                                 runner_cand=factory(program), rtol=rtol, atol=rtol or 0.0)
    except IreeError as e:
        raise AssertionError(f"{print_program(program)}\nat {sizes}:\n{emit_mlir(program, sizes)}\n{e}") from None
    assert report.equal, report.text()


def test_iree_keeps_the_rounding_of_a_bf16_cast():
    """Found by benchmarks/iree_fuzz.py: IREE 3.13 (llvm-cpu) dropped the rounding of
    arith.truncf f32->bf16 followed by arith.extf (a cast bf16(e) inside an expression); the
    emitter now spells f32 -> bf16 in integer ops, as the semantics table and C's vs_f2bf."""
    program = parse_text("params N where N >= 1\ntensor x[N] f32\ntensor y[N] f32\n"
                         "kernel k {\n for i in 0 .. N {\n y[i] = bf16(x[i] / 0.5)\n }\n}\n")
    report = compare_kernels(program, "k", "k", {"N": 16}, runner_ref=load_c(program).run,
                             runner_cand=factory(program))
    assert report.ok, report.text()


def test_emit_of_a_write_at_a_constant_index_of_an_extent_1_dimension():
    """Regression (issue 21, softmax/LayerNorm imported from torch-mlir): `s[i, 0] += a[i, j]`
    into s[N, 1] was emitted as the whole 2-D tensor with a 1-D output map, which iree-compile
    rejects (`operand #1 rank (2) to match the result rank of indexing_map (1)`); it is a
    rank-reducing slice like any other constant index."""
    program = parse_text("params N, M where N >= 1, M >= 1\ntensor a[N, M] f32\ntensor s[N, 1] f32\n"
                         "kernel k {\n  zero s\n  for i in 0 .. N {\n    for j in 0 .. M {\n"
                         "      s[i, 0] += a[i, j]\n    }\n  }\n}\n")
    text = emit_mlir(program, {"N": 3, "M": 4})
    assert "tensor.extract_slice" in text and "tensor.insert_slice" in text
    generic = next(line for line in text.splitlines() if "linalg.generic" in line)
    assert "outs(%" in generic and "tensor<3xf32>" in generic.split("outs(")[1]
