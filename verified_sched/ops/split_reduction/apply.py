"""split_reduction L of T blocks=B -> Lb, Li, P: the deterministic two-pass reduction.

Static form: the serial loop `for L in lo .. hi` whose subtree holds the single
accumulation `T[I] = T[I] op e` (op in + * max min, fma counting as +; I free of L and of every
loop inside L; nothing else in the enclosing top-level statement touches T) becomes

    for Lb in 0 .. B {                       # one partial row per block
      P[Lb, I] = init                        # each block initializes its own cell in-nest
      for Li in 0 .. ceil((hi - lo) / B) {
        if B*Li + Lb < hi - lo { body[L := lo + B*Li + Lb, T[I] -> P[Lb, I]] }
      }
    }

(init: 0 for +, 1 for *, and T[I] itself for max/min, which absorb it), and a combine
statement, inserted right after the enclosing top-level statement (a separate
launch), re-iterates the loops that enclose L (fresh names `<v>_c`) with the guards that
enclose it: `T[I] = T[I] op tree(P[0, I], ..., P[B-1, I])`, the tree a fixed balanced one
(unrolled: B is a constant).

Dynamic scatter form (an embedding backward): the single accumulation is an add
(`+` or fma) whose index reads memory, `T[ids[n], d] += e` (possibly under guards; I may use
loops inside L). Rows are data-dependent, so there is no in-nest initialization: the same
block/inner split, the accumulation redirected to `P[Lb, I]` (collisions inside a block stay
serial; distinct blocks own distinct slices P[Lb, ...]); `zero P` as its own top-level
statement right before the enclosing one; and the combine right after it over EVERY storage
cell of T (fresh loops `<T>_c0, ...`): `T[c] = T[c] + tree(P[0, c], ..., P[B-1, c])`. P has
dims [B, T's storage dims] (no padding).

Decisions (documented in the report and the README):
- Block b takes the iterations L = lo + b, lo + b + B, ... (a cyclic distribution), not the
  seed's contiguous chunks `ceil(N/B)*b + i`: the product of a size expression and an iterator
  is not affine, and every obligation here is decided by isl. Determinism, the fixed combine
  tree and the per-block partial row (so the block loop parallelizes) are the same.
- P is a GLOBAL tensor [B, T's dims] of T's precision: it must survive from the first launch to
  the combine's. It is scratch: the oracle (oracle/compare.py, scratch_arrays) allocates
  the scheduled program's extra global tensors for the candidate run only and never compares
  them (the unscheduled program has no such tensor); the verifier's equivalence obligation is
  about T, and the generic coverage (which would see P's new cells) is narrowed away.
- The dynamic form keeps every statement outside the enclosing one unchanged (only the new
  statement is simplified), so the obligations can compare the kernels around it structurally.
- Dynamic form: the combine adds the B partials to every cell, also to cells no term reached
  (there it adds zeros: the value is unchanged, except that a -0.0 becomes +0.0). Whether the
  data-dependent rows stay inside T is the generic `in_bounds` obligation, which isl cannot
  decide for a dynamic index (unknown, as for the unscheduled kernel).
- New statements: the initialization has sid `<S>_init`, the combine `<S>_combine` (S the
  accumulation's sid), each with the identity provenance over its loops at creation; the
  dynamic form's `zero P` is a plain whole-tensor zero (identified by its cells).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from ...core import ir
from ...core.errors import Loc
from ...core.ir import And, Assign, BinOp, Call, Cmp, Float, FloorDiv, For, If, Int, Load, Tensor, Var
from ...core.op_syntax import OPTIONS, OpRecord, Option, Outputs, Syntax, Word, loc_field, loop_field, tensor_field
from ...analysis.simplify import simplify_kernel
from .. import common
from ..common import error


@dataclass(frozen=True)
class SplitReduction(OpRecord):
    SYNTAX = Syntax("split_reduction", (loop_field(), Word("of", "in split_reduction"), tensor_field(), OPTIONS,
                                        Outputs(("outer", "inner", "partials"), "name", 3), OPTIONS),
                    (Option("blocks", "posint"),))
    loop: str
    tensor: str
    blocks: int
    outer: str
    inner: str
    partials: str
    loc: Optional[Loc] = loc_field()


RECORD = SplitReduction  # the op record this module applies (ops/registry.py)
OWN_REASSOCIATES = True  # its own `reassociation` obligation (verified_sched/verify/reassociation.py)

# the driver's generic obligations that still apply: the split is a loop split, the redirected
# accumulation keeps its provenance; coverage would see the new partial cells and the combine
# term (this op's `equivalence` replaces it) and reassociation is this op's own obligation
GENERIC = ("in_bounds", "dependence", "independence")

MAX_BLOCKS = 256  # the combine is unrolled over the blocks: bounds its size and proof time


def initial_value(op: str, prec: str, target: Load):
    """A partial cell's initial value: the identity of + and *; for max and min (which have no
    finite identity and the DSL no infinity literal) the target's current value, which they
    absorb (idempotent: max(t, max(t, a), max(t, b)) = max(t, a, b))."""
    i32 = prec == "i32"
    match op:
        case "+":
            return Int(0) if i32 else Float(0.0)
        case "*":
            return Int(1) if i32 else Float(1.0)
        case "max" | "min":
            return target
    raise ValueError(op)


def combine_op(op: str, a, b):
    return BinOp(op, a, b) if op in ("+", "*") else Call(op, (a, b))


def tree(op: str, leaves: list):
    """The fixed balanced tree over the leaves (left half, right half)."""
    if len(leaves) == 1:
        return leaves[0]
    mid = len(leaves) // 2
    return combine_op(op, tree(op, leaves[:mid]), tree(op, leaves[mid:]))


@dataclasses.dataclass(frozen=True)
class Found:
    """What the op recognized: the loop's site, the accumulation (op, e) and its Assign."""

    site: common.Site
    assign: Assign
    acc_op: str
    top: int
    dynamic: bool = False  # the index of T reads memory (the scatter form)


