"""Tensor-core emission (codegen/cuda_mma.py): where the CUDA backend renders WMMA, where it keeps
the scalar fallback, nvcc compile checks (skipped without nvcc), and the C/emulation paths of an
f16 kernel still running its fallback. No GPU here: the intrinsic's numerics are not run."""
from __future__ import annotations

import json
import re
import shutil

import pytest

from codegen.cuda import emit_cuda
from support.nvcc import compile_cuda
from codegen.emulate import load_emulated
from verified_sched.oracle.compare import compare_kernels
from verified_sched.cli import main
from verified_sched.dsl import parse_file, parse_text
from support.scheduling import scheduled

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")

SCHEDULE = """schedule matmul {{
  split i by {t} -> bi, ii
  split j by {t} -> bj, ji
  split k by {t} -> ko, ki
  interchange ii, bj
  interchange ji, ko
  interchange ii, ko
  retype bi as block.y
  retype bj as block.x
  tensorize ii, ji, ki simd={simd}
}}
"""


def matmul(ab="f16", c="f32", t=16, simd=32) -> str:
    """The corpus case tensorize_matmul with operand/target precisions and tile size varied."""
    return (f"params TN, TM, TK where TN >= 1, TM >= 1, TK >= 1\n"
            f"tensor a[{t} * TN, {t} * TK] {ab}\ntensor b[{t} * TK, {t} * TM] {ab}\n"
            f"tensor c[{t} * TN, {t} * TM] {c}\n"
            "kernel matmul {\n  zero c\n  for i in 0 .. " f"{t} * TN {{\n    for j in 0 .. {t} * TM {{\n"
            f"      for k in 0 .. {t} * TK {{\n        c[i, j] += a[i, k] * b[k, j]\n      }}\n    }}\n  }}\n}}\n"
            + SCHEDULE.format(t=t, simd=simd))


def cuda(text: str) -> str:
    return emit_cuda(scheduled(parse_text(text)))


def compiles(src: str, tmp_path, what="-c") -> str:
    """nvcc the source (cuda.py's flags: sm_80); the PTX text for what='-ptx', else ''."""
    r = compile_cuda(src, tmp_path, what=what)
    assert r.returncode == 0, r.stderr[-4000:]
    return (tmp_path / "kernel.ptx").read_text() if what == "-ptx" else ""


# ---------------------------------------------------------------- when the intrinsic fires


def test_f16_block_is_wmma_with_runtime_fallback():
    src = cuda(matmul())
    assert "#include <mma.h>" in src
    for piece in ("wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, nvcuda::wmma::row_major>",
                  "wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __half, nvcuda::wmma::row_major>",
                  "wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float>",
                  "wmma::mma_sync(", "wmma::store_matrix_sync(", "nvcuda::wmma::mem_row_major"):
        assert piece in src, piece
    # leading dimensions from the storage dims, tested at run time with alignment and geometry
    assert re.search(r"vs_lda\d+ = 16 \* TK, vs_ldb\d+ = 16 \* TM, vs_ldd\d+ = 16 \* TM;", src)
    assert "blockDim.x % 32 == 0" in src and "& 31) == 0" in src
    # the intrinsic is warp-wide; the scalar fallback stays in the else branch under lane == 0
    wmma_part, fallback_part = src.split("} else {  /* alignment or geometry")
    assert "lane == 0" not in wmma_part.split("tensor core 16 x 16 x 16: nvcuda::wmma")[1]
    assert "if (lane == 0)" in fallback_part and "vs_h2f(a[" in fallback_part


def test_larger_multiple_of_16_loops_over_fragments():
    src = cuda(matmul(t=32))
    assert "wmma::mma_sync(" in src
    assert re.search(r"for \(int64_t vs_tk\d+ = 0; vs_tk\d+ < 32; vs_tk\d+ \+= 16\)", src)


@pytest.mark.parametrize("text", [matmul(ab="f32"), matmul(c="f16"), matmul(t=8), matmul(simd=64)],
                         ids=["f32", "f16-target", "8x8x8", "simd64"])
def test_other_blocks_keep_the_scalar_fallback(text):
    src = cuda(text)
    assert "wmma" not in src and "<mma.h>" not in src
    assert "if (lane == 0) {  /* tensor core" in src


def test_mixed_operand_precisions_keep_the_fallback():
    src = cuda(matmul().replace("tensor b[16 * TK, 16 * TM] f16", "tensor b[16 * TK, 16 * TM] bf16"))
    assert "wmma" not in src


# ---------------------------------------------------------------- nvcc (compile only)


@needs_nvcc
def test_f16_wmma_compiles_to_tensor_core_ptx(tmp_path):
    ptx = compiles(cuda(matmul()), tmp_path, "-ptx")
    assert "wmma.mma.sync" in ptx and ".f16" in ptx


@needs_nvcc
def test_bf16_wmma_compiles(tmp_path):
    src = cuda(matmul(ab="bf16"))
    assert "__nv_bfloat16, nvcuda::wmma::row_major>" in src
    ptx = compiles(src, tmp_path, "-ptx")
    assert "wmma.mma.sync" in ptx and ".bf16" in ptx


@needs_nvcc
def test_f32_corpus_case_emits_no_wmma_and_compiles(cases_dir, tmp_path):
    src = emit_cuda(scheduled(parse_file(cases_dir / "tensorize_matmul.vs")))
    assert "wmma" not in src and "if (lane == 0)" in src
    compiles(src, tmp_path)


# ---------------------------------------------------------------- C, emulation, verification


@pytest.mark.parametrize("sizes", [{"TN": 1, "TM": 1, "TK": 1}, {"TN": 2, "TM": 1, "TK": 2}])
def test_f16_kernel_c_and_emulation_equal_unscheduled(sizes):
    p = parse_text(matmul())
    after = scheduled(p)
    rep = compare_kernels(p, "matmul", "matmul", sizes, seed=3, program_cand=after)
    assert rep.equal and not rep.vacuous, rep.text()
    rep = compare_kernels(p, "matmul", "matmul", sizes, seed=3, program_cand=after,
                          runner_cand=load_emulated(after, seed=5).run)
    assert rep.equal and not rep.vacuous, rep.text()


def test_f16_kernel_verifies_legal(tmp_path, capsys):
    path = tmp_path / "tensorize_f16.vs"
    path.write_text(matmul())
    assert main(["verify", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "legal"
