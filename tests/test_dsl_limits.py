"""Input limits (dsl/limits.py) and the bugs they fixed: deep nesting, long sums, huge
literals, special files, many params; the printer is iterative and linear; `-N` in a size
constraint is affine."""
from __future__ import annotations

import os

import pytest

from verified_sched.core import ir
from verified_sched.cli import main
from verified_sched.dsl import limits, parse_text
from verified_sched.core import printer
from verified_sched.core.printer import expr_text, print_program
from verified_sched.core.errors import ParseError

HEAD = "params N where N >= 1\ntensor a[N] f32\ntensor y[N] f32\n"


def kernel_with(expr: str) -> str:
    return HEAD + f"kernel k {{\n  for i in 0 .. N {{\n    y[i] = {expr}\n  }}\n}}\n"


def run_cli(tmp_path, capsys, text: str, *argv) -> tuple[int, str]:
    path = tmp_path / "t.vs"
    path.write_text(text)
    rc = main([argv[0], str(path), *argv[1:]])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


@pytest.mark.parametrize("command", ["show", "verify"])
def test_sum_of_1000_terms_is_an_input_error_not_a_recursion_error(tmp_path, capsys, command):
    rc, err = run_cli(tmp_path, capsys, kernel_with(" + ".join(["a[i]"] * 1000)), command)
    assert rc == 2 and "expression too deep: 1000" in err and f"limit is {limits.MAX_EXPR_DEPTH}" in err
    assert err.startswith(str(tmp_path / "t.vs") + ":6:")


def test_sum_at_the_depth_limit_verifies(tmp_path, capsys):
    rc, _ = run_cli(tmp_path, capsys, kernel_with(" + ".join(["a[i]"] * limits.MAX_EXPR_DEPTH)),
                    "verify", "--timeout", "30")
    assert rc == 0


@pytest.mark.parametrize("command", ["show", "verify"])
def test_250_nested_parentheses_are_an_input_error(tmp_path, capsys, command):
    rc, err = run_cli(tmp_path, capsys, kernel_with("(" * 250 + "a[i]" + ")" * 250), command)
    assert rc == 2 and f"nesting deeper than {limits.MAX_NESTING}" in err


@pytest.mark.parametrize("command", ["show", "verify"])
def test_400_nested_loops_are_an_input_error(tmp_path, capsys, command):
    body = "".join(f"for i{d} in 0 .. 2 {{\n" for d in range(400)) + "y[0] = a[0]\n" + "}\n" * 400
    rc, err = run_cli(tmp_path, capsys, HEAD + "kernel k {\n" + body + "}\n", command)
    assert rc == 2 and "nesting deeper than" in err


def test_nesting_at_the_limit_parses_and_round_trips():
    depth = limits.MAX_NESTING - 3  # the loop body and the index bracket nest too
    program = parse_text(kernel_with("(" * depth + "a[i]" + ")" * depth))
    assert parse_text(print_program(program)) == program


def test_unary_minus_chain_beyond_nesting_is_an_input_error(tmp_path, capsys):
    rc, err = run_cli(tmp_path, capsys, kernel_with("-" * 300 + "a[i]"), "show")
    assert rc == 2 and "nesting deeper than" in err


def test_nested_unary_minus_prints_in_linear_time(monkeypatch):
    """26 nested minus signs took 45 s (each level printed its operand twice: 2^n); a 200-deep
    chain built directly now prints with one `_pieces` call per node."""
    e = ir.Load("a", (ir.Var("i"),))
    for _ in range(200):
        e = ir.Call("neg", (e,))
    calls = []
    real = printer._pieces
    monkeypatch.setattr(printer, "_pieces", lambda n: calls.append(1) or real(n))
    text = expr_text(e)
    assert len(calls) == 200 + 1 + 1  # the negs, the load, its index
    assert text == "-(" * 199 + "-a[i]" + ")" * 199


def test_long_sum_prints_iteratively_and_round_trips():
    """A 5000-term sum built directly prints without recursion (the parser refuses it: depth)."""
    e = ir.Var("x")
    for k in range(4999):
        e = ir.BinOp("+" if k % 2 else "-", e, ir.Int(k))
    text = expr_text(e)
    assert text.startswith("x - 0 + 1 - 2") and text.count(" ") == 2 * 4999
    small = parse_text(kernel_with("a[i] - (a[i] - 1.0) + -(-(2.0)) * -a[i]"))
    assert parse_text(print_program(small)) == small


@pytest.mark.parametrize("literal,word", [
    ("7" * 4301, "(4301 digits)"), ("9223372036854775808", "does not fit in int64"),
    ("18446744073709551616", "int64"), ("1e999", "infinity")])
def test_huge_literal_is_an_input_error(tmp_path, capsys, literal, word):
    rc, err = run_cli(tmp_path, capsys, kernel_with(f"a[i] * {literal}"), "verify")
    assert rc == 2 and word in err and ":6:" in err


