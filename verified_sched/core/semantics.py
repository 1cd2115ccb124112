"""The one semantics table: what every expression operation means, defined once.

One `Row` per binary operator (+ - * /), per function (`Call.fn`), per comparison, per cast
target and for the two integer node kinds FloorDiv and Mod. A row states

- its arity and its **integer typing**: whether integer-typed operands give an integer-typed
  result (ONE rule, `integer_typed`: integer expressions are evaluated exactly, in int64 in
  C/CUDA/MLIR, as Python ints in the interpreter, as Int in isl and z3);
- its **exact evaluation** per compute type (`ev`, written in `semantics_ev.py` and loaded on
  first use, so what only reads the table imports no numpy): numpy scalars with IEEE-754 round to
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

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Optional

from .ir_nodes import BinOp, Call, Cast, Cmp, Float, FloorDiv, Int, Load, Mod, Node, Var, Where
from .precisions import CMP_NAMES, COMPUTE, PRECISIONS
from .semantics_z3 import (z3_convert, z3_round, z3_sort, z_abs, z_arith, z_cmp, z_floordiv, z_fma, z_libm,
                           z_mod, z_neg, z_pick, z_zero, z_pow, z_rsqrt)


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
    z3: Callable
    interval: Optional[Callable] = None
    linear: Optional[Callable] = None

    @property
    def ev(self) -> dict:
        """compute type -> the exact evaluation (`semantics_ev.EV`, numpy: imported here, on
        first use)."""
        from .semantics_ev import EV

        return EV[self.name]

    @cached_property
    def method(self) -> str:
        """The method every translator defines for this row (`ExprMapper.map_row` calls it, at
        every node: formatted once per row)."""
        return f"{self.kind}_{self.name}"


_ROWS = [
    Row("add", "binop", "+", 2, True, "a + b (one rounding; i32 wraps)", z_arith("+"),
        lambda a, b: (a[0] + b[0], a[1] + b[1]), _lin_add(1)),
    Row("sub", "binop", "-", 2, True, "a - b (one rounding; i32 wraps)", z_arith("-"),
        lambda a, b: (a[0] - b[1], a[1] - b[0]), _lin_add(-1)),
    Row("mul", "binop", "*", 2, True, "a * b (one rounding; i32 wraps)", z_arith("*"),
        _iv_mul, _lin_mul),
    Row("div", "binop", "/", 2, False, "a / b: real division for floats; i32 truncates, x / 0 = 0",
        z_arith("/")),
    Row("min", "fn", "min", 2, True, "IEEE 754-2019 minimum (NaN -> canonical quiet NaN, -0 < +0)",
        z_pick(True),
        lambda a, b: (min(a[0], b[0]), min(a[1], b[1]))),
    Row("max", "fn", "max", 2, True, "IEEE 754-2019 maximum (NaN -> canonical quiet NaN, -0 < +0)",
        z_pick(False),
        lambda a, b: (max(a[0], b[0]), max(a[1], b[1]))),
    Row("fma", "fn", "fma", 3, False, "a * b + c with one rounding (libm fma); i32 wraps",
        z_fma),
    Row("neg", "fn", "neg", 1, True, "-a (flips the sign bit; i32 wraps)", z_neg,
        lambda a: (-a[1], -a[0]), lambda a: _lin_scale(a, -1)),
    Row("exp", "fn", "exp", 1, False, "libm exp (i32: through double, truncated)", z_libm("exp")),
    Row("log", "fn", "log", 1, False, "libm log (i32: through double, truncated)", z_libm("log")),
    Row("sqrt", "fn", "sqrt", 1, False, "correctly rounded square root (i32: through double, truncated)",
        z_libm("sqrt")),
    Row("tanh", "fn", "tanh", 1, False, "libm tanh (i32: through double, truncated)", z_libm("tanh")),
    Row("erf", "fn", "erf", 1, False, "libm erf (i32: through double, truncated)", z_libm("erf")),
    Row("rsqrt", "fn", "rsqrt", 1, False, "1 / sqrt(a), two roundings (i32: through double, truncated)", z_rsqrt),
    Row("pow", "fn", "pow", 2, False, "libm pow (i32: through double, truncated)", z_pow),
    Row("relu", "fn", "relu", 1, True, "max(a, +0) (IEEE maximum: relu(NaN) is NaN, relu(-0) is +0)",
        lambda ct, a: z_pick(False)(ct, a, z_zero(ct)), lambda a: (max(a[0], 0), max(a[1], 0))),
    Row("abs", "fn", "abs", 1, True, "a < 0 ? -a : a (abs(-0.0) is -0.0, abs(NaN) keeps its sign; i32 wraps)",
        z_abs, _iv_abs),
    Row("floordiv", "node", "//", 1, True, "floor(a / c), c a positive constant (float: floor(a / c) in the type)",
        z_floordiv, _iv_floordiv),
    Row("mod", "node", "%", 1, True, "a - c * floor(a / c), in [0, c) for integers", z_mod, lambda a, c: (0, c - 1)),
]
_ROWS += [Row(name, "cmp", op, 2, True, f"a {op} b (IEEE: NaN compares unequal, -0 == +0)", z_cmp(op))
          for op, name in CMP_NAMES.items()]
_ROWS += [Row(p, "cast", p, 1, p == "i32",
              f"{p}(a): a in {COMPUTE[p]}, rounded to {p}" + (" (float -> i32 truncates)" if p == "i32" else ""),
              lambda ct, a, p=p: z3_round(p, a))
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
