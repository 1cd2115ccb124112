"""Malformed input: a ParseError at the offending position (FILE:LINE:COL in the message)."""
from __future__ import annotations

import pytest

from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.errors import Loc, ParseError

HEAD = "params N where N >= 1\ntensor x[N] f32\ntensor y[N] f32\n"  # lines 1-3


def kernel(body: str) -> str:
    """HEAD, then `kernel k {` on line 4 and the body from line 5."""
    return HEAD + "kernel k {\n" + body + "}\n"


def sched(op: str) -> str:
    """A kernel over loop i (lines 4-8) and a schedule whose op is on line 10."""
    return kernel("  for i in 0 .. N {\n    y[i] = x[i]\n  }\n") + "schedule k {\n  " + op + "\n}\n"


CASES = [
    # name, text, line, col, words in the message
    ("unclosed brace", HEAD + "kernel k {\n  for i in 0 .. N {\n    y[i] = x[i]\n  }\n", 4, 10, "never closed"),
    ("unclosed loop brace", kernel("  for i in 0 .. N {\n    y[i] = x[i]\n") + "schedule k {\n}\n", 8, 1, "'}' missing"),
    ("unknown tensor", kernel("  for i in 0 .. N {\n    y[i] = q[i]\n  }\n"), 6, 12, "unknown tensor 'q'"),
    ("unknown target", kernel("  for i in 0 .. N {\n    q[i] = x[i]\n  }\n"), 6, 5, "unknown tensor 'q'"),
    ("index arity", kernel("  for i in 0 .. N {\n    y[i] = x[i, i]\n  }\n"), 6, 12, "rank 1"),
    ("target arity", kernel("  y[0, 1] = 1.0\n"), 5, 3, "rank 1"),
    ("undeclared parameter in dims", "params N\ntensor x[N, M] f32\n", 2, 13, "undeclared parameter 'M'"),
    ("undeclared parameter in bound", kernel("  for i in 0 .. M {\n    y[i] = x[i]\n  }\n"), 5, 17, "'M'"),
    ("undeclared parameter in constraint", "params N where M >= 1\n", 1, 16, "undeclared parameter 'M'"),
    ("undeclared iterator", kernel("  for i in 0 .. N {\n    y[i] = x[j]\n  }\n"), 6, 14, "'j'"),
    ("duplicate loop in scope", kernel("  for i in 0 .. N {\n    for i in 0 .. N {\n      y[i] = x[i]\n    }\n  }\n"),
     6, 5, "shadows"),
    ("iterator shadows param", kernel("  for N in 0 .. 3 {\n    y[0] = x[0]\n  }\n"), 5, 3, "parameter 'N'"),
    ("float in index", kernel("  for i in 0 .. N {\n    y[i] = x[i + 0.5]\n  }\n"), 6, 18, "float"),
    ("float tensor as index", kernel("  for i in 0 .. N {\n    y[x[i]] = 1.0\n  }\n"), 6, 7, "only i32"),
    ("real division in index", kernel("  for i in 0 .. N {\n    y[i / 2] = 1.0\n  }\n"), 6, 9, "floor"),
    ("non-affine index", kernel("  for i in 0 .. N {\n    y[i * i] = 1.0\n  }\n"), 6, 9, "non-affine"),
    ("float loop bound", kernel("  for i in 0 .. 2.5 {\n    y[i] = 1.0\n  }\n"), 5, 17, "float"),
    ("hardware loop not at 0", kernel("  for i in 1 .. N : block.x {\n    y[i] = 1.0\n  }\n"), 5, 3, "start at 0"),
    ("barrier outside block loop", kernel("  for i in 0 .. N : thread.x {\n    barrier\n  }\n"), 6, 5, "barrier"),
    ("barrier under vectorized", kernel("  for b in 0 .. N : block.x {\n    for i in 0 .. 4 : vectorized {\n"
                                         "      barrier\n    }\n  }\n"), 7, 7, "vectorized"),
    ("unknown op", sched("splitt i by 4 -> io, ii"), 10, 3, "unknown schedule operation 'splitt'"),
    ("zero split factor", sched("split i by 0 -> io, ii"), 10, 14, "positive"),
    ("negative split factor", sched("split i by -4 -> io, ii"), 10, 14, "positive"),
    ("symbolic split factor", sched("split i by N -> io, ii"), 10, 14, "integer constant"),
    ("unknown keyword", sched("split i by 4 -> io, ii tale=guard"), 10, 26, "unknown keyword 'tale'"),
    ("bad keyword value", sched("split i by 4 -> io, ii tail=sideways"), 10, 31, "tail must be one of"),
    ("keyword without value", sched("split i by 4 -> io, ii tail"), 10, 26, "needs a value"),
    ("flag with a value", sched("unroll i materialize=yes"), 10, 23, "flag"),
    ("keyword twice", sched("tensorize i, j, k simd=8 simd=16"), 10, 28, "twice"),
    ("word after op without options", sched("interchange i, j now"), 10, 20, "unknown keyword 'now'"),
    ("zero stage pipeline", sched("stage x over i -> t pipeline=0"), 10, 32, "positive"),
    ("bad stage prec", sched("stage x over i -> t prec=f8"), 10, 28, "prec must be one of"),
    ("bad retype axis", sched("retype i as warp.x"), 10, 15, "unknown axis"),
    ("split_reduction without blocks", sched("split_reduction i of y -> a, b, c"), 10, 3, "blocks"),
    ("partition name count", sched("partition i at N, 2 -> a, b"), 10, 23, "expected 3"),
    ("partition over iterator", sched("partition i at i -> a, b"), 10, 18, "undeclared parameter 'i'"),
    ("duplicate output names", sched("split i by 4 -> io, io"), 10, 23, "twice"),
    ("bad precision", "params N\ntensor x[N] f31\n", 2, 13, "unknown precision 'f31'"),
    ("bad memory", "params N\ntensor x[N] f32 texture\n", 2, 17, "texture"),
    ("pad count", "params N\ntensor x[N] f32 pad(1, 2)\n", 2, 17, "pad gives 2"),
    ("duplicate tensor", HEAD + "tensor x[N] f64\n", 4, 1, "declared twice"),
    ("duplicate param", "params N, N\n", 1, 11, "declared twice"),
    ("duplicate kernel", kernel("  zero y\n") + "kernel k {\n  zero x\n}\n", 7, 1, "defined twice"),
    ("schedule for unknown kernel", HEAD + "schedule q {\n  winograd\n}\n", 4, 1, "unknown kernel 'q'"),
    ("claim of unknown kernel", kernel("  zero y\n") + "claim k == q\n", 7, 1, "unknown kernel 'q'"),
    ("zero of unknown tensor", kernel("  zero q\n"), 5, 3, "unknown tensor 'q'"),
    ("write to constant memory", "params N\ntensor c[N] f32 constant\nkernel k {\n  zero c\n}\n", 4, 3, "constant"),
    ("bad profile", "profile fast\n", 1, 9, "unknown profile"),
    ("stray character", kernel("  y[0] = x[0] $ 2\n"), 5, 15, "unexpected character '$'"),
    ("missing operand", kernel("  y[0] = x[0] +\n"), 6, 1, "expected an expression"),
    ("modulo by a variable", kernel("  for i in 0 .. N {\n    y[i % N] = 1.0\n  }\n"), 6, 11, "divisor"),
    ("floor without constant", kernel("  for i in 0 .. N {\n    y[floor(i / N)] = 1.0\n  }\n"), 6, 7, "floor"),
    ("unknown function", kernel("  y[0] = cosh(x[0])\n"), 5, 10, "unknown function 'cosh'"),
    ("wrong call arity", kernel("  y[0] = max(x[0])\n"), 5, 10, "max takes 2"),
    ("assignment without index", kernel("  y = 1.0\n"), 5, 3, "expected a statement"),
    ("reserved word as name", "params for\n", 1, 8, "reserved"),
    ("not a declaration", "kernal k {\n}\n", 1, 1, "expected a declaration"),
    ("statement after statement on one line", kernel("  y[0] = 1.0 y[0] = 2.0\n"), 5, 14, "unexpected"),
]