def _count(node, tensor: str) -> tuple:
    """(stores to, loads of, zeroes of) `tensor` below `node`."""
    nodes = list(ir.walk(node))
    return (sum(isinstance(n, Assign) and n.tensor == tensor for n in nodes),
            sum(isinstance(n, Load) and n.tensor == tensor for n in nodes),
            sum(isinstance(n, ir.Zero) and n.tensor == tensor for n in nodes))


def recognize(program: ir.Program, kernel: ir.Kernel, op: SplitReduction) -> Found:
    """The precondition checks shared by `apply` and the obligations (ScheduleError)."""
    try:
        program.tensor(op.tensor)
    except KeyError:
        raise error(op, f"tensor '{op.tensor}': no tensor of that name") from None
    site = common.find_loop(kernel, op.loop, op)
    loop = site.stmt
    if loop.axis != "serial":
        raise error(op, f"loop '{op.loop}': must be serial (it is {loop.axis})")
    assigns = [n for n in ir.walk(loop.body) if isinstance(n, Assign) and n.tensor == op.tensor]
    if len(assigns) != 1:
        raise error(op, f"tensor '{op.tensor}': loop '{op.loop}' must hold exactly one store to it "
                        f"(found {len(assigns)})")
    a = assigns[0]
    acc = ir.accumulation(a)
    if acc is None:
        raise error(op, f"tensor '{op.tensor}': the store to it is not an accumulation "
                        "T[I] = T[I] op e with op in + * max min")
    dynamic = any(ir.reads(e) for e in a.index)
    if dynamic and acc[0] != "+":
        raise error(op, f"tensor '{op.tensor}': the dynamic scatter form (an index that reads memory) "
                        f"needs an add accumulation (+ or fma); this one accumulates with {acc[0]}")
    top_stmt = kernel.body[site.path[0][1]]
    if _count(top_stmt, op.tensor) != (1, 1, 0):
        raise error(op, f"tensor '{op.tensor}': nothing else in the statement holding loop '{op.loop}' "
                        "may access it (its combined value exists only after the combine)")
    if dynamic:
        return Found(site, a, acc[0], site.path[0][1], True)
    inner = {loop.var} | {n.var for n in ir.walk(loop.body) if isinstance(n, For)}
    bad = ir.free_vars(a.index) & inner
    if bad:
        raise error(op, f"tensor '{op.tensor}': its index depends on {', '.join(sorted(bad))}, "
                        f"a loop at or inside '{op.loop}'")
    return Found(site, a, acc[0], site.path[0][1])


def _validate(program, kernel, op: SplitReduction) -> None:
    if op.blocks > MAX_BLOCKS:
        raise error(op, f"blocks {op.blocks}: at most {MAX_BLOCKS} (the combine step adds one term per "
                        "block, unrolled)")
    common.check_fresh(program, kernel, [op.outer, op.inner, op.partials], op, "name",
                       reusable=(common.base_name(op.loop),))


