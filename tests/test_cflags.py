"""`--cflags` (issue 25): target flags for the C backend; FMA contraction only under the
approximate profile, never a silent change of the bits."""
from __future__ import annotations

import pytest

from codegen.build import FLAGS, flags_for
from verified_sched.cli import main
from verified_sched.core.errors import UsageError


def test_default_flags_unchanged_and_native_appended():
    assert flags_for(None, "") == FLAGS
    assert flags_for("default", "-march=native -mprefer-vector-width=512") == FLAGS + (
        "-march=native", "-mprefer-vector-width=512")


@pytest.mark.parametrize("profile", [None, "default", "reproducible", "finite"])
def test_fma_contraction_refused_outside_approximate(profile):
    with pytest.raises(UsageError, match="only under the approximate profile"):
        flags_for(profile, "-march=native -ffp-contract=fast")


def test_fma_contraction_under_approximate_replaces_off():
    flags = flags_for("approximate", "-ffp-contract=fast")
    assert "-ffp-contract=fast" in flags and "-ffp-contract=off" not in flags
    assert flags_for("reproducible", "-ffp-contract=off") == FLAGS


@pytest.mark.parametrize("flag", ["-ffast-math", "-Ofast", "-funsafe-math-optimizations", "-DX=1", "-o/tmp/x"])
def test_flags_that_change_arithmetic_are_refused(flag):
    with pytest.raises(UsageError, match="not allowed"):
        flags_for("approximate", flag)


def test_cli_run_cflags_refused_is_exit_2(repo_root, capsys):
    path = repo_root / "examples" / "matmul.vs"
    assert main(["run", str(path), "--cflags=-ffp-contract=fast"]) == 2
    assert "--cflags: -ffp-contract=fast" in capsys.readouterr().err


def test_cli_run_with_native_flags_is_bitwise_equal(repo_root, capsys):
    path = repo_root / "examples" / "matmul.vs"
    assert main(["run", str(path), "--size", "N=37,M=20,K=11", "--cflags=-march=native"]) == 0
    out = capsys.readouterr().out
    assert "schedule of matmul: ok" in out and "(bitwise)" in out
