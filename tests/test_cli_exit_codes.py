"""The exit-code table of every command: 0 legal/equal, 1 illegal/different, 2 usage or input
error, 3 unknown (verify), 4 internal error (one line; the traceback only with --debug or
VSCHED_DEBUG=1)."""
from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from verified_sched.core import exits
from verified_sched.cli import main
from verified_sched.report.results import worst_exit

UNKNOWN = """params N where N >= 1
tensor A[N] f32
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    if A[i] > 0 {
      y[i] = 1.0
    }
    A[i] = x[i]
  }
}
schedule k {
  partition i at 1 -> i0, i1
}
"""


def test_verify_unknown_exits_3_not_1(tmp_path, capsys):
    path = tmp_path / "unknown.vs"
    path.write_text(UNKNOWN)
    assert main(["verify", str(path)]) == 3
    assert capsys.readouterr().out.rstrip().endswith(": unknown")


def test_verify_several_files_exits_with_the_most_severe(tmp_path, repo_root, cases_dir, capsys):
    unknown = tmp_path / "unknown.vs"
    unknown.write_text(UNKNOWN)
    bad = tmp_path / "bad.vs"
    bad.write_text("kernel k {\n")
    legal, illegal = repo_root / "examples" / "matmul.vs", cases_dir / "stencil_interchange_illegal.vs"
    assert main(["verify", str(legal), str(unknown)]) == 3
    assert main(["verify", str(unknown), str(illegal)]) == 1
    assert main(["verify", str(illegal), str(bad), str(unknown)]) == 2
    capsys.readouterr()
    statuses = [SimpleNamespace(status=s) for s in ("legal", "unknown", "illegal", "input", "internal")]
    assert [worst_exit(statuses[:k]) for k in range(6)] == [0, 0, 3, 1, 2, 4]


def _boom(args):
    raise ZeroDivisionError("division by zero in a helper")


def test_internal_error_is_exit_4_with_one_line_and_no_traceback(capsys, monkeypatch):
    monkeypatch.delenv("VSCHED_DEBUG", raising=False)
    assert exits.run_guarded(_boom, None) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("vsched: internal error: ZeroDivisionError: division by zero in a helper")
    assert "please report this; rerun with --debug" in err


@pytest.mark.parametrize("how", ["flag", "env"])
def test_internal_error_traceback_with_debug(capsys, monkeypatch, how):
    monkeypatch.delenv("VSCHED_DEBUG", raising=False)
    if how == "env":
        monkeypatch.setenv("VSCHED_DEBUG", "1")
    assert exits.run_guarded(_boom, None, debug=how == "flag") == 4
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "vsched: internal error:" in err


def test_internal_error_escaping_a_command_is_exit_4(tmp_path, capsys, monkeypatch, repo_root):
    import verified_sched.core.printer as printer

    monkeypatch.setattr(printer, "print_program", lambda p: 1 / 0)
    assert main(["show", str(repo_root / "examples" / "matmul.vs")]) == 4
    err = capsys.readouterr().err
    assert "internal error" in err and "Traceback" not in err
    assert main(["show", str(repo_root / "examples" / "matmul.vs"), "--debug"]) == 4
    assert "Traceback" in capsys.readouterr().err


def test_recursion_and_memory_errors_are_input_errors(capsys):
    def deep(args):
        raise RecursionError("maximum recursion depth exceeded")

    def big(args):
        raise MemoryError()

    assert exits.run_guarded(deep, None) == 2
    assert "nests too deeply" in capsys.readouterr().err
    assert exits.run_guarded(big, None) == 2
    assert "out of memory" in capsys.readouterr().err


def test_internal_error_in_a_subprocess_exits_4_never_a_signal(tmp_path):
    code = ("import sys; from verified_sched.core import exits; "
            "sys.exit(exits.run_guarded(lambda a: [][1], None))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 4
    assert "IndexError" in proc.stderr and "Traceback" not in proc.stderr


def test_usage_errors_exit_2(capsys, repo_root):
    matmul = str(repo_root / "examples" / "matmul.vs")
    assert main([]) == 2
    assert main(["verify"]) == 2
    assert main(["frobnicate"]) == 2
    assert main(["show", matmul, "--after", "9"]) == 2
    capsys.readouterr()
