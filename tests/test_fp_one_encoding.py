"""smt/fp.py (the claim comparison's z3 encoding) keeps no copy of any operation's meaning: every
binary operator, function and cast goes through its semantics-table row's z3 column. Its own
copy (`BINARY`, `CALLS_FP`, `CALLS_INT`) once encoded abs as fpAbs (abs(-0.0) = +0.0) and wrote
i32 `/` differently from the table; this test fails when such a copy comes back."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
import z3

from smt import fp
from verified_sched.core import semantics
from verified_sched.core.semantics_z3 import z3_sort

ROOT = Path(__file__).resolve().parents[1]
CTS = ("f32", "f64", "i32")


def _args(ct: str, n: int):
    return [z3.Const(f"x{k}_{ct}", z3_sort(ct)) for k in range(n)]


@pytest.mark.parametrize("ct", CTS)
def test_every_operation_is_its_table_row(ct):
    for sym, row in semantics.BINOPS.items():
        a, b = _args(ct, 2)
        assert fp.binary(sym, ct, a, b).eq(row.z3(ct, a, b)), (sym, ct)
        assert fp.operation(sym, ct, [a, b]).eq(row.z3(ct, a, b)), (sym, ct)
    for name, row in semantics.FUNCS.items():
        args = _args(ct, row.arity)
        assert fp.call(name, ct, args).eq(row.z3(ct, *args)), (name, ct)
        assert fp.operation(name, ct, args).eq(row.z3(ct, *args)), (name, ct)
    for p, row in semantics.CASTS.items():
        c = semantics.COMPUTE[p]
        (x,) = _args(c, 1)
        assert fp.cast(p, x).eq(row.z3(c, x)), p


def test_operations_outside_the_table_are_not_modelled():
    a, b = _args("f32", 2)
    for name, args in (("hypot", [a, b]), ("fma", [a, b]), ("neg", [a, b])):
        with pytest.raises(fp.NoFp):
            fp.operation(name, "f32", args)


def test_i32_division_of_int_min_by_minus_one_is_the_tables():
    """The copy wrote i32 `/` as `b == 0 ? 0 : a / b`; the table's row is the one meaning."""
    a, b = _args("i32", 2)
    row = semantics.BINOPS["/"].z3("i32", a, b)
    assert fp.binary("/", "i32", a, b).eq(row)
    got = z3.simplify(z3.substitute(fp.binary("/", "i32", a, b), (a, z3.BitVecVal(-2 ** 31, 32)),
                                    (b, z3.BitVecVal(-1, 32))))
    assert got.as_signed_long() == -2 ** 31  # wraps, as the interpreter and C's vs_div_i32


# z3 constructors that spell an operation's meaning: fp.py may call none of them
_ENCODERS = {"fpAdd", "fpSub", "fpMul", "fpDiv", "fpFMA", "fpNeg", "fpAbs", "fpSqrt", "fpMin", "fpMax", "fpLT",
             "fpGT", "fpLEQ", "fpGEQ", "fpEQ", "fpIsNegative", "fpRem", "fpRoundToIntegral", "If", "Function",
             "SRem", "UDiv", "URem", "fpToSBV", "fpSignedToFP"}


def test_fp_defines_no_operation_encoding_of_its_own():
    tree = ast.parse((ROOT / "smt" / "fp.py").read_text())
    called = {n.func.attr for n in ast.walk(tree)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
              and isinstance(n.func.value, ast.Name) and n.func.value.id == "z3"}
    assert not called & _ENCODERS, sorted(called & _ENCODERS)
    # no table of its own keyed by operators or function names
    for n in ast.walk(tree):
        if isinstance(n, ast.Dict):
            keys = {k.value for k in n.keys if isinstance(k, ast.Constant)}
            assert not keys & (set(semantics.BINOPS) | set(semantics.FUNCS)), keys


def test_claim_over_a_function_the_copy_lacked_is_decided():
    """tanh had no row in fp's copy (NoFp: unknown); the table encodes it (an uninterpreted
    function of its argument), so `tanh(x) * 1.0` is proved bitwise equal to `tanh(x)`."""
    from verified_sched.dsl import parse_text
    from verified_sched.verify.driver import verify_program
    program = parse_text("""params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel a { for i in 0 .. N { y[i] = tanh(x[i]) } }
kernel b { for i in 0 .. N { y[i] = tanh(x[i]) * 1.0 } }
claim a == b
""")
    (rep,) = [r for r in verify_program(program) if "==" in r.kernel]
    assert rep.verdict == "legal", [o.message for o in rep.obligations]
