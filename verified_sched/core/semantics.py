"""The one semantics table: what every expression operation means, defined once.

One `Row` per binary operator (+ - * /), per function (`Call.fn`), per comparison, per cast
target and for the two integer node kinds FloorDiv and Mod. A row states

- its arity and its **integer typing**: whether integer-typed operands give an integer-typed
  result (ONE rule, `integer_typed`: integer expressions are evaluated exactly, in int64 in
  C/CUDA/MLIR, as Python ints in the interpreter, as Int in isl and z3);
- its **exact evaluation** per compute type (`ev`): numpy scalars with IEEE-754 round to
  nearest even for f32 (also the arithmetic of f16 and bf16, rounded on store) and f64;
  IEEE 754-2019 minimum/maximum (a NaN operand gives the canonical quiet NaN, -0 < +0);
  wrapping 32-bit integers for i32 (`/` truncates, `x / 0 == 0`); exact Python integers for
  `index` expressions; exp/log/sqrt/fma through the very libm functions the compiled C calls;
- its **interval rule** and its **linear-form rule** (integer rows: None where the result is
  not an interval / linear function of the operands');
- its **z3 encoding** (`z3`, written in `semantics_z3.py`): FP sorts with RNE for floats, 32-bit bit-vectors for i32, Int for
  index expressions; exp/log (no IEEE definition) are one uninterpreted function per type.

Precisions: f16, bf16, f32, f64, i32 (storage types) and `index`; `COMPUTE` maps each to the
type its arithmetic is done in. Every translator (interpreter, C/CUDA/MLIR spelling, ranges,
linear forms, isl, z3) is an `expr_mapper.ExprMapper` with one method per row
(`Row.method`); adding a function is one row here plus one method per mapper.
`ir_nodes.FUNCS` is checked against `FUNCS` below (tests/test_semantics_table.py).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import operator
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from .errors import VschedError
from .ir_nodes import BinOp, Call, Cast, Cmp, Float, FloorDiv, Int, Load, Mod, Node, Var, Where
from .semantics_z3 import (CMP_FN, FLOATS, z3_convert, z3_round, z3_sort, z_abs, z_arith, z_cmp,
                           z_floordiv, z_fma, z_libm, z_mod, z_neg, z_pick, z_zero, z_pow, z_rsqrt)

PRECISIONS = ("f16", "bf16", "f32", "f64", "i32", "index")
COMPUTE = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64", "i32": "i32", "index": "index"}
I32_MIN, I32_MAX = -(2 ** 31), 2 ** 31 - 1


class KernelError(VschedError):
    """The kernel failed while running: an index outside storage, a divergent barrier, an
    integer division by zero, a float converted to i32 outside its range. A finding about the
    kernel, not a usage error."""


# ---------------------------------------------------------------- scalar helpers

_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_SCALAR = {"f32": np.float32, "f64": np.float64}


def _libm(name: str, ctype, nargs: int):
    fn = getattr(_LIBM, name)
    fn.restype = ctype
    fn.argtypes = [ctype] * nargs
    return fn


def wrap32(x: int) -> int:
    """Two's complement wrap of an integer to int32."""
    return ((x + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def trunc_i32(x) -> int:
    """C's conversion to int32: an integer wraps, a float truncates toward zero (outside int32
    undefined in C: a KernelError here)."""
    if isinstance(x, (int, np.integer)):
        return wrap32(int(x))
    if not np.isfinite(x) or not I32_MIN <= int(x) <= I32_MAX:
        raise KernelError(f"conversion of {x} to i32 is out of range")
    return int(x)


def _idiv(a: int, b: int) -> int:
    """int32 division: truncating, x / 0 = 0, wrapping (INT_MIN / -1 = INT_MIN)."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return wrap32(q if (a < 0) == (b < 0) else -q)


def _ieee_pick(scalar, lower: bool):
    """IEEE 754-2019 minimum (`lower`) or maximum in `scalar`'s type, as the C helpers
    vs_min_f32/...: a NaN operand gives the canonical quiet NaN (np.nan's bits), -0 < +0."""
    nan = scalar(np.nan)

    def pick(a, b):
        if a != a or b != b:
            return nan
        if a == b:  # -0 and +0: the minimum is the negative one
            return a if bool(np.signbit(a)) == lower else b
        return a if (a < b) == lower else b
    return pick


def _int_pick(lower: bool):
    return (lambda a, b: a if a < b else b) if lower else (lambda a, b: a if a > b else b)


def _f2bf(v) -> int:
    """One float -> bf16 bits, round to nearest even, a NaN kept quiet (verified_sched.core.dtypes' rule)."""
    u = int(np.float32(v).view(np.uint32))
    if (u & 0x7FFFFFFF) > 0x7F800000:
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


# compute-type value -> storage element (rounding to nearest even) and back
TO_STORAGE = {"f32": np.float32, "f64": np.float64, "f16": lambda v: np.float16(np.float32(v)),
              "bf16": _f2bf, "i32": trunc_i32}
FROM_STORAGE = {"f32": lambda v: v, "f64": lambda v: v, "f16": np.float32,
                "bf16": lambda v: (np.uint32(v) << np.uint32(16)).view(np.float32), "i32": int}
# a value of any compute type -> this compute type (C's implicit conversion)
CONVERT = {"f32": np.float32, "f64": np.float64, "i32": trunc_i32, "index": int}


def round_to(prec: str, v):
    """A value of `prec`'s compute type rounded to `prec` (the meaning of a cast and a store)."""
    if prec == "index":
        return int(v)
    return FROM_STORAGE[prec](TO_STORAGE[prec](v))


def const(ct: str, v):
    """A literal (Int or Float value) in compute type ct (C: i32 literals wrap, a non-finite
    float literal is 0; an index literal is exact)."""
    if ct == "i32":
        return wrap32(int(v)) if np.isfinite(v) else 0
    if ct == "index":
        return int(v)
    return _SCALAR[ct](v)


# the libm functions of one argument: the same call in C and, through ctypes, here
LIBM_UNARY = ("exp", "log", "sqrt", "tanh", "erf")


def _float_ev():
    """Per float compute type: the libm-backed evaluations."""
    out = {}
    for ct in FLOATS:
        c_type = ctypes.c_float if ct == "f32" else ctypes.c_double
        sfx, scalar = ("f" if ct == "f32" else ""), _SCALAR[ct]
        fns = {f: _libm(f + sfx, c_type, 1) for f in LIBM_UNARY}
        fma = _libm("fma" + sfx, c_type, 3)
        ev = {f: (lambda a, fn=fn, s=scalar: s(fn(float(a)))) for f, fn in fns.items()}
        ev["fma"] = lambda a, b, c, fma=fma, s=scalar: s(fma(float(a), float(b), float(c)))
        pw = _libm("pow" + sfx, c_type, 2)
        ev["pow"] = lambda a, b, pw=pw, s=scalar: s(pw(float(a), float(b)))
        # 1 / sqrt(a): two roundings, in every backend (no approximate reciprocal square root)
        ev["rsqrt"] = lambda a, q=ev["sqrt"], s=scalar: s(1) / q(a)
        out[ct] = ev
    return out


_FEV = _float_ev()
_DEXP = {f: _libm(f, ctypes.c_double, 1) for f in LIBM_UNARY}
_DPOW = _libm("pow", ctypes.c_double, 2)


def _i32_libm(f: str):
    """i32 exp/log/sqrt: no integer transcendental, through double (C: `(int32_t)f((double)x)`)."""
    fn = _DEXP[f]
    return lambda a: trunc_i32(fn(float(a)))


# ---------------------------------------------------------------- interval and linear rules

def _iv_mul(a, b):
    xs = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return min(xs), max(xs)


def _iv_abs(a):
    hi = max(abs(a[0]), abs(a[1]))
    return (0 if a[0] <= 0 <= a[1] else min(abs(a[0]), abs(a[1]))), hi


def _iv_floordiv(a, c):
    return min(a[0] // c, a[1] // c), max(a[0] // c, a[1] // c)


# a linear form is (coefficients: dict name -> int, constant: int)
def _lin_add(sign: int):
    def rule(a, b):
        coef = dict(a[0])
        for k, v in b[0].items():
            coef[k] = coef.get(k, 0) + sign * v
        return {k: v for k, v in coef.items() if v}, a[1] + sign * b[1]
    return rule


def _lin_scale(a, k: int):
    return {n: v * k for n, v in a[0].items() if v * k}, a[1] * k


def _lin_mul(a, b):
    if a[0] and b[0]:
        return None  # a product of two symbols: not linear
    if a[0]:
        a, b = b, a
    return _lin_scale(b, a[1])


# ---------------------------------------------------------------- the table

_CMP_FN = CMP_FN
_ALL = ("f32", "f64", "i32", "index")


@dataclass(frozen=True)
class Row:
    """One operation. `ev[ct]` evaluates it in compute type ct (absent: not defined there);
    `interval`/`linear` take operand intervals (lo, hi) / linear forms (None: no rule);
    `z3(ct, *terms)` encodes it; FloorDiv and Mod take the constant divisor last."""

    name: str
    kind: str  # binop | fn | cmp | cast | node
    symbol: str  # '+', 'min', '<', 'f16', '//'
    arity: int
    integer: bool  # integer-typed operands give an integer-typed (exact) result
    doc: str
    ev: dict
    z3: Callable
    interval: Optional[Callable] = None
    linear: Optional[Callable] = None

    @property
    def method(self) -> str:
        """The method every translator defines for this row (`ExprMapper.map_row` calls it)."""
        return f"{self.kind}_{self.name}"


def _per(fn_of_ct, cts=_ALL) -> dict:
    return {ct: fn_of_ct(ct) for ct in cts}


def _float_or_int(float_fn, i32_fn, index_fn=None) -> dict:
    ev = {ct: float_fn for ct in FLOATS}
    ev["i32"] = i32_fn
    if index_fn is not None:
        ev["index"] = index_fn
    return ev


_ROWS = [
    Row("add", "binop", "+", 2, True, "a + b (one rounding; i32 wraps)",
        _float_or_int(operator.add, lambda a, b: wrap32(a + b), operator.add), z_arith("+"),
        lambda a, b: (a[0] + b[0], a[1] + b[1]), _lin_add(1)),
    Row("sub", "binop", "-", 2, True, "a - b (one rounding; i32 wraps)",
        _float_or_int(operator.sub, lambda a, b: wrap32(a - b), operator.sub), z_arith("-"),
        lambda a, b: (a[0] - b[1], a[1] - b[0]), _lin_add(-1)),
    Row("mul", "binop", "*", 2, True, "a * b (one rounding; i32 wraps)",
        _float_or_int(operator.mul, lambda a, b: wrap32(a * b), operator.mul), z_arith("*"),
        _iv_mul, _lin_mul),
    Row("div", "binop", "/", 2, False, "a / b: real division for floats; i32 truncates, x / 0 = 0",
        _float_or_int(operator.truediv, _idiv), z_arith("/")),
    Row("min", "fn", "min", 2, True, "IEEE 754-2019 minimum (NaN -> canonical quiet NaN, -0 < +0)",
        {"f32": _ieee_pick(np.float32, True), "f64": _ieee_pick(np.float64, True),
         "i32": _int_pick(True), "index": _int_pick(True)}, z_pick(True),
        lambda a, b: (min(a[0], b[0]), min(a[1], b[1]))),
    Row("max", "fn", "max", 2, True, "IEEE 754-2019 maximum (NaN -> canonical quiet NaN, -0 < +0)",
        {"f32": _ieee_pick(np.float32, False), "f64": _ieee_pick(np.float64, False),
         "i32": _int_pick(False), "index": _int_pick(False)}, z_pick(False),
        lambda a, b: (max(a[0], b[0]), max(a[1], b[1]))),
    Row("fma", "fn", "fma", 3, False, "a * b + c with one rounding (libm fma); i32 wraps",
        {"f32": _FEV["f32"]["fma"], "f64": _FEV["f64"]["fma"], "i32": lambda a, b, c: wrap32(a * b + c)},
        z_fma),
    Row("neg", "fn", "neg", 1, True, "-a (flips the sign bit; i32 wraps)",
        _float_or_int(operator.neg, lambda a: wrap32(-a), operator.neg), z_neg,
        lambda a: (-a[1], -a[0]), lambda a: _lin_scale(a, -1)),
    Row("exp", "fn", "exp", 1, False, "libm exp (i32: through double, truncated)",
        {"f32": _FEV["f32"]["exp"], "f64": _FEV["f64"]["exp"], "i32": _i32_libm("exp")}, z_libm("exp")),
    Row("log", "fn", "log", 1, False, "libm log (i32: through double, truncated)",
        {"f32": _FEV["f32"]["log"], "f64": _FEV["f64"]["log"], "i32": _i32_libm("log")}, z_libm("log")),
    Row("sqrt", "fn", "sqrt", 1, False, "correctly rounded square root (i32: through double, truncated)",
        {"f32": _FEV["f32"]["sqrt"], "f64": _FEV["f64"]["sqrt"], "i32": _i32_libm("sqrt")}, z_libm("sqrt")),
    Row("tanh", "fn", "tanh", 1, False, "libm tanh (i32: through double, truncated)",
        {"f32": _FEV["f32"]["tanh"], "f64": _FEV["f64"]["tanh"], "i32": _i32_libm("tanh")}, z_libm("tanh")),
    Row("erf", "fn", "erf", 1, False, "libm erf (i32: through double, truncated)",
        {"f32": _FEV["f32"]["erf"], "f64": _FEV["f64"]["erf"], "i32": _i32_libm("erf")}, z_libm("erf")),
    Row("rsqrt", "fn", "rsqrt", 1, False, "1 / sqrt(a), two roundings (i32: through double, truncated)",
        {"f32": _FEV["f32"]["rsqrt"], "f64": _FEV["f64"]["rsqrt"],
         "i32": lambda a, q=_DEXP["sqrt"]: trunc_i32(1.0 / q(float(a)))}, z_rsqrt),
    Row("pow", "fn", "pow", 2, False, "libm pow (i32: through double, truncated)",
        {"f32": _FEV["f32"]["pow"], "f64": _FEV["f64"]["pow"],
         "i32": lambda a, b: trunc_i32(_DPOW(float(a), float(b)))}, z_pow),
    Row("relu", "fn", "relu", 1, True, "max(a, +0) (IEEE maximum: relu(NaN) is NaN, relu(-0) is +0)",
        {"f32": lambda a, m=_ieee_pick(np.float32, False): m(a, np.float32(0)),
         "f64": lambda a, m=_ieee_pick(np.float64, False): m(a, np.float64(0)),
         "i32": lambda a: a if a > 0 else 0, "index": lambda a: a if a > 0 else 0},
        lambda ct, a: z_pick(False)(ct, a, z_zero(ct)), lambda a: (max(a[0], 0), max(a[1], 0))),
    Row("abs", "fn", "abs", 1, True, "a < 0 ? -a : a (abs(-0.0) is -0.0, abs(NaN) keeps its sign; i32 wraps)",
        {"f32": lambda a: -a if a < 0 else a, "f64": lambda a: -a if a < 0 else a,
         "i32": lambda a: wrap32(-a) if a < 0 else a, "index": lambda a: -a if a < 0 else a},
        z_abs, _iv_abs),
    Row("floordiv", "node", "//", 1, True, "floor(a / c), c a positive constant (float: floor(a / c) in the type)",
        {"f32": lambda a, c: np.float32(np.floor(a / np.float32(c))),
         "f64": lambda a, c: np.float64(np.floor(a / np.float64(c))),
         "i32": operator.floordiv, "index": operator.floordiv}, z_floordiv, _iv_floordiv),
    Row("mod", "node", "%", 1, True, "a - c * floor(a / c), in [0, c) for integers",
        {"f32": lambda a, c: a - np.float32(c) * np.float32(np.floor(a / np.float32(c))),
         "f64": lambda a, c: a - np.float64(c) * np.float64(np.floor(a / np.float64(c))),
         "i32": operator.mod, "index": operator.mod}, z_mod, lambda a, c: (0, c - 1)),
]
_CMP_NAMES = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}
_ROWS += [Row(name, "cmp", op, 2, True, f"a {op} b (IEEE: NaN compares unequal, -0 == +0)",
              _per(lambda ct, op=op: _CMP_FN[op]), z_cmp(op)) for op, name in _CMP_NAMES.items()]
_ROWS += [Row(p, "cast", p, 1, p == "i32",
              f"{p}(a): a in {COMPUTE[p]}, rounded to {p}" + (" (float -> i32 truncates)" if p == "i32" else ""),
              {COMPUTE[p]: (lambda a, p=p: round_to(p, a))}, lambda ct, a, p=p: z3_round(p, a))
          for p in PRECISIONS if p != "index"]

ROWS = {r.name: r for r in _ROWS}
BINOPS = {r.symbol: r for r in _ROWS if r.kind == "binop"}
FUNCS = {r.name: r for r in _ROWS if r.kind == "fn"}
CMPS = {r.symbol: r for r in _ROWS if r.kind == "cmp"}
CASTS = {r.symbol: r for r in _ROWS if r.kind == "cast"}


def row_of(node) -> Row:
    """The table row of a BinOp, Call, Cmp, Cast, FloorDiv or Mod node."""
    match node:
        case BinOp(op=op):
            return BINOPS[op]
        case Call(fn=fn):
            return FUNCS[fn]
        case Cmp(op=op):
            return CMPS[op]
        case Cast(prec=p):
            return CASTS[p]
        case FloorDiv():
            return ROWS["floordiv"]
        case Mod():
            return ROWS["mod"]
    raise KeyError(type(node).__name__)


# ---------------------------------------------------------------- typing

def integer_typed(e, prec_of: Callable[[str], Optional[str]]) -> bool:
    """THE integer typing rule: literals and iterators/sizes are integers, an i32 tensor read
    and an i32 cast are integers (widened exactly), and an operation of integer operands is an
    integer iff its row says so (`/`, fma, exp, log, sqrt never are). Integer expressions are
    evaluated exactly (int64 in C/CUDA/MLIR) wherever they are compared, floored or indexed."""
    match e:
        case Int() | Var():
            return True
        case Float():
            return False
        case Load(tensor=t):
            return prec_of(t) == "i32"
        case Cast(prec=p):
            return p == "i32"
        case Where(a=a, b=b):
            return integer_typed(a, prec_of) and integer_typed(b, prec_of)
        case FloorDiv(a=a) | Mod(a=a):
            return integer_typed(a, prec_of)
        case BinOp(a=a, b=b):
            return row_of(e).integer and integer_typed(a, prec_of) and integer_typed(b, prec_of)
        case Call(args=args):
            return row_of(e).integer and all(integer_typed(x, prec_of) for x in args)
    raise TypeError(f"not an expression: {e!r}")


def _nodes(x):
    """Every node at or below x (fields and tuples of fields)."""
    if isinstance(x, Node):
        yield x
        for v in vars(x).values():
            if isinstance(v, (Node, tuple)):
                yield from _nodes(v)
    elif isinstance(x, tuple):
        for v in x:
            yield from _nodes(v)


def compare_type(node, prec_of: Callable[[str], Optional[str]]) -> str:
    """The compute type of a comparison that is not between integer operands and stands
    outside an assignment (a statement-level `if`): f64 if an f64 read or cast occurs in it,
    else f32 if a float read, cast or literal does, else i32."""
    precs = {prec_of(n.tensor) for n in _nodes(node) if isinstance(n, Load)}
    precs |= {n.prec for n in _nodes(node) if isinstance(n, Cast)}
    if "f64" in precs:
        return "f64"
    if precs & {"f32", "f16", "bf16"} or any(isinstance(n, Float) for n in _nodes(node)):
        return "f32"
    return "i32"




# ---------------------------------------------------------------- documentation

_KIND_TITLE = {"binop": "operator", "fn": "function", "node": "node", "cmp": "comparison", "cast": "cast"}


def markdown() -> str:
    """The table of operations of docs/semantics.md ("Semantics, precisions and dtypes", between
    the `semantics-table` markers; tests/test_semantics_readme.py checks it is this text)."""
    lines = ["| operation | kind | arity | integer operands give | meaning |",
             "| --- | --- | --- | --- | --- |"]
    for r in _ROWS:
        spelled = {"node": {"floordiv": "`floor(a / c)`", "mod": "`a % c`"}.get(r.name),
                   "cast": f"`{r.symbol}(a)`", "cmp": f"`a {r.symbol} b`",
                   "binop": f"`a {r.symbol} b`"}.get(r.kind) or f"`{r.symbol}`"
        typing = ("an exact comparison" if r.kind == "cmp" else
                  "an exact integer" if r.integer else "the statement's type")
        lines.append(f"| {spelled} | {_KIND_TITLE[r.kind]} | {r.arity} | {typing} | {r.doc} |")
    return "\n".join(lines) + "\n"
