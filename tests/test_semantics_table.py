"""Issue 20 item 1: the one semantics table (verified_sched/core/semantics.py).

- `ir_nodes.FUNCS` (the parser's and the IR's function list) is the table's `fn` rows;
- every row's z3 encoding agrees with its evaluation, bitwise (signed zeros) and NaN for NaN,
  on special values (±0, ±inf, NaN, the largest finite value, i32 extremes) in every compute
  type where the row is defined; conversions between compute types too;
- the integer typing rule is the one every translator uses, and the bug it fixes: `if -N < 0`
  at N = 2^31 + 5 took one branch in C (`neg(N)` not integer typed, compared in int32_t) and
  the other in the interpreter and in isl.
"""
from __future__ import annotations

import itertools

import islpy as isl
import numpy as np
import pytest
import z3

from codegen.build import load_c
from codegen.c import is_int_expr
from codegen.emulate import load_emulated
from polyhedral import affine
from verified_sched.analysis import int_range
from verified_sched.core import errors, ir, ir_nodes, semantics, semantics_ev
from verified_sched.dsl import parse_text
from verified_sched.interp.interpreter import Compiler, run_kernel

I32_SPECIAL = [0, 1, -1, 7, -7, 2 ** 31 - 1, -2 ** 31, 46341]
INDEX_SPECIAL = [0, 1, -1, 7, -7, 2 ** 40 + 3, -(2 ** 40) - 5]


def float_special(ct: str) -> list:
    t = np.float32 if ct == "f32" else np.float64
    big = np.finfo(t).max
    return [t(v) for v in (0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, big, -big, 3e-39, 1e-300)]


def special(ct: str) -> list:
    return {"i32": I32_SPECIAL, "index": INDEX_SPECIAL}.get(ct) or float_special(ct)


def z3_const(ct: str, v):
    if ct == "index":
        return z3.IntVal(int(v))
    if ct == "i32":
        return z3.BitVecVal(int(v), 32)
    sort = semantics.z3_sort(ct)
    if np.isnan(v):
        return z3.fpNaN(sort)
    if np.isinf(v):
        return z3.fpPlusInfinity(sort) if v > 0 else z3.fpMinusInfinity(sort)
    if v == 0:
        return z3.fpMinusZero(sort) if np.signbit(v) else z3.fpPlusZero(sort)
    return z3.FPVal(float(v), sort)


def z3_value(ct: str, term):
    """The Python/numpy value of a constant z3 term of compute type ct."""
    t = z3.simplify(term)
    if z3.is_bool(t):
        return z3.is_true(t)
    if ct == "index":
        return t.as_long()
    if ct == "i32":
        return semantics_ev.wrap32(t.as_long())
    scalar = np.float32 if ct == "f32" else np.float64
    if z3.is_true(z3.simplify(z3.fpIsNaN(t))):
        return scalar(np.nan)
    bits = z3.simplify(z3.fpToIEEEBV(t)).as_long()
    return np.array(bits, np.uint32 if ct == "f32" else np.uint64).view(scalar)[()]


def same(a, b) -> bool:
    """Bitwise equality of two values, any NaN equal to any NaN."""
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return bool(a) == bool(b)
    if isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)):
        return int(a) == int(b)
    a, b = np.asarray(a), np.asarray(b)
    if np.isnan(a) and np.isnan(b):
        return True
    return a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_ir_funcs_are_the_table_fn_rows():
    assert ir_nodes.FUNCS == {name: row.arity for name, row in semantics.FUNCS.items()}
    assert set(ir_nodes.BINOPS) == set(semantics.BINOPS)
    assert set(ir_nodes.CMPOPS) == set(semantics.CMPS)
    assert set(ir_nodes.PRECISIONS) == set(semantics.CASTS)
    assert set(semantics.PRECISIONS) == set(ir_nodes.PRECISIONS) | {"index"}


def test_every_row_has_every_column():
    for row in semantics.ROWS.values():
        assert row.ev and callable(row.z3) and row.doc, row.name
        if row.kind in ("binop", "fn", "node"):
            assert {"f32", "f64", "i32"} <= set(row.ev), row.name  # every storage precision
        if row.integer and row.kind in ("binop", "fn", "node"):
            assert "index" in row.ev and row.interval is not None, row.name  # exact integers
    assert {r.name for r in semantics.ROWS.values() if r.linear} == {"add", "sub", "mul", "neg"}


def _cases(row, ct):
    values = special(ct)
    if row.kind == "node":
        return [(v, 3) for v in values]
    if row.arity == 3:
        return list(itertools.product(values[:6], values[:5], values[3:8]))
    return list(itertools.product(values, repeat=row.arity))


