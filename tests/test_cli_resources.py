"""`run` and `exec` refuse sizes they cannot hold (memory, int64 index arithmetic) before
allocating, and `exec`'s argument errors name the array that is wrong."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from verified_sched.analysis import resources
from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.core.errors import UsageError


@pytest.fixture
def matmul(repo_root):
    return str(repo_root / "examples" / "matmul.vs")


@pytest.fixture
def npys(tmp_path):
    def save(name, arr):
        path = tmp_path / name
        np.save(path, arr)
        return str(path)
    return save


def test_run_refuses_sizes_beyond_memory_with_the_bytes(matmul, capsys, monkeypatch):
    allocated = []
    monkeypatch.setattr(np, "zeros", lambda *a, **k: allocated.append(a) or 1 / 0)
    assert main(["run", matmul, "--size", "N=3000000,M=3000000,K=4"]) == 2
    err = capsys.readouterr().err
    assert "ask for 36000096000000 bytes" in err and "available" in err and "--size" in err
    assert not allocated


def test_exec_refuses_sizes_beyond_memory(matmul, tmp_path, capsys):
    out = str(tmp_path / "c.npy")
    assert main(["exec", matmul, "--kernel", "matmul", "--size", "N=1000000,M=1000000,K=1000000",
                 "--out", f"c={out}"]) == 2
    err = capsys.readouterr().err
    assert "ask for 12000000000000 bytes" in err


def test_memory_check_counts_the_copies():
    program = parse_text("params N\ntensor a[N] f64\nkernel k {\n  zero a\n}\n")
    assert resources.check_memory([program], {"N": 1000}, copies=2, temp_bytes=0, available=16000) == 16000
    with pytest.raises(UsageError, match="ask for 8000 bytes"):
        resources.check_memory([program], {"N": 1000}, copies=2, temp_bytes=0, available=15999)


OVERFLOW = """params N where N >= 1
tensor x[4] f32
kernel k {
  for i in 0 .. 4000000000 * N {
    x[i % 4] = 1.0
  }
}
"""


@pytest.mark.parametrize("command", ["run", "exec"])
def test_index_arithmetic_beyond_int64_is_refused(tmp_path, capsys, command):
    path = tmp_path / "ov.vs"
    path.write_text(OVERFLOW)
    extra = ["--kernel", "k", "--out", f"x={tmp_path / 'x.npy'}"] if command == "exec" else []
    assert main([command, str(path), "--size", "N=4000000000", *extra]) == 2
    err = capsys.readouterr().err
    assert "4000000000 * N" in err and "int64" in err  # named by the first check that sees it


def test_linear_offset_beyond_int64_is_refused():
    program = parse_text("params N, M where N >= 1, M >= 1\ntensor a[N, M] f32\n"
                         "kernel k {\n  for i in 0 .. N {\n    a[i * 3, 0] = 1.0\n  }\n}\n")
    resources.check_int64(program, "k", {"N": 1000, "M": 1000})
    with pytest.raises(UsageError, match="a\\[i \\* 3, 0\\]"):
        resources.check_int64(program, "k", {"N": 2**32, "M": 2**32})


def test_small_sizes_pass_the_int64_check(cases_dir):
    from verified_sched.dsl import parse_file
    from verified_sched.analysis.sizes import example_sizes

    for path in sorted(cases_dir.glob("*.vs"))[:12]:
        program = parse_file(path)
        for sizes in example_sizes(program, 1):
            for k in program.kernels:
                resources.check_int64(program, k.name, sizes)


def test_exec_tensor_given_twice_is_an_error(matmul, npys, capsys, tmp_path):
    a, b = npys("a.npy", np.ones((3, 2), np.float32)), npys("b.npy", np.ones((2, 4), np.float32))
    out = str(tmp_path / "c.npy")
    assert main(["exec", matmul, "--kernel", "matmul", "--in", f"a={a}", "--in", f"a={a}",
                 "--in", f"b={b}", "--out", f"c={out}"]) == 2
    assert "--in a is given twice" in capsys.readouterr().err
    assert main(["exec", matmul, "--kernel", "matmul", "--in", f"a={a}", "--in", f"b={b}",
                 "--out", f"c={out}", "--out", f"c={out}"]) == 2
    assert "--out c is given twice" in capsys.readouterr().err


@pytest.mark.parametrize("target,word", [(".", "is a folder"), ("{tmp}/", "is a folder"),
                                         ("{tmp}/missing/c.npy", "does not exist")])
def test_exec_out_to_a_folder_is_an_error(matmul, npys, capsys, tmp_path, target, word):
    a, b = npys("a.npy", np.ones((3, 2), np.float32)), npys("b.npy", np.ones((2, 4), np.float32))
    assert main(["exec", matmul, "--kernel", "matmul", "--in", f"a={a}", "--in", f"b={b}",
                 "--out", "c=" + target.format(tmp=tmp_path)]) == 2
    err = capsys.readouterr().err
    assert word in err and "--out c=" in err


def test_exec_out_writes_exactly_the_path_given(matmul, npys, tmp_path, capsys):
    a, b = npys("a.npy", np.ones((3, 2), np.float32)), npys("b.npy", np.ones((2, 4), np.float32))
    out = tmp_path / "result"  # no .npy suffix: numpy.save would have written result.npy
    assert main(["exec", matmul, "--kernel", "matmul", "--in", f"a={a}", "--in", f"b={b}",
                 "--out", f"c={out}"]) == 0
    assert np.array_equal(np.load(out), np.full((3, 4), 2, np.float32))


def test_exec_complex_input_is_refused_without_warnings(matmul, npys, tmp_path, capsys):
    a = npys("a.npy", np.ones((3, 2), np.complex64))
    b = npys("b.npy", np.ones((2, 4), np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ComplexWarning would fail the call
        rc = main(["exec", matmul, "--kernel", "matmul", "--in", f"a={a}", "--in", f"b={b}",
                   "--out", f"c={tmp_path / 'c.npy'}"])
    err = capsys.readouterr().err
    assert rc == 2 and "--in a: dtype complex64" in err and "Warning" not in err


def test_exec_error_names_the_array_that_disagrees(matmul, npys, tmp_path, capsys):
    a = npys("a.npy", np.ones((5, 5), np.float32))  # says K=5
    b = npys("b.npy", np.ones((2, 4), np.float32))  # says K=2
    assert main(["exec", matmul, "--kernel", "matmul", "--in", f"a={a}", "--in", f"b={b}",
                 "--out", f"c={tmp_path / 'c.npy'}"]) == 2
    err = capsys.readouterr().err
    assert "--in b and --in a disagree" in err and "K=5" in err


def test_exec_wrong_rank_names_the_array(matmul, npys, tmp_path, capsys):
    a = npys("a.npy", np.ones(6, np.float32))
    b = npys("b.npy", np.ones((2, 4), np.float32))
    assert main(["exec", matmul, "--kernel", "matmul", "--in", f"a={a}", "--in", f"b={b}",
                 "--out", f"c={tmp_path / 'c.npy'}"]) == 2
    assert "--in a: the array has 1 dimension(s), tensor a has 2" in capsys.readouterr().err


def test_exec_unreadable_input_names_the_tensor(matmul, tmp_path, capsys):
    bad = tmp_path / "a.npy"
    bad.write_text("not numpy")
    assert main(["exec", matmul, "--kernel", "matmul", "--in", f"a={bad}",
                 "--out", f"c={tmp_path / 'c.npy'}"]) == 2
    assert "--in a: cannot read" in capsys.readouterr().err


def test_run_vacuous_comparison_has_its_own_message(tmp_path, capsys):
    path = tmp_path / "vac.vs"
    path.write_text("params N where N >= 1\ntensor y[N] f32\nkernel k {\n  for i in 0 .. N {\n"
                    "    y[i] = 0.0\n  }\n}\nschedule k {\n  split i by 2 -> io, ii\n}\n")
    assert main(["run", str(path), "--size", "N=5"]) == 1
    out = capsys.readouterr().out
    assert "schedule of k: VACUOUS" in out and "DIFFERENT" not in out


def test_run_refuses_a_kernel_of_more_than_1e12_instances(tmp_path, capsys):
    """Regression (fuzz): 100 nested loops of extent 2 verify in seconds but ran forever."""
    body = "".join(f"for z{d} in 0 .. 2 {{\n" for d in range(100)) + "y[0] = 1.0\n" + "}\n" * 100
    path = tmp_path / "deep.vs"
    path.write_text("params N where N >= 1\ntensor y[N] f32\nkernel k {\n" + body + "}\n")
    assert main(["run", str(path)]) == 2
    assert "more than 1e+12 statement instances" in capsys.readouterr().err
    program = parse_text(path.read_text())
    with pytest.raises(UsageError, match="statement instances"):
        resources.check_int64(program, "k", {"N": 3})
