"""`vsched tune` (issue 25 item 2): only proved-legal candidates are compiled and run, and the
best schedule is printed as DSL text that the verifier proves. Timing is a fake clock."""
from __future__ import annotations

import itertools

from verified_sched.tune import search as tune
from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.gate.cache import ProofCache
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json

MATMUL = """
params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
kernel matmul {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}
"""
SIZES = {"N": 6, "M": 9, "K": 5}


def _verdict(text: str) -> str:
    program = parse_text(text)
    return file_report_json(verify_program(program), "t")["verdict"]


def test_tune_runs_only_legal_candidates(tmp_path):
    program = parse_text(MATMUL)
    legal = tune.candidates(program, "matmul", limit=1)[0]
    illegal = tune.Candidate("vectorized reduction", ("retype k as vectorized",))
    ticks = itertools.count()
    result = tune.tune(program, "matmul", SIZES, repeat=1, cands=[illegal, legal],
                       clock=lambda: next(ticks), cache=ProofCache(folder=tmp_path))
    assert illegal.status == "illegal" and legal.status == "legal"
    assert result.ran == [legal.label] and result.best is legal
    assert result.numpy_seconds is not None
    text = result.schedule_text()
    assert text.startswith("schedule matmul {") and "privatize c over" in text
    # the printed text is what was verified: the candidate program re-parsed from it
    assert tune.with_schedule(program, "matmul", legal.ops) == parse_text(tune.with_text(program, "matmul") + text, "<tune>")


def test_candidates_are_dsl_that_parses_and_order_by_adjacent_swaps():
    program = parse_text(MATMUL)
    cands = tune.candidates(program, "matmul")
    assert len(cands) == 2 * len(tune.ROWS) * len(tune.COLS) * len(tune.KBLOCK) * 2
    for cand in cands[:6]:
        tune.with_schedule(program, "matmul", cand.ops)  # parses, names fresh
    assert tune._swaps(["a", "b", "c"], ["c", "a", "b"]) == ["interchange b, c", "interchange a, c"]


def test_cli_tune_prints_a_verifiable_schedule(tmp_path, capsys):
    src = tmp_path / "mm.vs"
    src.write_text(MATMUL)
    out = tmp_path / "best.vs"
    code = main(["tune", str(src), "--kernel", "matmul", "--size", "N=6,M=9,K=5", "--max-candidates", "1",
                 "--repeat", "1", "-o", str(out)])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    assert "schedule matmul {" in cap.out and "legal candidates run" in cap.out
    assert _verdict(out.read_text()) == "legal"


def test_cli_tune_usage_errors(tmp_path, capsys):
    src = tmp_path / "mm.vs"
    src.write_text(MATMUL)
    assert main(["tune", str(src), "--kernel", "nope", "--size", "N=6,M=9,K=5"]) == 2
    assert "no kernel 'nope'" in capsys.readouterr().err
    flat = tmp_path / "copy.vs"
    flat.write_text("params N where N >= 1\ntensor x[N] f32\ntensor y[N] f32\n"
                    "kernel copy {\n  for i in 0 .. N {\n    y[i] = x[i]\n  }\n}\n")
    assert main(["tune", str(flat), "--kernel", "copy", "--size", "N=8"]) == 2
    assert "no nest" in capsys.readouterr().err


def test_candidates_rank_register_tiles_for_the_target_isa():
    """Counted, not timed: the C backend holds a tile in registers whole (codegen/c_tile.py), so
    on each ISA the tiles that fill its vector registers come first; under AVX-512 the first
    is the shipped schedule's shape (examples/sgemm_register_tile.vs: 6 rows x 64 columns,
    k blocked by 256, c privatized), so a tune of a few candidates finds it."""
    from codegen.c_tile import TARGETS

    program = parse_text(MATMUL)
    avx512, avx, sse = ((nbytes, regs) for _, nbytes, regs in TARGETS)
    first = tune.candidates(program, "matmul", target=avx512)[0]
    assert first.label == "R=6 V=64 KB=256 privatize unroll"
    assert tune.candidates(program, "matmul", target=avx)[0].label.startswith("R=6 V=16 ")
    assert tune.candidates(program, "matmul", target=sse)[0].label.startswith("R=2 V=16 ")
    ranked = tune.candidates(program, "matmul", target=avx512)
    assert sorted(c.label for c in ranked) == sorted(c.label for c in tune.candidates(program, "matmul"))
    assert tune.candidates(program, "matmul", limit=3, target=avx512) == ranked[:3]


def test_tune_times_numpy_on_one_blas_thread(monkeypatch):
    from verified_sched.tune import blas

    calls = []
    monkeypatch.setattr(blas, "_functions", lambda: (calls.append, lambda: 2))
    with blas.one_thread() as ok:
        assert ok and calls == [1]
    assert calls == [1, 2]
    monkeypatch.setattr(blas, "_functions", lambda: None)
    with blas.one_thread() as ok:
        assert not ok
