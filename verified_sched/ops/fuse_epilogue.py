"""fuse_epilogue T [shared]: fold the elementwise tail that re-reads T into T's last write site
("epilogue fusion").

The tail is the first real statement (barriers skipped) after the last top-level statement
writing T: a perfect serial nest `for v1 in 0 .. D1 { ... for vr in 0 .. Dr { Y[v1, .., vr] =
f(...) } }` over exactly T's dims, assigning a tensor Y other than T at the identity index,
every read of T at that same tuple (elementwise), T's only use after its last write (no later
statement mentions T). Anything else is a precondition failure.

Sites. Let W be the last assignment writing T in the writing statement, I its index, and l_m
the innermost loop around W whose iterator occurs in I (the output loops end there):
- plain accumulation nest: W is the accumulation inside the serial reduction loop(s) nested in
  l_m; the tail slides into l_m's body right after the reduction loop;
- privatize store-back: W is `T[I] = ACC[..]` in the store-back nest; the tail goes right after
  W, per element, inside the store-back's edge guard.
In general the tail goes right after the child of l_m's body that holds W, descending into
`if`s whose condition reads no memory and mentions only l_1..l_m (so the edge guard of a
store-back is shared). The tail instance is `Y[I] = f[v := I]`, guarded by `lo_d <= I_d < hi_d`
for its own loop bounds (folded by the simplifier where the site proves it), so each cell's
tail runs exactly where the site visits it. The store-back of T is kept.
- whole-K tensor-core block: W lies in the fallback of a tensor-core block (tensorize) whose
  enclosing loops all index T (or are its lane loop), so the block completes its tile; the
  tail becomes a sibling nest right after the block, `if lane == 0 { for i_ep, j_ep over the
  block's tile loops { guard; Y[I] = f } }` (the block means "its fallback run by lane 0", so
  the same lane then reads the finished tile). A block inside a reduction loop (split K) is no
  site: precondition failure.
The fragment store-back site of the seed (tensorize's own accumulator contraction) does not
exist in this IR: tensorize synthesizes no store-back, and a privatize store-back before a
tensorize is the privatize site above. `shared` (GPU only) requires the tensor-core site: the
target is already global (settled on-device), so the placement changes nothing and the fusion
is the one above; on any other site `shared` is a precondition failure saying so.

Obligations: the tail keeps its sid, and its provenance is the old one with v := I, so the
generic obligations apply unchanged (GENERIC is the full set): coverage (each tail instance
runs exactly once, computing its original expression), dependence (the moved tail still runs
after every write of the cells it reads: the final value of T — a neighbour read c[i, j+1] is
refuted here if the shape check is relaxed) and in_bounds. The op adds its own `dependence`
obligation restricted to that question (every tail read of T sees the final value), whose
message names the update the tail would overtake.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from ..core import ir
from ..core.counterexample import Cell, Counterexample, Instance
from ..core.errors import Loc
from ..core.ir import And, Assign, Barrier, Cmp, For, If, Load, TensorCore, Var, Zero
from ..core.op_syntax import OPTIONS, OpRecord, Option, Syntax, loc_field, tensor_field
from ..analysis.simplify import Context, norm_index, simplify_kernel
from . import common, kernel_parts
from .common import error
from .spec import ALL_GENERIC, OpSpec


@dataclass(frozen=True)
class FuseEpilogue(OpRecord):
    SYNTAX = Syntax("fuse_epilogue", (tensor_field(), OPTIONS), (Option("shared", "flag"),))
    tensor: str
    shared: bool = False
    loc: Optional[Loc] = loc_field()


RECORD = FuseEpilogue  # the op record this module applies (ops/registry.py)


def _writes(stmt, tensor: str) -> bool:
    return any(n.tensor == tensor for n in ir.nodes_of(stmt, (Assign, Zero)))


def _mentions(stmt, tensor: str) -> bool:
    return any(n.tensor == tensor for n in ir.nodes_of(stmt, (Assign, Zero, Load)))


def _text(e) -> str:
    from ..core.printer import expr_text
    return expr_text(e)


def find_tail(program, kernel, op) -> tuple:
    """(index of the writing statement, index of the tail) in the kernel's top-level body."""
    body = kernel.body
    writers = [k for k, s in enumerate(body) if _writes(s, op.tensor)]
    if not writers:
        raise error(op, f"tensor '{op.tensor}' is never written in kernel '{kernel.name}'")
    w = writers[-1]
    t = w + 1
    while t < len(body) and isinstance(body[t], Barrier):
        t += 1
    if t >= len(body):
        raise error(op, f"no statement follows the last write of '{op.tensor}': there is no tail to fuse")
    if not _mentions(body[t], op.tensor):
        raise error(op, f"the statement after the last write of '{op.tensor}' does not read it: the tail must "
                        f"be the first statement after that write")
    later = [k for k in range(t + 1, len(body)) if _mentions(body[k], op.tensor)]
    if later:
        raise error(op, f"a later statement also uses '{op.tensor}': the tail must be its only use after "
                        f"its last write")
    return w, t


