"""Terms that read cells known to hold zero, and when dropping them is exact.

Compilers lower a convolution's backward pass through zero-filled and padded tensors: the
input gradient correlates a zero-inserted, padded dy (the gaps of a strided `insert_slice`
and the pad zone hold 0), the weight gradient reads the padded input. Each such read adds a
term `0 * y` to a sum the chain-rule reference never forms. `0 * y` is a (signed) zero when y
is finite, but NaN when y is an infinity or NaN, so dropping the term is exact **only for
finite inputs**. The `finite` profile states that assumption (and `approximate`, whose
rewrites already presume it: Winograd's transforms turn one infinity into NaN); `default` and
`reproducible` never drop such a term.

What is dropped, and why it is exact under the assumption:

- the zero is established by value flow, never assumed: it is a `Const(0.0)` of the value
  expansion (polyhedral/valueexpr.py), i.e. the read cell's last writer stores the constant 0 (`zero T`,
  a fill with 0.0, the pad value of `tensor.pad`, a gap of a zero-filled tensor that a strided
  insert leaves untouched) or the program multiplies by a literal 0;
- a term is dropped when its value is `z * v` (either order, through float casts of the
  zero), `z` such a zero and `v` a kernel input (finite by the assumption *at its declared
  precision*: one whose largest finite value overflows the statement's compute type, an f64
  input read by an f32 statement, say, is not, since 1e300 becomes inf there), a constant
  finite in the compute type or an integer iterator value: then the term is +0 or -0.
  Products of two inputs are not dropped (`x * y` may overflow to an infinity even for
  finite x and y). `Limits` carries the compute type and the tensors' precisions;
- a sum `s + (+-0)` equals s bitwise except when s is -0.0 (`-0 + +0 = +0`). A sum that starts
  from +0.0 (a zero-filled accumulator) is never -0.0 in round-to-nearest (a rounded sum is
  -0 only when both operands are), so terms are dropped from a `+` reduction only when its
  initial value is +0.0 (or such a partial sum), and `x + z` is x only for such an x.

`Dropped` counts the terms dropped, so the claim's report can say the assumption was used.
`ctx_first` (no assumption) keeps the term-order relation of such large sums per cell, which
is what lets the lowered convolutions fit isl's operation budget.
"""
from __future__ import annotations

import functools
import math

import islpy as isl

from smt import fp
from polyhedral.describe import maps_of
from polyhedral.valueexpr import At, Const, Iter, Leaf, Op, Pw, Red

FINITE_PROFILES = ("finite", "approximate")


class Limits:
    """What stays finite in one compute type (smt/fp.py's COMPUTE): an input of a tensor whose
    largest finite value fits it, a constant that rounds to a finite value there."""

    def __init__(self, compute: str = "f32", precs: dict | None = None):
        self.compute, self.precs = compute, precs or {}

    def leaf_ok(self, tensor: str) -> bool:
        prec = self.precs.get(tensor)
        return prec is not None and fp.MAX_FINITE[prec] <= fp.MAX_FINITE[self.compute]

    def const_ok(self, v: float) -> bool:
        if self.compute == "i32":
            return math.isfinite(v)
        import numpy as np  # here: verifying a file without a constant to check loads no numpy

        with np.errstate(all="ignore"):
            return bool(np.isfinite(np.float32(v) if self.compute == "f32" else np.float64(v)))


ANY = Limits("f64")  # no tensor known: only constants checked, against f64
ASSUMPTION = "assuming finite inputs"


def assumes_finite(profile: str) -> bool:
    """Whether the profile states the finite-input assumption."""
    return profile in FINITE_PROFILES


def _strip(n):
    while isinstance(n, At):
        n = n.body
    return n


def _float_cast(name: str) -> bool:
    return name.startswith("cast ") and name != "cast i32"


# ------------------------------------------------------------ term shapes (claims_terms.flat_terms)

def zero_shape(shape, lim: Limits = ANY) -> bool:
    """The term of this shape is +0 or -0 when every input is finite."""
    match shape:
        case ("c", v, *_):
            return v == 0.0
        case ("o", "*", a, b, *_):
            return (zero_shape(a, lim) and finite_shape(b, lim)) or (finite_shape(a, lim) and zero_shape(b, lim))
        case ("o", name, a) if _float_cast(name):
            return zero_shape(a, lim)
    return False


