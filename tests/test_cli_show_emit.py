"""`vsched show` and `vsched emit`, in process (main(argv) with capsys)."""
from __future__ import annotations

from pathlib import Path

import pytest

from verified_sched.cli import main
from verified_sched.dsl import parse_file, parse_text

CASES = Path(__file__).resolve().parent / "cases"
FILES = sorted(CASES.glob("*.vs"))
EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.vs"))


@pytest.mark.parametrize("path", FILES + EXAMPLES, ids=[f"{f.parent.name}/{f.stem}" for f in FILES + EXAMPLES])
def test_show_prints_a_program_that_parses_back(path, capsys):
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert parse_text(out, "shown.vs") == parse_file(path)


def test_corpus_is_there(cases_dir):
    assert len(FILES) >= 30


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_show_after_k_ops_keeps_the_remaining_schedule(k, capsys, repo_root):
    path = repo_root / "examples" / "matmul.vs"
    assert main(["show", str(path), "--after", str(k)]) == 0
    shown = parse_text(capsys.readouterr().out, "after.vs")
    ops = parse_file(path).schedules[0].ops
    assert shown.schedules[0].ops == ops[k:] if k < len(ops) else not shown.schedules
    names = {n.var for n in _loops(shown.kernels[0].body)}
    assert ("io" in names) and (("jo" in names) == (k >= 2))


def _loops(body):
    from verified_sched.core import ir

    return [n for n in ir.walk(body) if isinstance(n, ir.For)]


def test_show_after_too_many_ops_is_a_usage_error(capsys, repo_root):
    assert main(["show", str(repo_root / "examples" / "matmul.vs"), "--after", "9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vsched: error:") and "4 schedule op(s)" in err


def test_show_after_an_op_whose_precondition_fails(tmp_path, capsys):
    src = tmp_path / "bad.vs"
    src.write_text("params N where N >= 1\ntensor x[N] f32\nkernel k {\n  for i in 0 .. N {\n"
                   "    x[i] = 1.0\n  }\n}\nschedule k {\n  interchange i, nope\n}\n")
    assert main(["show", str(src), "--after", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{src}:9:3: ") and "Traceback" not in err


def test_emit_c_to_a_file_is_the_scheduled_kernel(tmp_path, capsys, repo_root):
    out = tmp_path / "m.c"
    assert main(["emit", str(repo_root / "examples" / "matmul.vs"), "--target", "c", "-o", str(out)]) == 0
    text = out.read_text()
    assert "void vs_matmul(int64_t N, int64_t M, int64_t K" in text
    assert "#pragma omp simd" in text and "jo" in text  # the schedule was applied
    assert main(["emit", str(repo_root / "examples" / "matmul.vs"), "--after", "0"]) == 0
    assert "#pragma omp simd" not in capsys.readouterr().out


def test_emit_cuda(capsys, repo_root):
    code = main(["emit", str(repo_root / "examples" / "shared_with_barrier.vs"), "--target", "cuda"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    assert "__global__" in cap.out and "__shared__" in cap.out and "__syncthreads()" in cap.out