def tail_nest(program, tail, op, strict: bool = True) -> tuple:
    """(loops, assignment) of a perfect serial nest over T's dims (strict) with an elementwise
    body; ScheduleError naming what is wrong otherwise."""
    t = program.tensor(op.tensor)
    loops, s = [], tail
    while isinstance(s, For):
        if s.axis != "serial":
            raise error(op, f"the tail loop '{s.var}' is {s.axis}; the tail must be a serial nest")
        loops.append(s)
        if len(s.body) != 1:
            raise error(op, f"the tail is not a perfect nest (loop '{s.var}' holds {len(s.body)} statements)")
        s = s.body[0]
    if not isinstance(s, Assign):
        raise error(op, "the tail is not a perfect loop nest around one assignment")
    if s.tensor == op.tensor:
        raise error(op, f"the tail writes '{op.tensor}' itself; it must assign a different tensor")
    ctx = Context.of_program(program)
    if strict:
        if len(loops) != t.rank:
            raise error(op, f"the tail has {len(loops)} loops; it must iterate exactly the {t.rank} dims of "
                            f"'{op.tensor}'")
        for lp, d in zip(loops, t.dims):
            same = ctx.decide(And(Cmp("==", lp.lo, ir.Int(0)), Cmp("==", lp.hi, d)))
            if same is not True:
                raise error(op, f"the tail loop '{lp.var}' runs over {_text(lp.lo)} .. {_text(lp.hi)}, not over "
                                f"the dim 0 .. {_text(d)} of '{op.tensor}'")
    ident = tuple(Var(lp.var) for lp in loops)
    if strict and tuple(norm_index(e) for e in s.index) != ident:
        raise error(op, f"the tail assigns {s.tensor}[{', '.join(_text(e) for e in s.index)}], not the identity "
                        f"index [{', '.join(lp.var for lp in loops)}]")
    for ld in ir.reads(s):
        if ld.tensor == op.tensor and strict and tuple(norm_index(e) for e in ld.index) != ident:
            raise error(op, f"the tail reads {op.tensor}[{', '.join(_text(e) for e in ld.index)}], not the "
                            f"element [{', '.join(lp.var for lp in loops)}] it writes: not elementwise")
    return loops, s


def _site(program, kernel, w: int, op):
    """(insertion path, l_m's prefix of loops, W) inside the writing statement."""
    found = [x for x in common.sites((kernel.body[w],)) if isinstance(x.stmt, Assign)
             and x.stmt.tensor == op.tensor]
    if not found:
        raise error(op, f"'{op.tensor}' is only zeroed before the tail: there is no accumulation to fuse into")
    site = found[-1]
    tcs = [x for x in common.sites((kernel.body[w],)) if isinstance(x.stmt, TensorCore)
           and x.path == site.path[:len(x.path)]]
    if tcs:
        return None, site, tcs[-1]
    if op.shared:
        raise error(op, "'shared' needs the tensor-core fragment site (a tensor-core block writing the target: "
                        "apply tensorize first; GPU only); this target is written by a plain loop nest")
    wstmt = site.stmt
    names = set().union(*[ir.free_vars(e) for e in wstmt.index]) if wstmt.index else set()
    m = max((d for d, lp in enumerate(site.loops) if lp.var in names), default=None)
    if m is None:
        raise error(op, f"the last write of '{op.tensor}' is under no loop over its index: no output loops")
    extra = [lp.var for lp in site.loops[:m + 1] if lp.var not in names]
    if extra:
        raise error(op, f"loop '{extra[0]}' encloses the write of '{op.tensor}' among its output loops without "
                        f"indexing it: the tail would run once per iteration of '{extra[0]}', before the "
                        f"reduction ends (fuse before moving the reduction loop outward)")
    out_vars = {lp.var for lp in site.loops[:m + 1]} | set(program.params)
    # path of l_m: its position among the site path's steps
    path = ((("body", w),) + site.path[1:]) if site.path else site.path
    # locate the step that is l_m: walk the path counting For nodes
    stmts, k, loops_seen = kernel.body, 0, -1
    node = None
    while k < len(path):
        field, i = path[k]
        node = stmts[i]
        if isinstance(node, For):
            loops_seen += 1
            if loops_seen == m:
                break
        k += 1
        if k < len(path):
            stmts = getattr(node, path[k][0])
    # descend from l_m's body through evaluable ifs
    k += 1
    while k < len(path) - 1:
        field, i = path[k]
        child = getattr(node, field)[i]
        if not isinstance(child, If) or ir.reads(child.cond) or not ir.free_vars(child.cond) <= out_vars:
            break
        node = child
        k += 1
    return path[:k + 1], site, None