def test_int64_max_literal_is_accepted():
    program = parse_text(kernel_with("a[i] * 9223372036854775807"))
    assert "9223372036854775807" in print_program(program)


def test_minus_n_in_a_size_constraint_verifies_instead_of_leaking_nonaffine(tmp_path, capsys):
    text = ("params N where N >= -N + 2\ntensor a[N] f32\nkernel k {\n  for i in 0 .. N {\n"
            "    a[i] = 1.0\n  }\n}\nschedule k {\n  split i by 4 -> io, ii\n}\n")
    rc, err = run_cli(tmp_path, capsys, text, "verify")
    assert rc == 0, err


def test_dev_zero_and_a_fifo_are_refused_without_reading(tmp_path, capsys):
    assert main(["verify", "/dev/zero"]) == 2
    assert "not a regular file" in capsys.readouterr().err
    fifo = tmp_path / "pipe.vs"
    os.mkfifo(fifo)  # nobody writes to it: reading it would block forever
    assert main(["show", str(fifo)]) == 2
    assert "not a regular file" in capsys.readouterr().err
    assert main(["show", str(tmp_path)]) == 2
    assert "a folder" in capsys.readouterr().err


def test_file_over_the_size_limit_is_refused(tmp_path, capsys):
    text = kernel_with("a[i]") + "#" * (limits.MAX_FILE_BYTES + 1)
    rc, err = run_cli(tmp_path, capsys, text, "show")
    assert rc == 2 and "file size" in err and str(limits.MAX_FILE_BYTES) in err


def test_not_utf8_is_an_input_error(tmp_path, capsys):
    path = tmp_path / "latin1.vs"
    path.write_bytes(kernel_with("a[i]").encode() + b"# caf\xe9\n")
    assert main(["show", str(path)]) == 2
    assert "not UTF-8" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["show", "verify", "run", "emit"])
def test_empty_file_is_an_error_no_kernel(tmp_path, capsys, command):
    rc, err = run_cli(tmp_path, capsys, "", command)
    assert rc == 2 and "no kernel" in err
    rc, err = run_cli(tmp_path, capsys, "params N\n# only a comment\n", command)
    assert rc == 2 and "no kernel" in err


def test_too_many_params_is_an_input_error(tmp_path, capsys):
    names = ", ".join(f"P{k}" for k in range(10_000))
    rc, err = run_cli(tmp_path, capsys, f"params {names}\n" + kernel_with("a[i]"), "verify")
    assert rc == 2 and "too many params: 10001" in err


@pytest.mark.parametrize("what,text", [
    ("tensors", "".join(f"tensor t{k}[4] f32\n" for k in range(limits.MAX_TENSORS + 1))),
    ("statements", "kernel big {\n" + "  y[0] = 1.0\n" * (limits.MAX_STATEMENTS + 1) + "}\n"),
])
def test_counts_beyond_the_limits_are_input_errors(what, text):
    with pytest.raises(ParseError, match=f"too many {what}"):
        parse_text(kernel_with("a[i]") + text)


@pytest.mark.parametrize("flag,value", [("--timeout", "-1"), ("--timeout", "0"), ("--timeout", "nan"),
                                        ("--timeout", "inf"), ("--timeout", "abc")])
def test_verify_timeout_rejects_non_positive_and_non_finite(repo_root, capsys, flag, value):
    assert main(["verify", str(repo_root / "examples" / "matmul.vs"), flag, value]) == 2
    assert "positive, finite" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "exec"])
def test_seed_rejects_negatives(repo_root, capsys, command):
    extra = ["--kernel", "matmul", "--out", "c=c.npy"] if command == "exec" else []
    assert main([command, str(repo_root / "examples" / "matmul.vs"), "--seed", "-3", *extra]) == 2
    assert "non-negative integer" in capsys.readouterr().err


def test_show_unknown_kernel_is_an_error(repo_root, capsys):
    assert main(["show", str(repo_root / "examples" / "matmul.vs"), "--kernel", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no kernel named 'nope'" in err and "matmul" in err


def test_split_reduction_with_two_billion_blocks_is_a_precondition_failure(tmp_path, capsys, cases_dir):
    """Regression (fuzz): blocks=2147483648 built a combine of 2^31 terms (a hang)."""
    text = (cases_dir / "split_reduction.vs").read_text().replace("blocks=8 ", "blocks=2147483648 ")
    assert "blocks=2147483648" in text
    rc, _ = run_cli(tmp_path, capsys, text, "verify")  # illegal: the precondition is refuted
    assert rc == 1
    path = tmp_path / "t.vs"
    assert main(["verify", str(path), "--json"]) == 1
    assert "blocks 2147483648: at most 256" in capsys.readouterr().out
    assert main(["show", str(path), "--after", "1"]) == 2
    assert "at most 256" in capsys.readouterr().err
