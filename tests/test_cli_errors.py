"""Malformed input through the CLI: `FILE:LINE:COL: message` on stderr, exit 2, no traceback."""
from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from verified_sched.cli import main

HEAD = "params N, M where N >= 1, M >= 1\ntensor a[N, M] f32\ntensor y[N] f32\n"

# (name, source, expected line, a word the message must contain)
BAD = [
    ("unclosed_brace", HEAD + "kernel k {\n  for i in 0 .. N {\n    y[i] = 1.0\n  }\n", None, ""),
    ("unknown_tensor", HEAD + "kernel k {\n  for i in 0 .. N {\n    y[i] = b[i]\n  }\n}\n", 6, "b"),
    ("wrong_arity", HEAD + "kernel k {\n  for i in 0 .. N {\n    y[i] = a[i]\n  }\n}\n", 6, "a"),
    ("undeclared_param", HEAD + "kernel k {\n  for i in 0 .. P {\n    y[i] = 1.0\n  }\n}\n", 5, "P"),
    ("duplicate_loop", HEAD + "kernel k {\n  for i in 0 .. N {\n    for i in 0 .. M {\n"
                              "      y[i] = a[i, i]\n    }\n  }\n}\n", 6, "i"),
    ("float_index", HEAD + "kernel k {\n  for i in 0 .. N {\n    y[1.5] = 1.0\n  }\n}\n", 6, ""),
    ("unknown_op", HEAD + "kernel k {\n  for i in 0 .. N {\n    y[i] = 1.0\n  }\n}\n"
                          "schedule k {\n  twist i\n}\n", 10, "twist"),
    ("zero_split_factor", HEAD + "kernel k {\n  for i in 0 .. N {\n    y[i] = 1.0\n  }\n}\n"
                                 "schedule k {\n  split i by 0 -> io, ii\n}\n", 10, ""),
    ("negative_split_factor", HEAD + "kernel k {\n  for i in 0 .. N {\n    y[i] = 1.0\n  }\n}\n"
                                     "schedule k {\n  split i by -4 -> io, ii\n}\n", 10, ""),
    ("garbage", "this is not a program\n", 1, ""),
]


@pytest.mark.parametrize("name,source,line,word", BAD, ids=[b[0] for b in BAD])
@pytest.mark.parametrize("command", ["show", "run", "verify"])
def test_malformed_input_gives_position_and_exit_2(tmp_path, capsys, name, source, line, word, command):
    path = tmp_path / f"{name}.vs"
    path.write_text(source)
    assert main([command, str(path)]) == 2
    err = capsys.readouterr().err.strip()
    m = re.match(rf"{re.escape(str(path))}:(\d+):(\d+): (.+)", err)
    assert m, err
    if line is not None:
        assert int(m.group(1)) == line, err
    assert word in m.group(3)
    assert "Traceback" not in err


def test_unknown_loop_in_a_schedule_is_a_precondition_error_with_position(tmp_path, capsys):
    path = tmp_path / "s.vs"
    path.write_text(HEAD + "kernel k {\n  for i in 0 .. N {\n    y[i] = 1.0\n  }\n}\n"
                           "schedule k {\n  split q by 4 -> qo, qi\n}\n")
    assert main(["show", str(path), "--after", "1"]) == 2
    assert re.match(rf"{re.escape(str(path))}:10:3: .*q", capsys.readouterr().err)


@pytest.mark.parametrize("argv,word", [
    (["run", "{ex}", "--size", "N=0,M=20,K=1"], "constraint"),
    (["run", "{ex}", "--size", "N=3,M"], "bad size"),
    (["run", "{ex}", "--size", "N=3,M=2"], "K"),
    (["run", "{ex}", "--size", "N=3,M=2,K=1,Q=4"], "Q"),
    (["run", "{ex}", "--kernel", "nope"], "nope"),
    (["exec", "{ex}", "--kernel", "matmul", "--in", "a={missing}", "--out", "c={tmp}/c.npy"], "cannot read"),
    (["exec", "{ex}", "--kernel", "matmul", "--in", "a={junk}", "--out", "c={tmp}/c.npy"], "not a .npy"),
    (["exec", "{ex}", "--kernel", "matmul", "--in", "zz={a}", "--out", "c={tmp}/c.npy"], "zz"),
    (["exec", "{ex}", "--kernel", "matmul", "--in", "a={a}"], "--out"),
    (["show", "{tmp}/absent.vs"], "cannot read"),
])
def test_usage_errors_exit_2_without_traceback(tmp_path, capsys, repo_root, argv, word):
    junk = tmp_path / "junk.npy"
    junk.write_text("junk")
    a = tmp_path / "a.npy"
    np.save(a, np.ones((2, 3), np.float32))
    fill = dict(ex=repo_root / "examples" / "matmul.vs", missing=tmp_path / "missing.npy", junk=junk,
                a=a, tmp=tmp_path)
    assert main([x.format(**fill) for x in argv]) == 2
    err = capsys.readouterr().err
    assert word in err and "Traceback" not in err
    assert re.match(r"(vsched: error: |\S+:\d+:\d+: )", err), err


def test_run_on_cuda_without_nvcc_is_a_usage_error(repo_root, capsys):
    import shutil

    if shutil.which("nvcc"):
        pytest.skip("nvcc is installed here")
    assert main(["run", str(repo_root / "examples" / "matmul.vs"), "--target", "cuda",
                 "--size", "N=3,M=2,K=1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vsched: error:") and ("nvcc" in err or "CUDA" in err)


def test_argparse_errors_exit_2(capsys):
    assert main(["frobnicate"]) == 2
    assert main([]) == 2
    assert main(["show"]) == 2
    assert main(["--help"]) == 0


def test_console_entry_point_reports_without_traceback(tmp_path):
    """The real process (python -m verified_sched, same entry as the `vsched` script)."""
    path = tmp_path / "bad.vs"
    path.write_text(BAD[1][1])
    p = subprocess.run([sys.executable, "-m", "verified_sched", "show", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.startswith(f"{path}:6:") and "Traceback" not in p.stderr