def _tc_site(program, kernel, w, op, site, tc, loops, s):
    """The whole-K tensor-core site: W lies in the fallback of a tensor-core block that
    completes the accumulation of its tile. The tail becomes a sibling lane-0 nest right after
    the block, over the tile loops of the fallback (fresh names), at the target's index."""
    idx_vars = set().union(*[ir.free_vars(e) for e in site.stmt.index])
    outside = [lp for lp in site.loops if lp in tc.loops]
    inside = site.loops[len(outside):]
    for lp in outside:
        if lp.var not in idx_vars and lp.var != tc.stmt.lane:
            raise error(op, f"loop '{lp.var}' encloses the tensor-core block writing '{op.tensor}' without indexing "
                            f"it: the block does not complete the reduction (only a whole-K block is a site)")
    tile = [lp for lp in inside if lp.var in idx_vars]
    last = max((d for d, lp in enumerate(inside) if lp.var in idx_vars), default=-1)
    for lp in inside[:last + 1]:
        if lp.var not in idx_vars:
            raise error(op, f"loop '{lp.var}' of the tensor-core block encloses its output loops")
    used = common.used_names(program, kernel)
    ren = {}
    for lp in tile:
        name, n = f"{lp.var}_ep", 1
        while name in used:
            name, n = f"{lp.var}_ep{n}", n + 1
        used.add(name)
        ren[lp.var] = ir.Var(name)
    index = tuple(ir.substitute(e, ren) for e in site.stmt.index)
    stmt = moved_tail(s, loops, index, op.loc)
    for lp in reversed(tile):
        stmt = For(ren[lp.var].name, lp.lo, lp.hi, "serial", (stmt,), loc=op.loc)
    if any(lp.var == tc.stmt.lane for lp in outside):
        stmt = If(Cmp("==", ir.Var(tc.stmt.lane), ir.Int(0)), (stmt,), loc=op.loc)
    path = (("body", w),) + tc.path[1:]
    return path, stmt, index


def moved_tail(s, loops: list, index: tuple, loc):
    """The tail's statement `s` at the accumulator's cell `index`: its loops' iterators
    replaced by the cell's index expressions, guarded to run only where the cell lies inside
    the tail's bounds."""
    sub = {lp.var: e for lp, e in zip(loops, index)}
    moved = common.subst((s,), sub)[0]
    guard = None
    for lp, e in zip(loops, index):
        c = And(Cmp(">=", e, ir.substitute(lp.lo, sub)), Cmp("<", e, ir.substitute(lp.hi, sub)))
        guard = c if guard is None else And(guard, c)
    return If(guard, (moved,), loc=loc)


def fuse(program: ir.Program, kernel_name: str, op: FuseEpilogue, strict: bool = True) -> ir.Program:
    """The fused program (`strict=False` skips the tail's shape and elementwise checks; tests use
    it to show that the dependence obligation alone refutes a non-elementwise tail)."""
    kernel = common.get_kernel(program, kernel_name, op)
    try:
        program.tensor(op.tensor)
    except KeyError:
        raise error(op, f"tensor '{op.tensor}': no tensor of that name") from None
    w, t = find_tail(program, kernel, op)
    loops, s = tail_nest(program, kernel.body[t], op, strict)
    path, site, tc = _site(program, kernel, w, op)
    idx = site.stmt.index
    if len(idx) != len(loops):
        raise error(op, f"the tail iterates {len(loops)} dims, '{op.tensor}' has {len(idx)}")
    if tc is not None:
        path, new_stmt, _ = _tc_site(program, kernel, w, op, site, tc, loops, s)
    else:
        new_stmt = moved_tail(s, loops, idx, op.loc)
    kernel2 = common.replace_at(kernel, path, (_at(kernel, path), new_stmt))
    kernel2 = dataclasses.replace(kernel2, body=kernel2.body[:t] + kernel2.body[t + 1:])
    return program.with_kernel(simplify_kernel(program, kernel2))