def apply(program: ir.Program, kernel_name: str, op: SplitReduction) -> ir.Program:
    kernel = common.get_kernel(program, kernel_name, op)
    _validate(program, kernel, op)
    f = recognize(program, kernel, op)
    if f.dynamic:
        return _apply_dynamic(program, kernel, op, f)
    loop, a, B = f.site.stmt, f.assign, op.blocks
    T = program.tensor(op.tensor)
    n, pos, new_l, count = _split_parts(program, loop, op)
    lb = Var(op.outer)
    pidx = (lb,) + tuple(a.index)
    target = Load(op.tensor, a.index)

    def redirect(node):
        if isinstance(node, Load) and node == target:
            return Load(op.partials, pidx, loc=node.loc)
        if isinstance(node, Assign) and node.tensor == op.tensor:
            return dataclasses.replace(node, tensor=op.partials, index=pidx)
        return None

    body = tuple(ir.rewrite(s, redirect) for s in common.subst(loop.body, {loop.var: new_l}))
    body = common.guard_leaves(body, Cmp("<", pos, n))
    enclosing = tuple((lp.var, Var(lp.var)) for lp in f.site.loops)
    init = Assign(op.partials, pidx, initial_value(f.acc_op, T.prec, target), sid=f"{a.sid}_init",
                  provenance=enclosing + ((op.outer, lb),), loc=a.loc)
    new_loop = For(op.outer, Int(0), Int(B), "serial",
                   (init, For(op.inner, Int(0), count, "serial", body, loc=loop.loc)), loc=loop.loc)
    kernel2 = common.replace_at(kernel, f.site.path, (new_loop,))
    # the combine: the enclosing loops and guards again, fresh names
    used = common.used_names(program, kernel2) | {op.partials}
    ren = {lp.var: common.fresh_name(used, f"{lp.var}_c") for lp in f.site.loops}
    rv = {k: Var(v) for k, v in ren.items()}
    cidx = tuple(ir.substitute(e, rv) for e in a.index)
    leaves = [Load(op.partials, (Int(b),) + cidx) for b in range(B)]
    value = combine_op(f.acc_op, Load(op.tensor, cidx), tree(f.acc_op, leaves))
    stmt = Assign(op.tensor, cidx, value, sid=f"{a.sid}_combine",
                  provenance=tuple((v, Var(v)) for v in ren.values()), loc=a.loc)
    guards = [ir.substitute(g, rv) for g in f.site.guards]
    comb = (If(_conj(guards), (stmt,), loc=a.loc),) if guards else (stmt,)
    for lp in reversed(f.site.loops):
        comb = (For(ren[lp.var], ir.substitute(lp.lo, rv), ir.substitute(lp.hi, rv), lp.axis, comb,
                    loc=lp.loc),)
    top = f.top
    kernel2 = dataclasses.replace(kernel2, body=kernel2.body[:top + 1] + comb + kernel2.body[top + 1:])
    program2 = program.with_tensor(Tensor(op.partials, (Int(B),) + tuple(T.dims), T.prec, "global",
                                          scratch=True, loc=op.loc))
    return program2.with_kernel(simplify_kernel(program2, kernel2))


def _split_parts(program, loop, op):
    """(n, position expr, new value of L, inner count) of the cyclic block/inner split."""
    B = op.blocks
    n = loop.hi if common.is_zero(program, loop.lo) else BinOp("-", loop.hi, loop.lo)
    pos = BinOp("+", BinOp("*", Int(B), Var(op.inner)), Var(op.outer))
    new_l = pos if common.is_zero(program, loop.lo) else BinOp("+", loop.lo, pos)
    return n, pos, new_l, FloorDiv(BinOp("+", n, Int(B - 1)), B)


def _apply_dynamic(program: ir.Program, kernel: ir.Kernel, op: SplitReduction, f: Found) -> ir.Program:
    """The scatter form: partials zeroed by their own statement, combine over all of T."""
    loop, a, B = f.site.stmt, f.assign, op.blocks
    T = program.tensor(op.tensor)
    n, pos, new_l, count = _split_parts(program, loop, op)
    pidx = (Var(op.outer),) + tuple(a.index)
    target = Load(op.tensor, a.index)

    def redirect(node):  # before substituting L: the index mentions L (ids[L])
        if isinstance(node, Load) and node == target:
            return Load(op.partials, pidx, loc=node.loc)
        if isinstance(node, Assign) and node.tensor == op.tensor:
            return dataclasses.replace(node, tensor=op.partials, index=pidx)
        return None

    body = common.subst(tuple(ir.rewrite(s, redirect) for s in loop.body), {loop.var: new_l})
    body = common.guard_leaves(body, Cmp("<", pos, n))
    new_loop = For(op.outer, Int(0), Int(B), "serial",
                   (For(op.inner, Int(0), count, "serial", body, loc=loop.loc),), loc=loop.loc)
    top_stmt = common.replace_at(kernel, f.site.path, (new_loop,)).body[f.top]
    program2 = program.with_tensor(Tensor(op.partials, (Int(B),) + tuple(T.storage_dims()), T.prec, "global",
                                          scratch=True, loc=op.loc))
    only = simplify_kernel(program2, dataclasses.replace(kernel, body=(top_stmt,))).body
    used = common.used_names(program, kernel) | {op.outer, op.inner, op.partials}
    cvars = [common.fresh_name(used, f"{op.tensor}_c{d}") for d in range(len(T.dims))]
    cidx = tuple(Var(v) for v in cvars)
    leaves = [Load(op.partials, (Int(b),) + cidx) for b in range(B)]
    comb = (Assign(op.tensor, cidx, BinOp("+", Load(op.tensor, cidx), tree("+", leaves)),
                   sid=f"{a.sid}_combine", provenance=tuple((v, Var(v)) for v in cvars), loc=a.loc),)
    for v, dim in reversed(list(zip(cvars, T.storage_dims()))):
        comb = (For(v, Int(0), dim, "serial", comb, loc=a.loc),)
    body = kernel.body[:f.top] + (ir.Zero(op.partials, loc=op.loc),) + only + comb + kernel.body[f.top + 1:]
    return program2.with_kernel(dataclasses.replace(kernel, body=body))


def _conj(conds):
    out = conds[0]
    for c in conds[1:]:
        out = And(out, c)
    return out

