"""The tensor-core rule: which TensorCore blocks the CUDA backend renders as WMMA (`match`).

Shared by the backend (codegen/cuda_mma.py, which writes the intrinsic) and the tensorize op's
proofs (which state the rounding obligation only where the intrinsic is used): the rule is in
core, so neither imports the other. The rule itself and the meaning of the rendering are in
codegen/cuda_mma.py's docstring.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from . import ir

FRAG = 16
PRECISIONS = ("f16", "bf16")  # operand precisions WMMA takes (accumulating in f32)


@dataclass(frozen=True)
class MmaTile:
    """A recognized fallback: target and operand loads, loop names, shape and operand precision."""

    d: ir.Load
    a: ir.Load
    b: ir.Load
    names: tuple  # (i, j, k)
    shape: tuple  # (M, N, K)
    prec: str

    def base(self, load: ir.Load) -> tuple:
        """The load's index at i = j = k = 0 (the tile's origin)."""
        zero = {n: ir.Int(0) for n in self.names}
        return tuple(ir.rewrite(ir.substitute(e, zero), _drop_zero) for e in load.index)


def _drop_zero(e):
    """x + 0, 0 + x, x - 0 -> x; c * 0, 0 * c -> 0 (readable tile addresses)."""
    match e:
        case ir.BinOp(op="+" | "-", a=x, b=ir.Int(value=0)) | ir.BinOp(op="+", a=ir.Int(value=0), b=x):
            return x
        case ir.BinOp(op="*", a=ir.Int(value=0)) | ir.BinOp(op="*", b=ir.Int(value=0)):
            return ir.Int(0)
    return None


def lane_loops(stmt) -> dict:
    """id(TensorCore) -> the loop binding its lane: the innermost loop around it when that loop's
    variable is the lane (None otherwise). Tensor cores inside a fallback are not looked at."""
    out = {}
    for x in ir.walk_scoped((stmt,), lambda x: not isinstance(x.stmt, ir.TensorCore)):
        if isinstance(x.stmt, ir.TensorCore):
            around = x.loops[-1] if x.loops else None
            out[id(x.stmt)] = around if around is not None and around.var == x.stmt.lane else None
    return out


def _coefficients(e, loops: set) -> Optional[dict]:
    """The coefficients of the nest's loops in `e` when `e` is affine in them with integer
    coefficients (everything free of them counts as a constant); None otherwise."""
    if not (ir.free_vars(e) & loops):
        return {}
    match e:
        case ir.Var(name=n):
            return {n: 1}
        case ir.BinOp(op=("+" | "-") as op, a=a, b=b):
            x, y = _coefficients(a, loops), _coefficients(b, loops)
            if x is None or y is None:
                return None
            sign = 1 if op == "+" else -1
            return {v: x.get(v, 0) + sign * y.get(v, 0) for v in x.keys() | y.keys()}
        case ir.BinOp(op="*", a=ir.Int(value=c), b=x) | ir.BinOp(op="*", a=x, b=ir.Int(value=c)):
            inner = _coefficients(x, loops)
            return None if inner is None else {v: c * w for v, w in inner.items()}
        case ir.Call(fn="neg", args=(x,)):
            inner = _coefficients(x, loops)
            return None if inner is None else {v: -w for v, w in inner.items()}
    return None


def _tile_axes(load: ir.Load, row: str, col: str, loops: set) -> bool:
    """The load's last two components are row + c and col + c', the others free of the loops."""
    idx = load.index
    if len(idx) < 2 or any(ir.free_vars(e) & loops for e in idx[:-2]):
        return False
    want = ({row: 1}, {col: 1})
    for e, w in zip(idx[-2:], want):
        got = _coefficients(e, loops)
        if got is None or {v: c for v, c in got.items() if c} != w:
            return False
    return True


def _nest(fallback: tuple):
    """(names, shape, assign) of a perfect 3-deep nest of constant 0-based loops, else None."""
    loops, body = [], fallback
    for _ in range(3):
        if len(body) != 1 or not isinstance(body[0], ir.For):
            return None
        lp = body[0]
        if ir.is_hardware(lp.axis) or lp.lo != ir.Int(0) or not isinstance(lp.hi, ir.Int):
            return None
        loops.append(lp)
        body = lp.body
    if len(body) != 1 or not isinstance(body[0], ir.Assign):
        return None
    return tuple(lp.var for lp in loops), tuple(lp.hi.value for lp in loops), body[0]


def match(program: ir.Program, tc: ir.TensorCore, lane_loop: Optional[ir.For]) -> Optional[MmaTile]:
    """The WMMA rendering of `tc` when the rule of the module docstring allows it, else None."""
    if lane_loop is None or lane_loop.axis != "thread.x" or lane_loop.lo != ir.Int(0) \
            or lane_loop.hi != ir.Int(32):
        return None
    nest = _nest(tc.fallback)
    if nest is None:
        return None
    names, shape, s = nest
    if any(n <= 0 or n % FRAG for n in shape):
        return None
    acc = ir.accumulation(s)
    if acc is None or acc[0] != "+":
        return None
    term = acc[1]
    if not (isinstance(term, ir.BinOp) and term.op == "*" and isinstance(term.a, ir.Load)
            and isinstance(term.b, ir.Load)):
        return None
    i, j, k = names
    loops = set(names)
    d = ir.Load(s.tensor, s.index)
    if not _tile_axes(d, i, j, loops):
        return None
    pair = next(((x, y) for x, y in ((term.a, term.b), (term.b, term.a))
                 if _tile_axes(x, i, k, loops) and _tile_axes(y, k, j, loops)), None)
    if pair is None:
        return None
    a, b = pair
    ta, tb, td = (program.tensor(x.tensor) for x in (a, b, d))
    if td.name in (ta.name, tb.name):
        return None
    if ta.prec != tb.prec or ta.prec not in PRECISIONS or td.prec != "f32":
        return None
    if "local" in (ta.memory, tb.memory, td.memory):
        return None
    return MmaTile(d, a, b, names, shape, ta.prec)
