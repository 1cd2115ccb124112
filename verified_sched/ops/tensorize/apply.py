"""tensorize, the rewrite: recognize the matmul micro-kernel (`tile`) and put it, as the
fallback of a tensor-core block, under a fresh lane loop (`apply`). The op's meaning, its
goals and their statements are described in verified_sched/ops/tensorize/__init__.py; this
module imports nothing of proofs.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ...core import ir
from ...core.errors import Loc
from ...core.ir import Assign, BinOp, For, Int, Load, TensorCore, Var
from ...core.op_syntax import OPTIONS, Comma, OpRecord, Option, Syntax, loc_field, loop_field
from ...analysis.simplify import fold_index, norm_index
from .. import common
from ..common import error


_THREE = "tensorize takes three loops: i, j, k"


@dataclass(frozen=True)
class Tensorize(OpRecord):
    SYNTAX = Syntax("tensorize", (loop_field("i"), Comma(_THREE), loop_field("j"), Comma(_THREE), loop_field("k"),
                                  OPTIONS),
                    (Option("simd", "posint", always=True),))
    i: str
    j: str
    k: str
    simd: int = 32
    loc: Optional[Loc] = loc_field()


RECORD = Tensorize  # the op record this module applies (ops/registry.py)
OWN_REASSOCIATES = True  # its own `profile` obligation flags WMMA (verified_sched/verify/reassociation.py)

THREADS = ("thread.x", "thread.y", "thread.z")


@dataclass(frozen=True)
class Tile:
    """The recognized micro-kernel: target and operand loads, loop names and extents."""

    d: Load
    a: Load
    b: Load
    names: tuple  # (i, j, k)
    shape: tuple  # (M, N, K)
    assign: Assign

    def base(self, load: Load) -> tuple:
        """The load's index with i, j, k set to 0 (the tile's origin)."""
        zero = {n: Int(0) for n in self.names}
        return tuple(norm_index(ir.substitute(e, zero)) for e in load.index)


def _unit(e, v: str, loops: set) -> bool:
    """`e` is v + (something free of the nest's loops)."""
    rest = norm_index(BinOp("-", e, Var(v)))
    return not (ir.free_vars(rest) & loops)


def _layout(load: Load, first: str, second: str, loops: set) -> bool:
    idx = load.index
    if len(idx) < 2 or any(ir.free_vars(e) & loops for e in idx[:-2]):
        return False
    return _unit(idx[-2], first, loops) and _unit(idx[-1], second, loops)


def _extent(program, loop: For, op) -> int:
    if loop.axis != "serial":
        raise error(op, f"loop '{loop.var}': must be serial (it is {loop.axis})")
    if fold_index(loop.lo, None) != Int(0):
        raise error(op, f"loop '{loop.var}': must start at 0")
    hi = fold_index(loop.hi, None)
    if not isinstance(hi, Int) or hi.value < 1:
        raise error(op, f"loop '{loop.var}': its extent must be a positive constant")
    return hi.value


def tile(program, nest: For, names: tuple, op) -> Tile:
    """Recognize the micro-kernel rooted at `nest` (ScheduleError otherwise)."""
    i, j, k = names
    loops = set(names)
    li = nest
    if len(li.body) != 1 or not (isinstance(li.body[0], For) and li.body[0].var == j):
        raise error(op, f"loops '{i}', '{j}', '{k}' are not a perfect nest: the body of '{i}' must be "
                        f"exactly loop '{j}'")
    lj = li.body[0]
    if len(lj.body) != 1 or not (isinstance(lj.body[0], For) and lj.body[0].var == k):
        raise error(op, f"loops '{i}', '{j}', '{k}' are not a perfect nest: the body of '{j}' must be "
                        f"exactly loop '{k}'")
    lk = lj.body[0]
    if len(lk.body) != 1 or not isinstance(lk.body[0], Assign):
        raise error(op, f"loop '{k}': its body must be a single accumulation d += a * b")
    shape = tuple(_extent(program, lp, op) for lp in (li, lj, lk))
    s = lk.body[0]
    acc = ir.accumulation(s)
    if acc is None or acc[0] != "+" or not (isinstance(acc[1], BinOp) and acc[1].op == "*"
                                            and isinstance(acc[1].a, Load) and isinstance(acc[1].b, Load)):
        raise error(op, "the body must be d[..] += a[..] * b[..] (or fma(a, b, d)) with plain loads")
    d = Load(s.tensor, s.index)
    x, y = acc[1].a, acc[1].b
    if d.tensor in (x.tensor, y.tensor):
        raise error(op, f"tensor '{d.tensor}': the target is also an operand")
    if not _layout(d, i, j, loops):
        if _layout(d, j, i, loops):
            raise error(op, f"tensor '{d.tensor}': transposed layout (its tile is [{j}, {i}]); not supported")
        raise error(op, f"tensor '{d.tensor}': its tile must span its last two axes as [{i}, {j}] with unit "
                        "coefficients")
    for a, b in ((x, y), (y, x)):
        if _layout(a, i, k, loops) and _layout(b, k, j, loops):
            return Tile(d, a, b, names, shape, s)
    for a in (x, y):
        if _layout(a, k, i, loops) or _layout(a, j, k, loops):
            raise error(op, f"tensor '{a.tensor}': transposed layout; not supported")
    raise error(op, f"operands '{x.tensor}' and '{y.tensor}': their tiles must be [{i}, {k}] and "
                    f"[{k}, {j}] on their last two axes with unit coefficients")


def apply(program: ir.Program, kernel_name: str, op: Tensorize) -> ir.Program:
    kernel = common.get_kernel(program, kernel_name, op)
    for n in (op.j, op.k):
        common.find_loop(kernel, n, op)
    site = common.find_loop(kernel, op.i, op)
    t = tile(program, site.stmt, tuple(common.base_name(n) for n in (op.i, op.j, op.k)), op)
    taken = {lp.axis for lp in site.loops}
    free = [a for a in THREADS if a not in taken]
    if not free:
        raise error(op, "no free thread axis for the lane loop (thread.x, .y and .z are all used)")
    lane = common.fresh_name(common.used_names(program, kernel), "lane")
    block = For(lane, Int(0), Int(op.simd), free[0], (TensorCore(lane, t.shape, (site.stmt,), loc=op.loc),),
                loc=op.loc)
    return common.rewrite_at(program, kernel, site.path, (block,))
