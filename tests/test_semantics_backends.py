"""Issue 20 "Done when": every node kind and function, in every precision, through the
interpreter (vector and scalar paths), the C backend, the GPU emulator and MLIR/IREE (where
linalg expresses it), compared bitwise against the semantics table's evaluation, on special
values (±0, NaN, ±inf, the largest finite value, values that overflow on narrowing, i32
extremes). One kernel per precision holds every expression (one output tensor each), so each
backend compiles it once.
"""
from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from codegen.build import load_c
from verified_sched.core.dtypes import NP_DTYPE, f32_to_bf16
from codegen.emulate import load_emulated
from verified_sched.core import ir, semantics, semantics_ev
from verified_sched.dsl import parse_text
from verified_sched.core.expr_mapper import ExprMapper
from verified_sched.interp.interpreter import run_kernel

FLOAT_EXPRS = [
    "a[i] + b[i]", "a[i] - b[i]", "a[i] * b[i]", "a[i] / b[i]", "min(a[i], b[i])", "max(b[i], a[i])",
    "fma(a[i], b[i], c[i])", "-a[i]", "exp(a[i])", "log(a[i])", "sqrt(a[i])", "relu(a[i])",
    "abs(a[i])", "floor(a[i] / 3)", "a[i] % 3", "where(a[i] < b[i], a[i], c[i])",
    "where(a[i] <= b[i], a[i], c[i])", "where(a[i] > b[i], a[i], c[i])",
    "where(a[i] >= b[i], a[i], c[i])", "where(a[i] == b[i], a[i], c[i])",
    "where(a[i] != b[i], a[i], c[i])", "f16(a[i])", "bf16(a[i])", "f32(a[i])", "f64(a[i])",
    "i32(s[i])", "a[i] + 1.5", "a[i] * N + i", "where(i < N - 3, a[i], 2)", "-(a[i] * b[i])",
]
INT_EXPRS = [
    "a[i] + b[i]", "a[i] - b[i]", "a[i] * b[i]", "a[i] / b[i]", "min(a[i], b[i])", "max(b[i], a[i])",
    "fma(a[i], b[i], c[i])", "-a[i]", "exp(s[i])", "log(s[i])", "sqrt(s[i])", "relu(a[i])",
    "abs(a[i])", "floor(a[i] / 3)", "a[i] % 3", "where(a[i] < b[i], a[i], c[i])",
    "where(a[i] <= b[i], a[i], c[i])", "where(a[i] > b[i], a[i], c[i])",
    "where(a[i] >= b[i], a[i], c[i])", "where(a[i] == b[i], a[i], c[i])",
    "where(a[i] != b[i], a[i], c[i])", "f16(s[i])", "bf16(s[i])", "f32(s[i] * 99991)", "f64(a[i])",
    "i32(a[i])", "a[i] + 7", "a[i] * N + i", "where(-a[i] < b[i], 1, 0)", "floor((a[i] + b[i]) / 4)",
]


def specials(prec: str) -> list:
    if prec == "i32":
        return [0, 1, -1, 7, -8, 46341, 2 ** 31 - 1, -2 ** 31, 65536]
    big = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": float(np.finfo(np.float32).max),
           "f64": float(np.finfo(np.float64).max)}[prec]
    over = {"f16": 3.0e38, "bf16": 3.0e38, "f32": 3.0e38, "f64": 1e300}[prec]  # overflows f16 / f32
    vals = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, big, -big, 3.0, 1e-3, -7.0, 1e-40]
    if prec in ("f32", "f64"):
        vals.append(over)
    return vals


def storage(prec: str, values) -> np.ndarray:
    if prec == "bf16":
        return f32_to_bf16(np.array(values, np.float32))
    with np.errstate(over="ignore"):
        return np.array(values, dtype=NP_DTYPE[prec])


def _lines(prec: str, sfx: str = "") -> tuple:
    """(declarations, statements) of every expression of `prec`, tensor names ending in sfx."""
    exprs = INT_EXPRS if prec == "i32" else FLOAT_EXPRS
    decls = [f"tensor {t}{sfx}[N] {prec}" for t in "abcs"]
    decls += [f"tensor y{k}{sfx}[N] {prec}" for k in range(len(exprs))]
    body = []
    for k, text in enumerate(exprs):
        text = re.sub(r"\b([abcs])\[", lambda m: f"{m.group(1)}{sfx}[", text)
        body += ["  for i in 0 .. N {", f"    y{k}{sfx}[i] = {text}", "  }"]
    return decls, body, exprs


def program_for(prec: str):
    decls, body, exprs = _lines(prec)
    text = "\n".join(["params N where N >= 4", *decls, "kernel k {", *body, "}"]) + "\n"
    return parse_text(text, f"all_{prec}.vs"), exprs


