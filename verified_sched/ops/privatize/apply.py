"""privatize T over L -> ACC, the rewrite: contract the read-modify-write of T across L's
subtree into a local accumulator tile ("accumulator privatization").

`... for L { ... T[I] = T[I] + e ... } ...` becomes
    ACC[tile(I)] = T[I]        (init-load nest, right before L)
    for L { ... ACC[tile(I)] = ACC[tile(I)] + e ... }
    T[I] = ACC[tile(I)]        (store-back nest, right after L)
Every access of T under L (reads and writes) must use one index vector I that does not mention
L; L is serial or unrolled and holds no parallel loop. Per axis of T, the terms of I over
loops inside L (positive integer coefficients, loops from 0 to a size-only bound) form the
tile index; the rest is the outer part. The tile has one axis per axis of T with inner terms,
of extent sum c*(hi - 1) + 1 (no inner term at all: a scalar accumulator of shape [1]). ACC is
local, at T's precision (bitwise the same arithmetic). The transfer nests iterate the tile
loops under fresh names `<v>_ld` / `<v>_st`.

Guards. A condition (conjunct) of the guard chain of the accesses (inside L) that reads no
memory and mentions only parameters, loops enclosing L and tile loops is evaluable at the
transfers: when every access sits under it, it also gates the init-load and store-back. This
is the seed's iteration-invariant class (only enclosing symbols, e.g. `w == 0`) and its pad
mask class (T's own index against its dimension, the edge guard the transfers must carry); a
varying condition without hardware symbols that mentions L or other loops (a reduction mask)
stays on the update alone. Any other condition also stays on the update alone; it is NOT
rejected: the obligations decide. A thread whose guard skips every update of a cell stores
back the copy it loaded; that is harmless unless another, unordered instance updates the cell
(`privatize_condition`, with the two threads and the cell) or accesses it (`race`).

Statements: the users under L keep their sid and provenance (only the tensor and index of
their T accesses change); the transfers get fresh sids `<ACC>.load` / `<ACC>.store` with the
identity provenance of their loops (so later ops map them like any statement).

Its obligations, and the generic ones it keeps (GENERIC), are in proofs.py; `undo` there
inverts this rewrite.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from ...core import ir
from ...core.errors import Loc
from ...core.ir import Assign, BinOp, For, If, Int, Load, TensorCore, Var, Zero
from ...core.op_syntax import OpRecord, Outputs, Syntax, Word, loc_field, loop_field, tensor_field
from ...analysis.simplify import linear_form, render_linear, norm_index, simplify_stmts
from .. import common
from ..common import error


@dataclass(frozen=True)
class Privatize(OpRecord):
    SYNTAX = Syntax("privatize", (tensor_field(), Word("over", "in privatize"), loop_field("over"),
                                  Outputs(("acc",), "accumulator name", 1)))
    tensor: str
    over: str
    acc: str
    loc: Optional[Loc] = loc_field()


RECORD = Privatize  # the op record this module applies (ops/registry.py)


@dataclass(frozen=True)
class Plan:
    site: common.Site  # the loop L
    index: tuple  # the one index vector of T under L
    tile_vars: tuple  # loops inside L used by the index (outermost first)
    bounds: dict  # tile var -> hi
    tile_index: tuple
    tile_dims: tuple
    guards: tuple  # conditions gating the transfers
    users: tuple  # sids of the statements accessing T under L


def load_sid(acc: str) -> str:
    return f"{acc}.load"


def store_sid(acc: str) -> str:
    return f"{acc}.store"


def _t_accesses(stmt, tensor: str) -> list:
    """(kind, index) of every access of `tensor` in one Assign: its target and its loads."""
    out = []
    if stmt.tensor == tensor:
        out.append(("write", stmt.index))
    for n in ir.walk((stmt.value,) + tuple(stmt.index)):
        if isinstance(n, Load) and n.tensor == tensor:
            out.append(("read", n.index))
    return out


def analyze(program: ir.Program, kernel: ir.Kernel, op: Privatize) -> Plan:
    tensors = {t.name for t in program.tensors}
    if op.tensor not in tensors:
        raise error(op, f"tensor '{op.tensor}': no tensor of that name")
    if program.tensor(op.tensor).memory == "local":
        raise error(op, f"tensor '{op.tensor}': already local")
    if op.acc in tensors:
        raise error(op, f"accumulator '{op.acc}': a tensor of that name exists")
    common.check_fresh(program, kernel, (op.acc,), op, "accumulator")
    site = common.find_loop(kernel, op.over, op, "over")
    loop = site.stmt
    if loop.axis not in ("serial", "unrolled"):
        raise error(op, f"over '{op.over}': a {loop.axis} loop; privatize needs a serial loop")
    inner = {}
    index, users = None, []
    for s in common.sites(loop.body):
        match s.stmt:
            case For(var=v, lo=lo, hi=hi, axis=axis):
                if ir.is_parallel(axis):
                    raise error(op, f"over '{op.over}': holds the {axis} loop '{v}'; the accumulator "
                                    f"would be shared by its iterations")
                if any(isinstance(n, Load) and n.tensor == op.tensor for n in ir.walk((lo, hi))):
                    raise error(op, f"loop '{v}' under '{op.over}' reads {op.tensor} in its bounds")
                inner.setdefault(v, []).append(s.stmt)
            case If(cond=c) if any(isinstance(n, Load) and n.tensor == op.tensor for n in ir.walk(c)):
                raise error(op, f"a condition under '{op.over}' reads {op.tensor}")
            case Zero(tensor=t) if t == op.tensor:
                raise error(op, f"'zero {t}' under '{op.over}': every access of {t} there must use one index")
            case TensorCore() if any(isinstance(n, (Load, Assign)) and n.tensor == op.tensor
                                     for n in ir.walk(s.stmt)):
                raise error(op, f"{op.tensor} is accessed inside a tensor-core block under '{op.over}'")
            case Assign():
                acc = _t_accesses(s.stmt, op.tensor)
                for _, idx in acc:
                    idx = tuple(norm_index(e) for e in idx)
                    if index is None:
                        index = idx
                    elif idx != index:
                        raise error(op, f"{op.tensor} is accessed under '{op.over}' with two index vectors "
                                        f"[{_texts(index)}] and [{_texts(idx)}]")
                if acc:
                    users.append(s)
    if index is None:
        raise error(op, f"{op.tensor} is not accessed under loop '{op.over}'")
    if loop.var in ir.free_vars(index):
        raise error(op, f"the index [{_texts(index)}] of {op.tensor} mentions '{op.over}' itself")
    if any(isinstance(n, Load) for n in ir.walk(index)):
        raise error(op, f"the index [{_texts(index)}] of {op.tensor} is dynamic")
    tile_vars, tile_index, dims = [], [], []
    for e in index:
        lin = linear_form(e, dyn=False)
        if lin is None:
            raise error(op, f"the index term {_text(e)} of {op.tensor} is not affine")
        terms, _ = lin
        inner_terms = {}
        for atom, c in terms.items():
            names = ir.free_vars(atom) & set(inner)
            if not names:
                continue
            if not isinstance(atom, Var) or c <= 0:
                raise error(op, f"the index term {_text(e)} of {op.tensor}: a loop inside '{op.over}' must "
                                f"appear with a positive integer coefficient")
            inner_terms[atom] = c
        extent = Int(1)
        for v, c in inner_terms.items():
            loops = inner[v.name]
            lo, hi = loops[0].lo, loops[0].hi
            if any((lp.lo, lp.hi) != (lo, hi) for lp in loops):
                raise error(op, f"the loops named '{v.name}' under '{op.over}' differ in their bounds")
            if norm_index(lo) != Int(0):
                raise error(op, f"tile loop '{v.name}' does not start at 0")
            if ir.free_vars(hi) - set(program.params):
                raise error(op, f"tile loop '{v.name}': its bound {_text(hi)} depends on other loops")
            extent = BinOp("+", extent, BinOp("*", Int(c), BinOp("-", hi, Int(1))))
            if v.name not in tile_vars:
                tile_vars.append(v.name)
        tile_index.append(norm_index(render_linear(inner_terms, 0)))
        dims.append(norm_index(extent))
    keep = [d for d, e in enumerate(tile_index) if e != Int(0)]  # axes with inner terms
    if keep:
        tile_index, dims = [tile_index[d] for d in keep], [dims[d] for d in keep]
    else:
        tile_index, dims = [Int(0)], [Int(1)]
    order = [v for v in inner if v in tile_vars]
    outer = {lp.var for lp in site.loops} | set(program.params)
    evaluable = outer | set(order)
    common_guards = None
    for u in users:
        gs = [g for c in u.guards for g in _conjuncts(c) if not ir.reads(g) and ir.free_vars(g) <= evaluable]
        common_guards = gs if common_guards is None else [g for g in common_guards if g in gs]
    return Plan(site, index, tuple(order), {v: inner[v][0].hi for v in order}, tuple(tile_index),
                tuple(dims), tuple(common_guards or ()), tuple(u.stmt.sid for u in users))


def _conjuncts(c) -> list:
    """`a and b` -> [a, b] (an evaluable conjunct gates the transfers even beside a data test)."""
    if isinstance(c, ir.And):
        return _conjuncts(c.a) + _conjuncts(c.b)
    return [c]


def _texts(idx) -> str:
    return ", ".join(_text(e) for e in idx)


def _text(e) -> str:
    from ...core.printer import expr_text
    return expr_text(e)


def _transfer(plan: Plan, op, used: set, suffix: str, store: bool, outer_loops) -> For | tuple:
    ren = {v: common.fresh_name(used, f"{v}_{suffix}") for v in plan.tile_vars}
    sub = {v: Var(n) for v, n in ren.items()}
    t_idx = tuple(ir.substitute(e, sub) for e in plan.index)
    a_idx = tuple(ir.substitute(e, sub) for e in plan.tile_index)
    loops = [lp.var for lp in outer_loops] + [ren[v] for v in plan.tile_vars]
    prov = tuple((v, Var(v)) for v in loops)
    if store:
        body = Assign(op.tensor, t_idx, Load(op.acc, a_idx), store_sid(op.acc), prov, loc=op.loc)
    else:
        body = Assign(op.acc, a_idx, Load(op.tensor, t_idx), load_sid(op.acc), prov, loc=op.loc)
    stmt = body
    for g in reversed(plan.guards):
        stmt = If(ir.substitute(g, sub), (stmt,), loc=op.loc)
    for v in reversed(plan.tile_vars):
        stmt = For(ren[v], Int(0), plan.bounds[v], "serial", (stmt,), loc=op.loc)
    return stmt


def redirect(stmts: tuple, tensor: str, acc: str, index: tuple, tile: tuple) -> tuple:
    """Every access of tensor[index] below `stmts` becomes acc[tile] (sid, provenance kept)."""
    def fn(n):
        if isinstance(n, Load) and n.tensor == tensor and tuple(norm_index(e) for e in n.index) == index:
            return Load(acc, tile, loc=n.loc)
        if isinstance(n, Assign) and n.tensor == tensor and tuple(norm_index(e) for e in n.index) == index:
            return dataclasses.replace(n, tensor=acc, index=tile)
        return None
    return tuple(ir.rewrite(s, fn) for s in stmts)


def apply(program: ir.Program, kernel_name: str, op: Privatize) -> ir.Program:
    kernel = common.get_kernel(program, kernel_name, op)
    plan = analyze(program, kernel, op)
    loop = plan.site.stmt
    used = common.used_names(program, kernel) | {op.acc}
    ctx = common.context_at(program, plan.site)
    init = _transfer(plan, op, used, "ld", False, plan.site.loops)
    store = _transfer(plan, op, used, "st", True, plan.site.loops)
    init = simplify_stmts(program, (init,), ctx)
    store = simplify_stmts(program, (store,), ctx)
    body = redirect(loop.body, op.tensor, op.acc, plan.index, plan.tile_index)
    new_loop = dataclasses.replace(loop, body=body)
    t = program.tensor(op.tensor)
    acc = ir.Tensor(op.acc, plan.tile_dims, t.prec, "local", loc=op.loc)
    kernel2 = common.replace_at(kernel, plan.site.path, init + (new_loop,) + store)
    return program.with_tensor(acc).with_kernel(kernel2)