def finite_shape(shape, lim: Limits = ANY) -> bool:
    """A value that is finite when every input is: an input cell whose precision fits the
    compute type, a constant finite there, an iterator value (an integer)."""
    match shape:
        case ("c", v, *_):
            return lim.const_ok(v)
        case ("l", t):
            return lim.leaf_ok(t)
        case ("i",):
            return True
    return False


# ------------------------------------------------------------ expression nodes

def _every_case(pred):
    """`pred` on node forms: `At` wrappers stripped first (`_strip`), and true of a
    piecewise node when it has cases and every case has it."""
    @functools.wraps(pred)
    def lifted(n, *args) -> bool:
        n = _strip(n)
        if isinstance(n, Pw):
            return bool(n.pieces) and all(lifted(e, *args) for _, e in n.pieces)
        return pred(n, *args)
    return lifted


@_every_case
def zero_node(n, lim: Limits = ANY) -> bool:
    """Node form of `zero_shape`: every case of n is +0 or -0 when every input is finite."""
    if isinstance(n, Const):
        return n.value == 0.0
    if isinstance(n, Op) and n.name == "*" and len(n.args) == 2:
        a, b = n.args
        return (zero_node(a, lim) and finite_node(b, lim)) or (finite_node(a, lim) and zero_node(b, lim))
    if isinstance(n, Op) and _float_cast(n.name) and len(n.args) == 1:
        return zero_node(n.args[0], lim)
    return False


@_every_case
def finite_node(n, lim: Limits = ANY) -> bool:
    if isinstance(n, Const):
        return lim.const_ok(n.value)
    if isinstance(n, Leaf):
        return lim.leaf_ok(n.tensor)
    return isinstance(n, Iter)


@_every_case
def never_negzero(n) -> bool:
    """n is never -0.0: +0.0 or a nonzero constant, or a + reduction (a sum) from such an
    initial value (round to nearest gives -0 only for -0 + -0)."""
    if isinstance(n, Const):
        return n.value != 0.0 or math.copysign(1.0, n.value) > 0
    if isinstance(n, Red):
        return n.op == "+" and never_negzero(n.init)
    return False


def plus_zero_operand(n, lim: Limits = ANY):
    """For `x + z` or `z + x` (and `x - z`) with z a finite zero and x never -0.0: x, else None."""
    n = _strip(n)
    if not isinstance(n, Op) or n.name not in ("+", "-") or len(n.args) != 2:
        return None
    a, b = n.args
    if zero_node(b, lim) and never_negzero(a):
        return a
    if n.name == "+" and zero_node(a, lim) and never_negzero(b):
        return b
    return None


def drop_zero_operand(x, y, lim: Limits = ANY):
    """(x', y'): x and y with `+ z` removed from one of them (`plus_zero_operand`), or None when
    neither adds a finite zero to a value that is never -0.0, or both do (compared as they are)."""
    kx, ky = plus_zero_operand(x, lim), plus_zero_operand(y, lim)
    if (kx is None) == (ky is None):
        return None
    return (kx, y) if kx is not None else (x, ky)


def ctx_first(to_ctx: isl.Map, sched: isl.UnionMap) -> isl.UnionMap:
    """D -> SCHED[context coordinates, schedule] for the terms D of a reduction (to_ctx: D ->
    the cell they sum into): the order relation of two terms built from it equates their cells
    before comparing schedules, which keeps isl's work per cell (claims_value.families)."""
    out = None
    for m in maps_of(sched):
        mm = to_ctx.flatten_range().flat_range_product(m).set_tuple_name(isl.dim_type.out, "SCHED")
        u = isl.UnionMap.from_map(mm)
        out = u if out is None else out.union(u)
    return out if out is not None else sched


class Dropped:
    """How many terms a comparison dropped under the finite-input assumption."""

    def __init__(self):
        self.terms = 0  # zero terms of + reductions
        self.operands = 0  # zero operands of + and -

    def __bool__(self) -> bool:
        return bool(self.terms or self.operands)

    def text(self, profile: str) -> str:
        parts = []
        if self.terms:
            parts.append("terms of sums that read cells known to hold 0 (0 * input)")
        if self.operands:
            parts.append("additions of a value known to be 0")
        return (f"{ASSUMPTION} (the {profile} profile): dropped {' and '.join(parts)}, exact only when "
                "every input is finite")