def program_of_all(precs) -> ir.Program:
    """Every precision's expressions in one kernel (tensor names end in _<prec>): one compile."""
    decls, body = [], []
    for p in precs:
        d, b, _ = _lines(p, f"_{p}")
        decls, body = decls + d, body + b
    return parse_text("\n".join(["params N where N >= 4", *decls, "kernel k {", *body, "}"]) + "\n",
                      "all.vs")


def inputs(prec: str) -> dict:
    vals = specials(prec)
    pairs = list(itertools.product(vals, vals))
    n = len(pairs)
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    c = [vals[(k * 5 + 3) % len(vals)] for k in range(n)]
    safe = [float(1 + k % 19) for k in range(n)] if prec != "i32" else [1 + k % 19 for k in range(n)]
    out = {"a": storage(prec, a), "b": storage(prec, b), "c": storage(prec, c), "s": storage(prec, safe)}
    return out


class TableEval(ExprMapper):
    """The semantics table's evaluation of one expression at one instance (the reference)."""

    def __init__(self, program, env: dict, arrays: dict):
        self.program, self.env, self.arrays = program, env, arrays
        self.prec = {t.name: t.prec for t in program.tensors}

    def integer(self, e) -> bool:
        return semantics.integer_typed(e, self.prec.get)

    def map_int(self, e, ct):
        return semantics_ev.const(ct, e.value)

    map_float = map_int

    def map_var(self, e, ct):
        return semantics_ev.CONVERT[ct](self.env[e.name])

    def map_load(self, e, ct):
        index = tuple(self(x, "index") for x in e.index)
        raw = self.arrays[e.tensor][index]
        return semantics_ev.CONVERT[ct](semantics_ev.FROM_STORAGE[self.prec[e.tensor]](raw))

    def _row(self, e, ct, *args):
        if ct != "index" and self.integer(e) and isinstance(e, (ir.FloorDiv, ir.Mod)):
            return semantics_ev.CONVERT[ct](self(e, "index"))
        return semantics.row_of(e).ev[ct](*args)

    def map_binop(self, e, ct):
        return self._row(e, ct, self(e.a, ct), self(e.b, ct))

    def map_call(self, e, ct):
        return self._row(e, ct, *[self(x, ct) for x in e.args])

    def map_floordiv(self, e, ct):
        if ct != "index" and self.integer(e):
            return semantics_ev.CONVERT[ct](self(e, "index"))
        return semantics.row_of(e).ev[ct](self(e.a, ct), e.divisor)

    map_mod = map_floordiv

    def map_cast(self, e, ct):
        inner = semantics.COMPUTE[e.prec]
        return semantics_ev.CONVERT[ct](semantics.CASTS[e.prec].ev[inner](self(e.a, inner)))

    def map_where(self, e, ct):
        return self(e.a, ct) if self(e.cond, ct) else self(e.b, ct)

    def map_cmp(self, e, ct):
        t = "index" if (semantics.integer_typed(e.a, self.prec.get)
                        and semantics.integer_typed(e.b, self.prec.get)) else ct
        return semantics.CMPS[e.op].ev[t](self(e.a, t), self(e.b, t))


def reference(program, exprs, prec, n, arrays) -> dict:
    ct = semantics.COMPUTE[prec]
    out = {}
    for k, stmt in enumerate(s.body[0] for s in program.kernels[0].body):
        col = np.zeros(n, NP_DTYPE[prec])
        for i in range(n):
            ev = TableEval(program, {"N": n, "i": i}, arrays)
            with np.errstate(all="ignore"):
                col[i] = semantics_ev.TO_STORAGE[prec](ev(stmt.value, ct))
        out[f"y{k}"] = col
    return out


def _bits(arr: np.ndarray) -> np.ndarray:
    return arr.view(f"u{arr.itemsize}")


def backends(program):
    out = {"interp": lambda k, s, a: run_kernel(program, k, s, a, seed=1),
           "interp-scalar": lambda k, s, a: run_kernel(program, k, s, a, seed=1, vectorize=False),
           "c": load_c(program).run, "emulate": load_emulated(program, seed=2).run}
    return out


@pytest.mark.parametrize("prec", ["f32", "f64", "f16", "bf16", "i32"])
def test_every_operation_bitwise_in_every_backend_against_the_table(prec):
    program, exprs = program_for(prec)
    base = inputs(prec)
    n = len(base["a"])
    want = reference(program, exprs, prec, n, base)
    for name, run in backends(program).items():
        arrays = {k: v.copy() for k, v in base.items()}
        arrays.update({f"y{k}": np.zeros(n, NP_DTYPE[prec]) for k in range(len(exprs))})
        with np.errstate(all="ignore"):
            run("k", {"N": n}, arrays)
        for k, text in enumerate(exprs):
            got, exp = arrays[f"y{k}"], want[f"y{k}"]
            bad = np.flatnonzero(_bits(got) != _bits(exp))
            assert not bad.size, (f"{name} {prec} `{text}` at a={base['a'][bad[0]]!r} "
                                  f"b={base['b'][bad[0]]!r}: got {got[bad[0]]!r} want {exp[bad[0]]!r}")