@pytest.mark.parametrize("ct", ["f32", "f64", "i32", "index"])
def test_z3_encoding_agrees_with_evaluation_on_special_values(ct):
    checked = 0
    for row in semantics.ROWS.values():
        if row.kind == "cast" or ct not in row.ev:
            continue
        if row.name in ("exp", "log", "tanh", "erf", "pow") or (ct == "i32" and row.name in ("sqrt", "rsqrt")):
            continue  # uninterpreted in z3 (libm's functions): nothing to compare
        for args in _cases(row, ct):
            try:
                with np.errstate(all="ignore"):
                    want = row.ev[ct](*args)
            except errors.KernelError:
                continue
            if row.kind == "node":
                got = z3_value(ct, row.z3(ct, z3_const(ct, args[0]), args[1]))
            else:
                got = z3_value(ct, row.z3(ct, *[z3_const(ct, a) for a in args]))
            assert same(want, got), (row.name, ct, args, want, got)
            checked += 1
    assert checked > 100


@pytest.mark.filterwarnings("ignore:overflow encountered")
def test_casts_and_conversions_agree_with_z3():
    for p in ("f16", "bf16"):
        for v in float_special("f32") + [np.float32(65520.0), np.float32(3.4e38), np.float32(1.00390625)]:
            want = semantics.CASTS[p].ev["f32"](v)
            got = z3_value("f32", semantics.CASTS[p].z3("f32", z3_const("f32", v)))
            assert same(want, got), (p, v, want, got)
    pairs = [("f64", "f32"), ("f32", "f64"), ("i32", "f32"), ("i32", "f64"), ("f64", "i32"),
             ("index", "i32"), ("i32", "index"), ("index", "f64")]
    for src, dst in pairs:
        for v in special(src):
            try:
                want = semantics_ev.CONVERT[dst](v)
            except (errors.KernelError, OverflowError, ValueError):
                continue  # outside i32: an error in the interpreter, undefined in C
            got = z3_value(dst, semantics.z3_convert(z3_const(src, v), src, dst))
            assert same(want, got), (src, dst, v, want, got)


def test_abs_is_the_c_rule_and_min_max_are_ieee():
    for ct in ("f32", "f64"):
        t = np.float32 if ct == "f32" else np.float64
        assert np.signbit(semantics.ROWS["abs"].ev[ct](t(-0.0)))  # a < 0 ? -a : a
        assert np.signbit(semantics.ROWS["min"].ev[ct](t(0.0), t(-0.0)))
        assert not np.signbit(semantics.ROWS["max"].ev[ct](t(-0.0), t(0.0)))
        assert not np.signbit(semantics.ROWS["relu"].ev[ct](t(-0.0)))
        nan = semantics.ROWS["max"].ev[ct](t(1.0), -t(np.nan))
        assert nan.tobytes() == t(np.nan).tobytes()  # the canonical quiet NaN


# ---------------------------------------------------------------- integer typing

NEG = """
params N
tensor y[4] i32
tensor x[2] f32
kernel k {
  if -N < 0 {
    y[0] = 1
  } else {
    y[0] = 2
  }
  if relu(N) > 5 {
    y[1] = 3
  }
  if abs(N - 2 * N) >= N {
    y[2] = 4
  }
  if x[0] < N {
    y[3] = 5
  }
}
"""


def test_neg_param_compare_at_2_pow_31_plus_5_takes_one_branch_in_every_backend():
    """`-N < 0`, `relu(N) > 5` and `abs(N - 2 * N) >= N` are integer typed (the table's one
    rule), so compared exactly in every backend; C compared `-(int32_t)N < 0` (N wrapped)."""
    program = parse_text(NEG, "neg.vs")
    n = 2 ** 31 + 5
    runs = {"interp": lambda k, s, a: run_kernel(program, k, s, a),
            "c": load_c(program).run, "emulate": load_emulated(program).run}
    for name, run in runs.items():
        arrays = {"y": np.zeros(4, np.int32), "x": np.zeros(2, np.float32)}
        run("k", {"N": n}, arrays)
        assert arrays["y"][:3].tolist() == [1, 3, 4], name
    # isl means the same: -N < 0 holds at N = 2^31 + 5
    guard = program.kernels[0].body[0].cond
    text = affine.cond(guard, {"N": "N"})
    assert not isl.Set(f"[N] -> {{ [] : N = {n} and {text} }}").is_empty()


def _prec_of(program):
    return lambda t: program.tensor(t).prec


@pytest.mark.parametrize("text,want", [
    ("-N", True), ("relu(N)", True), ("abs(N - 1)", True), ("min(N, n[0])", True),
    ("floor(N / 2)", True), ("(n[0] + 1) % 3", True), ("i32(x[0])", True),
    ("N / 2", False), ("fma(N, N, N)", False), ("exp(N)", False), ("floor(x[0] / 2)", False),
    ("where(N > 0, N, -N)", True), ("where(N > 0, x[0], N)", False),
])
def test_integer_typing_is_one_rule_in_every_translator(text, want):
    src = f"params N\ntensor n[1] i32\ntensor x[1] f32\ntensor y[1] f32\nkernel k {{\n  y[0] = {text}\n}}\n"
    program = parse_text(src, "t.vs")
    e = program.kernels[0].body[0].value
    prec = {t.name: t.prec for t in program.tensors}
    interp = Compiler(program, {"N": 1})
    assert semantics.integer_typed(e, _prec_of(program)) is want
    assert is_int_expr(e, program) is want
    assert interp.is_int(e) is want
    assert int_range.integer_typed(e, prec.get) is want
