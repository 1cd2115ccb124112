"""The staged tile's layout and the helpers `apply` and `hoisted` share: the plan record, the
tile cell of a loop point (swizzled, buffer-prefixed), the swizzle rendered with floor/mod,
load statement ids, fresh names, read redirection."""
from __future__ import annotations

import dataclasses

from ...core import ir
from ...core.ir import Assign, Barrier, BinOp, Float, FloorDiv, Int, Load, Mod
from ...analysis.simplify import linear_form, norm_index, simplify_kernel
from ..common import error

BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i32": 4}


def load_sid(tile: str) -> str:
    return f"L_{tile}"


def is_load_stmt(s) -> bool:
    """A statement (tree) made only of stage load nests."""
    leaves = [n for n in ir.walk(s) if isinstance(n, Assign)]
    return bool(leaves) and all(a.sid.startswith("L_") for a in leaves) and not any(
        isinstance(n, Barrier) for n in ir.walk(s))


def const_value(e):
    lin = linear_form(e, dyn=False)
    return lin[1] if lin is not None and not lin[0] else None


@dataclasses.dataclass(frozen=True)
class Plan:
    """Everything apply decided (also used by the obligations)."""

    index: tuple  # the one source index vector of the redirected reads
    tile_terms: tuple  # per axis: {loop var: coef}
    outer: tuple  # per axis: outer expression (index minus tile terms)
    dims: tuple  # tile dims (ints)
    loops: dict  # tile loop var -> For



def zero_value(prec):
    return Int(0) if prec == "i32" else Float(0.0)


def sum_terms(terms):
    out = None
    for t in terms:
        out = t if out is None else BinOp("+", out, t)
    return out if out is not None else Int(0)


def swizzle_col(col, row, minor: int, unit: int):
    """col XOR (row & (U-1)) on units of `unit` elements (U = minor // unit), bit by bit:
    col + sum_b unit*2^b * (((col//(unit*2^b)) + (row//2^b)) % 2 - (col//(unit*2^b)) % 2)."""
    units = minor // unit
    mask = units - 1
    terms = [col]
    b = 0
    while (1 << b) <= mask:
        if mask >> b & 1:
            step = unit << b
            cb = col if step == 1 else FloorDiv(col, step)
            rb = row if b == 0 else FloorDiv(row, 1 << b)
            flip = BinOp("-", Mod(BinOp("+", cb, rb), 2), Mod(cb, 2))
            terms.append(BinOp("*", Int(step), flip) if step != 1 else flip)
        b += 1
    return sum_terms(terms)


def swizzle_unit(op, prec, minor: int):
    if op.swizzle == "elem":
        return 1
    size = BYTES[prec]
    if 16 % size or (minor * size) % 16:
        raise error(op, f"swizzle=b128: the tile's minor dim ({minor} x {size} bytes) is not a whole "
                        f"number of 16-byte units")
    return 16 // size


def swizzle_index(op, idx, dims, prec, minor_storage) -> list:
    """The tile index with its minor component swizzled by the row (flattened leading dims)."""
    idx = list(idx)
    row = Int(0)
    stride = 1
    for d in range(len(idx) - 2, -1, -1):
        row = BinOp("+", row, BinOp("*", Int(stride), idx[d]))
        stride *= dims[d]
    idx[-1] = swizzle_col(idx[-1], row, minor_storage, swizzle_unit(op, prec, minor_storage))
    return idx


def reswizzle(program, kernel_name, op):
    """`program` (staged without a swizzle) with every access of the tile swizzled as `op`
    says, simplified like apply does: the swizzled kernel built from the plain one."""
    t = program.tensor(op.tile)
    lead = 1 if op.pipeline == 2 else 0
    dims = [const_value(d) for d in t.dims[lead:]]
    minor = dims[-1] + t.pad[-1]

    def fix(index):
        return index[:lead] + tuple(norm_index(e) for e in swizzle_index(op, index[lead:], dims, t.prec, minor))

    def fn(n):
        if isinstance(n, Load) and n.tensor == op.tile:
            return dataclasses.replace(n, index=fix(n.index))
        if isinstance(n, Assign) and n.tensor == op.tile:
            return dataclasses.replace(n, index=fix(n.index))
        return None
    k = program.kernel(kernel_name)
    k = dataclasses.replace(k, body=tuple(ir.rewrite(s, fn) for s in k.body))
    return program.with_kernel(simplify_kernel(program, k))


def tile_index(op, plan, env, prec, minor_storage, buffer=None):
    """The tile cell for loop values `env` (var -> Expr): swizzled, buffer-prefixed."""
    idx = []
    for tt in plan.tile_terms:
        idx.append(sum_terms(BinOp("*", Int(c), BinOp("-", env[v], Int(const_value(plan.loops[v].lo))))
                        for v, c in sorted(tt.items())))
    if op.swizzle is not None:
        idx = swizzle_index(op, idx, plan.dims, prec, minor_storage)
    idx = [norm_index(e) for e in idx]
    if buffer is not None:
        idx = [buffer] + idx
    return tuple(idx)


def redirect_reads(stmts, op, plan, new_index):
    """Every read of the source inside `stmts` becomes a read of the tile."""
    def fn(n):
        if isinstance(n, Load) and n.tensor == op.source:
            return Load(op.tile, new_index, loc=n.loc)
        return None
    return tuple(ir.rewrite(s, fn) for s in stmts)


def fresh_name(names: set, base: str) -> str:
    n, k = base, 0
    while n in names:
        k += 1
        n = f"{base}{k}"
    names.add(n)
    return n