PRECS = ("f32", "f64", "f16", "bf16", "i32")


def _subnormal(v) -> bool:
    """Below the smallest normal of f32 (f16, bf16 and casts compute in f32) or of its own type."""
    v = np.asarray(v)
    if v.dtype == np.uint16:  # bf16 bits
        v = semantics_ev.FROM_STORAGE["bf16"](v)
    if v.dtype.kind != "f" or not np.isfinite(v):
        return False
    return 0 < abs(float(v)) < max(np.finfo(np.float32).tiny, np.finfo(v.dtype).tiny)


def _nan(v) -> bool:
    v = np.asarray(v)
    if v.dtype == np.uint16:
        v = semantics_ev.FROM_STORAGE["bf16"](v)
    return v.dtype.kind == "f" and bool(np.isnan(v))


# found by the test below: see test_iree_f64_fma_is_one_rounding
IREE_KNOWN = {("f64", "fma(a[i], b[i], c[i])")}


def test_every_operation_through_iree_against_the_table():
    """MLIR/IREE (llvm-cpu), all precisions in one module (one compile). Documented
    differences of the target, not of the spelling: it flushes subnormal inputs and results to
    zero (elements whose inputs or table result are subnormal are skipped) and does not keep a
    NaN's sign or payload (any NaN matches a NaN). Everything else is bitwise, including
    IEEE min/max with -0/+0 and NaN and f32 -> bf16 rounding at overflow (both spelled in
    emit_body as the table says: arith.truncf to bf16 lost the rounding, and arith.maximumf-like
    `a > b ? a : b` dropped a NaN)."""
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from verified_sched.mlir.iree_backend import load_iree

    program = program_of_all(PRECS)
    n = max(len(inputs(p)["a"]) for p in PRECS)
    base = {p: {t: np.resize(v, n) for t, v in inputs(p).items()} for p in PRECS}  # tiled
    arrays = {}
    for p in PRECS:
        arrays.update({f"{t}_{p}": base[p][t][:n].copy() for t in "abcs"})
        count = len(INT_EXPRS if p == "i32" else FLOAT_EXPRS)
        arrays.update({f"y{k}_{p}": np.zeros(n, NP_DTYPE[p]) for k in range(count)})
    load_iree(program).run("k", {"N": n}, arrays)
    for p in PRECS:
        sub, exprs = program_for(p)
        cut = {t: base[p][t][:n] for t in "abcs"}
        want = reference(sub, exprs, p, n, cut)
        for k, text in enumerate(exprs):
            got, exp = arrays[f"y{k}_{p}"], want[f"y{k}"]
            if (p, text) in IREE_KNOWN:
                continue
            for j in np.flatnonzero(_bits(got) != _bits(exp)):
                if _nan(got[j]) and _nan(exp[j]):
                    continue
                if _subnormal(exp[j]) or any(_subnormal(cut[t][j]) for t in "abc"):
                    continue
                raise AssertionError(f"iree {p} `{text}` at a={cut['a'][j]!r} b={cut['b'][j]!r} "
                                     f"c={cut['c'][j]!r}: got {got[j]!r} want {exp[j]!r}")


@pytest.mark.xfail(strict=True, reason="found by test_every_operation_through_iree_against_the_table: "
                   "IREE 3.13 llvm-cpu (--iree-llvmcpu-target-cpu=generic) computes an f64 math.fma as "
                   "a * b + c, two roundings (fma(a, b, -a*b) is 0, not the product's rounding error; "
                   "fma(DBL_MAX, -2.5, inf) is NaN, not inf); f32 fma is exact")
def test_iree_f64_fma_is_one_rounding():
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from verified_sched.mlir.iree_backend import load_iree

    program = parse_text("params N where N >= 1\ntensor a[N] f64\ntensor b[N] f64\ntensor c[N] f64\n"
                         "tensor y[N] f64\nkernel k {\n  for i in 0 .. N {\n    y[i] = fma(a[i], b[i], c[i])\n"
                         "  }\n}\n", "fma.vs")
    a = np.array([0.1, 1.7976931348623157e308])
    b = np.array([0.3, -2.5])
    c = np.array([-(0.1 * 0.3), np.inf])
    arrays = {"a": a, "b": b, "c": c, "y": np.zeros(2)}
    load_iree(program).run("k", {"N": 2}, arrays)
    want = [semantics.ROWS["fma"].ev["f64"](x, y, z) for x, y, z in zip(a, b, c)]
    assert _bits(arrays["y"]).tolist() == _bits(np.array(want)).tolist()