def _at(kernel, path):
    stmts, node = kernel.body, None
    for k, (field, i) in enumerate(path):
        if k:
            stmts = getattr(node, field)
        node = stmts[i]
    return node


def apply(program: ir.Program, kernel_name: str, op: FuseEpilogue) -> ir.Program:
    return fuse(program, kernel_name, op)


# ---------------------------------------------------------------- obligations


def final_value(ctx):
    """Formal statement: for all params, every instance x of the moved tail (after) reading a
    cell c of T, and every instance u (after) writing c: u runs before x. In the original the
    tail is a later top-level statement than every write of T (and nothing after it writes T),
    so this is exactly "the tail reads the final value of T". Decided by isl over the after
    model's writes and order; a sample point names the update the tail overtakes."""
    from verified_sched.core.obligations import Decided
    from polyhedral.describe import coords, instance, param_values
    from polyhedral.isltools import params_text, point_of
    op, model = ctx.op, ctx.model_after
    before_k = ctx.before.kernel(ctx.kernel)
    _, t = find_tail(ctx.before, before_k, op)
    _, s = tail_nest(ctx.before, before_k.body[t], op, strict=False)
    statement = f"forall params: every tail read of {op.tensor} runs after every write of that cell"
    tails = [st for st in model.stmts if st.sid == s.sid]
    reads = model.union_map([model.access_map(st, a, storage_view=True) for st in tails for a in st.accesses
                          if a.tensor == op.tensor and not a.write])
    writes = model.union_map([model.store_map(st) for st in model.stmts
                           if st.accesses[0].tensor == op.tensor and not st.accesses[0].noop])
    late = writes.apply_range(reads.reverse()).subtract(model.before)  # u -> x, u not before x
    sure, may = model.split_exact(late)
    pt = point_of(sure)
    if pt is None:
        f = (Decided("unknown", "a write of the cell may follow the tail through a data-dependent guard",
                     statement) if not may.is_empty() else
             Decided("proved", f"every tail instance runs after the last write of the {op.tensor} cells it reads",
                     statement))
    else:
        p, tup = coords(pt)
        params = param_values(model, p)
        iu = instance(model, tup[0][0], tup[0][1], params, "after")
        ix = instance(model, tup[1][0], tup[1][1], params, "after")
        from ..core.cex_text import fmt_instance
        f = Decided("refuted", f"the fused tail reads {op.tensor} before its final value: at {params_text(params)} "
                    f"{fmt_instance(ix)} does not run after {fmt_instance(iu)}", statement,
                    Counterexample(Instance(params), [iu, ix], {"before": "the first runs before the second",
                                                                "after": "the second runs first or they are unordered"},
                                   cells=(Cell.from_json(iu["writes"]),), extra={"kind": "RAW"}))
    return f


def obligations(ctx) -> list:
    """The final-value dependence of the moved tail (the generic ones are all kept)."""
    return [common.goal(final_value, ctx, "dependence")]


# ---------------------------------------------------------------- fuzz strategy (fuzz/schedules.py)

FUZZ_WEIGHT = 8  # applies to few kernels: drawn more often where it can


def possible(program: ir.Program, kernel_name: str) -> bool:
    kernel = program.kernel(kernel_name)
    return bool(kernel_parts.accumulated(kernel)) and sum(isinstance(s, For) for s in kernel.body) >= 2


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """The epilogue of an accumulated tensor fused (rarely with its option set), or None."""
    from hypothesis import strategies as st  # fuzzing only (an optional dependency)

    written = kernel_parts.accumulated(program.kernel(kernel_name))
    return FuseEpilogue(draw(st.sampled_from(written)), draw(st.integers(0, 4)) == 0) if written else None


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=ALL_GENERIC,
              own_reassociates=False, exact_rounding=False, structural=True, fuzz_weight=FUZZ_WEIGHT,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=None, by_name_weight=0,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