@pytest.mark.parametrize("name,text,line,col,words", CASES, ids=[c[0] for c in CASES])
def test_parse_error_position(name, text, line, col, words):
    with pytest.raises(ParseError) as info:
        parse_text(text, "bad.vs")
    err = info.value
    assert err.loc == Loc("bad.vs", line, col), f"{name}: {err}"
    assert str(err).startswith(f"bad.vs:{line}:{col}: ")
    assert words in err.message, f"{name}: {err}"


def test_unreadable_file_is_a_parse_error(tmp_path):
    with pytest.raises(ParseError) as info:
        parse_file(tmp_path / "missing.vs")
    assert "missing.vs" in str(info.value)


def test_file_name_in_position(tmp_path):
    path = tmp_path / "k.vs"
    path.write_text("params N\ntensor x[N] f31\n")
    with pytest.raises(ParseError) as info:
        parse_file(path)
    assert str(info.value).startswith(f"{path}:2:13: ")


def test_check_kernel_on_built_ir_falls_back_to_the_kernel_loc():
    from verified_sched.core import ir
    from verified_sched.analysis.wellformed import check_kernel

    program = parse_text(HEAD + "kernel k {\n  zero y\n}\n", "ok.vs")
    bad = ir.Kernel("k", (ir.For("i", ir.Int(0), ir.Var("N"), "serial", (
        ir.For("i", ir.Int(0), ir.Int(2), "serial", (ir.Zero("y"),)),)),), loc=program.kernels[0].loc)
    with pytest.raises(ParseError) as info:
        check_kernel(program, bad)
    assert info.value.loc == Loc("ok.vs", 4, 1) and "shadows" in info.value.message
    check_kernel(program, program.kernels[0])  # the parsed one is fine
