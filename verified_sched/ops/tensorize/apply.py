"""tensorize i, j, k [simd=W]: a tensor-core block over a lane loop.

Recognized: the perfect serial nest `for i in 0 .. M { for j in 0 .. N { for k in 0 .. K {
d[..., I0 + i, J0 + j] += a[..., A0 + i, A1 + k] * b[..., B0 + k, B1 + j] } } }` (plain `+=`
or `fma(a, b, d)`; M, N, K constants; each operand's tile on its last two axes with unit
coefficients, the bases and the leading components free of i, j, k). A transposed layout
(a[.., k, i], b[.., j, k], d[.., j, i]) is a precondition failure (v1, as in the seed).

Result: `for lane in 0 .. W : thread.x { tensor_core lane (M, N, K) { <the original nest> } }`
(thread.y/z when an enclosing loop already has thread.x; none free is a precondition failure;
the lane name is `lane`, made fresh). A TensorCore means exactly its fallback run by lane 0:
the interpreter, the C and CUDA emitters (codegen/c.py, inherited by codegen/gpu_lowering.py
and so by the emulator) render `if (lane == 0) { fallback }`, and the polyhedral model walks the
fallback under the guard `lane == 0`, so the driver's generic coverage, dependence and
in_bounds see the fallback statements with their provenance. No backend emits an MMA
intrinsic yet (documented limitation: the f32 corpus case could not use one anyway); `tile()`
is what an emitter would use to get the operands.

Obligations (besides the generic ones): `equivalence` - the tensor-core contraction built from
the block's shape and the operands' bases adds the same terms, with multiplicity, as the
fallback (polyhedral/contraction.py over two small kernels); `race` - no two lanes of the
lane loop write a cell another lane accesses (isl, direct); `profile` - under `reproducible`,
a block the CUDA backend would render as WMMA (unspecified summation order) is refused
(ops/tensorize_profile.py).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import ir
from ..ir import Assign, BinOp, For, If, Int, Load, TensorCore, Var
from ..schedule import Tensorize
from ..simplify import fold_index, norm_index, simplify_kernel
from . import common
from .common import error

RECORD = Tensorize  # the op record this module applies (ops/registry.py)
OWN_REASSOCIATES = True  # its own `profile` obligation flags WMMA (verified_sched/reassociation.py)

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
    t = tile(program, site.stmt, (op.i, op.j, op.k), op)
    taken = {lp.axis for lp in site.loops}
    free = [a for a in THREADS if a not in taken]
    if not free:
        raise error(op, "no free thread axis for the lane loop (thread.x, .y and .z are all used)")
    lane = _fresh(common.used_names(program, kernel), "lane")
    block = For(lane, Int(0), Int(op.simd), free[0], (TensorCore(lane, t.shape, (site.stmt,), loc=op.loc),),
                loc=op.loc)
    kernel2 = common.replace_at(kernel, site.path, (block,))
    return program.with_kernel(simplify_kernel(program, kernel2))


def _fresh(used: set, base: str) -> str:
    name, n = base, 1
    while name in used:
        name, n = f"{base}{n}", n + 1
    return name


def find_block(kernel: ir.Kernel, i: str):
    """The site of the TensorCore whose fallback is the nest of loop `i`."""
    for s in common.sites(kernel.body):
        if isinstance(s.stmt, TensorCore) and any(isinstance(f, For) and f.var == i for f in s.stmt.fallback):
            return s
    return None


def wrap_lanes(site, inner: tuple, lane: str) -> tuple:
    body = inner
    if site.guards:
        cond = site.guards[0]
        for g in site.guards[1:]:
            cond = ir.And(cond, g)
        body = (If(cond, body),)
    for lp in reversed(site.loops):
        if lp.var != lane:
            body = (dataclasses.replace(lp, body=body),)
    return body


def intrinsic_of(t: Tile, shape: tuple, used: set) -> tuple:
    """The contraction the tensor-core block performs, from its shape and the tile bases."""
    m, n, k = (Var(_fresh(used, f"tc_{c}")) for c in "mnk")

    def at(load, r, c):
        base = t.base(load)
        return Load(load.tensor, base[:-2] + (BinOp("+", base[-2], r), BinOp("+", base[-1], c)))
    d = at(t.d, m, n)
    term = BinOp("*", at(t.a, m, k), at(t.b, k, n))
    s = Assign(d.tensor, d.index, BinOp("+", d, term), sid="TC", provenance=())
    body = (s,)
    for v, e in reversed(list(zip((m, n, k), shape))):
        body = (For(v.name, Int(0), Int(e), "serial", body),)
    return body


def obligations(ctx) -> list:
    from . import tensorize_checks as checks
    from .tensorize_profile import profile
    return [common.goal(fn, ctx, kind) for fn, kind in ((checks.equivalence, "equivalence"),
                                                        (checks.race, "race"), (profile, "profile"))]
