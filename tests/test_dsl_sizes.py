"""sizes.py: integer evaluation, constraint checks, storage shapes, --size parsing, examples."""
from __future__ import annotations

from pathlib import Path

import pytest

from verified_sched.core import ir
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.errors import UsageError
from verified_sched.analysis.sizes import (check_sizes, eval_cond, eval_int, example_sizes, parse_size_arg,
                                  tensor_shape)

CASES = Path(__file__).resolve().parent / "cases"

PROGRAM = parse_text("""
params N, M, T where N >= 1, M == 4 * T, T >= 1
tensor a[N, M] f32 pad(0, 7)
tensor b[N + 2 * T] f64
""")


def test_eval_int_floor_semantics():
    i = ir.Var("i")
    assert eval_int(ir.FloorDiv(i, 4), {"i": -1}) == -1  # C would give 0
    assert eval_int(ir.Mod(i, 4), {"i": -1}) == 3  # C would give -1
    assert eval_int(ir.FloorDiv(ir.BinOp("-", i, ir.Int(9)), 4), {"i": 2}) == -2
    e = ir.Call("min", (ir.BinOp("*", ir.Int(3), i), ir.Call("max", (ir.Var("N"), ir.Call("neg", (i,))))))
    assert eval_int(e, {"i": 2, "N": 5}) == 5
    idx = ir.Load("idx", (i,))
    assert eval_int(ir.Mod(idx, 3), {"i": 4}, load=lambda t, cell: 10 * cell[0] + 1) == 41 % 3
    with pytest.raises(UsageError):
        eval_int(ir.Var("q"), {})


def test_eval_cond():
    c = ir.Or(ir.Not(ir.Cmp("<", ir.Var("i"), ir.Int(3))), ir.And(ir.BoolConst(True), ir.Cmp("==", ir.Var("i"), ir.Int(0))))
    assert [eval_cond(c, {"i": v}) for v in range(5)] == [True, False, False, True, True]


def test_check_sizes():
    check_sizes(PROGRAM, {"N": 1, "M": 8, "T": 2})
    with pytest.raises(UsageError, match="M == 4 \\* T"):
        check_sizes(PROGRAM, {"N": 1, "M": 7, "T": 2})
    with pytest.raises(UsageError, match="N >= 1"):
        check_sizes(PROGRAM, {"N": 0, "M": 4, "T": 1})
    with pytest.raises(UsageError, match="missing size for parameter 'T'"):
        check_sizes(PROGRAM, {"N": 1, "M": 4})
    with pytest.raises(UsageError, match="'Q' is not a parameter"):
        check_sizes(PROGRAM, {"N": 1, "M": 4, "T": 1, "Q": 3})


def test_tensor_shape_includes_padding():
    sizes = {"N": 3, "M": 8, "T": 2}
    assert tensor_shape(PROGRAM, "a", sizes) == (3, 15)
    assert tensor_shape(PROGRAM, "b", sizes) == (7,)


def test_parse_size_arg():
    assert parse_size_arg("N=37,M=20") == {"N": 37, "M": 20}
    assert parse_size_arg(" N = 3 , K=-1") == {"N": 3, "K": -1}
    for junk in ("", "N", "N=", "N=3x", "3=N", "N=1,,M=2", "N=1;M=2", "N=1,N=2"):
        with pytest.raises(UsageError):
            parse_size_arg(junk)


def test_example_sizes_satisfy_constraints_and_are_small():
    found = example_sizes(PROGRAM, count=3)
    assert len(found) == 3 and len({tuple(s.items()) for s in found}) == 3
    assert found[0] == {"N": 1, "M": 4, "T": 1}  # minimal first: extents of 1
    for s in found:
        check_sizes(PROGRAM, s)
        assert list(s) == ["N", "M", "T"]
    assert any(s["N"] % 2 == 1 and s["N"] > 1 for s in found)  # an odd extent beyond 1


@pytest.mark.parametrize("path", sorted(CASES.glob("*.vs")), ids=lambda p: p.name)
def test_example_sizes_for_corpus(path):
    program = parse_file(path)
    found = example_sizes(program, count=3, seed=1)
    assert len(found) == 3
    for s in found:
        check_sizes(program, s)
        for t in program.tensors:
            assert all(0 <= d <= 200 for d in tensor_shape(program, t.name, s))


def test_example_sizes_search_and_failure():
    p = parse_text("params A, B where A + B == 7, A >= 2, B >= A\n")
    for s in example_sizes(p, count=2):
        assert s["A"] + s["B"] == 7 and 2 <= s["A"] <= s["B"]
    with pytest.raises(UsageError):
        example_sizes(parse_text("params A where A >= 3, A <= 2\n"))
