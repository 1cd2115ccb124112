"""Guard-free full tiles before emission: index-set splitting of a loop around its remainder guards.

A split whose factor does not provably divide the extent leaves `if F*io + ii < N` on the leaf,
inside the vectorized and innermost loops. `full_tiles` (an IR -> IR rewrite) splits such a loop
`for x in lo .. hi` into consecutive pieces `[lo, s1)`, `[s1, s2)`, `[s2, hi)` (same body,
same iteration order, so the same execution) where in the middle piece every guard conjunct
that `x` owns holds for all inner iterations:

- the cut points are *derived* syntactically (for a conjunct `c*x + R + sum(cv*v) < 0` over
  inner loops v with bounds free of x: x < ceil(-(R + max inner)/c), or the mirror for
  c < 0), clamped, `s1 = min(max(q, lo), hi)`, `s2 = min(max(p, s1), hi)`;
- they are *proved* by isl, never assumed: `lo <= s1 <= s2 <= hi` in the loop's context (so
  the pieces cover `[lo, hi)` exactly once), and each piece's body is simplified in its own
  context by `verified_sched.analysis.simplify` (a guard or conjunct is dropped only where isl proves
  it true, a branch only where isl proves it false). The split is kept only when the middle
  piece lost a guard conjunct; otherwise, or when anything is not affine, or isl cannot
  decide, the loop is emitted as it was (the guarded form).

Hardware loops are never split; at most `MAX_SPLITS` loops are split per kernel (code size).

The C backend (codegen/c.py) imports nothing above core, so it does not split by itself: the
callers that emit C for users or for comparisons (`vsched emit`/`run`, the oracle, refutation
by running, the fuzzer, tune, the benchmarks) pass `split=full_tiles` to `emit_c`, `load_c`,
`emit_checked` or `load_checked`, which apply it to each kernel's body.
"""
from __future__ import annotations

import dataclasses

from verified_sched.core import ir
from verified_sched.core.ir import BinOp, Call, Cmp, FloorDiv, For, If, Int, Var
from .simplify import Context, fold_index, linear_form, render_linear, simplify_stmts

MAX_SPLITS = 12
STATS = {"split": 0, "kept": 0}  # loops split / candidates left guarded (tests count work)


def _conjuncts(c) -> list:
    if isinstance(c, ir.And):
        return _conjuncts(c.a) + _conjuncts(c.b)
    return [c]


def _guard_count(stmts) -> int:
    """How many guard conjuncts the statements evaluate (what full tiles remove)."""
    return sum(len(_conjuncts(n.cond)) for n in ir.walk(stmts) if isinstance(n, If))


def _lt_zero(c):
    """A linear form g (terms, const) with `c` equivalent to g < 0, or None."""
    if not isinstance(c, Cmp) or c.op in ("==", "!="):
        return None
    a, b = linear_form(c.a, dyn=False), linear_form(c.b, dyn=False)
    if a is None or b is None:
        return None
    if c.op in (">", ">="):
        a, b = b, a
    terms = dict(a[0])
    for t, k in b[0].items():
        terms[t] = terms.get(t, 0) - k
    const = a[1] - b[1] + (1 if c.op in ("<=", ">=") else 0)
    return {t: k for t, k in terms.items() if k}, const


def _inner_bounds(loop: For) -> dict:
    """var -> (lo, hi) of the loops inside `loop`, for vars bound once with bounds free of
    `loop.var` and of every inner loop's var."""
    loops = [n for n in ir.walk(loop.body) if isinstance(n, For)]
    names = [n.var for n in loops]
    bound = {loop.var, *names}
    out = {}
    for n in loops:
        free = ir.free_vars(n.lo) | ir.free_vars(n.hi)
        if names.count(n.var) == 1 and not free & bound:
            out[n.var] = (n.lo, n.hi)
    return out


def _cut(form: tuple, x: str, inner: dict):
    """('upper', p) meaning x < p, or ('lower', q) meaning x >= q, where the conjunct g < 0
    holds for every inner iteration; None when it is not of that shape."""
    terms, const = form
    if any(not isinstance(t, Var) for t in terms):
        return None
    c = terms.get(Var(x), 0)
    if c == 0:
        return None
    rest, most = {}, []
    for t, k in terms.items():
        if t.name == x:
            continue
        if t.name in inner:
            lo, hi = inner[t.name]
            most.append(BinOp("*", Int(k), BinOp("-", hi, Int(1)) if k > 0 else lo))
        else:
            rest[t] = k
    total = render_linear(rest, const)  # R; g = c*x + R + (inner part)
    for m in most:
        total = BinOp("+", total, m)
    if c > 0:  # c*x + T < 0  <=>  x < ceil(-T/c)  <=>  x < floor((c - 1 - T)/c)
        return "upper", FloorDiv(BinOp("-", Int(c - 1), total), c)
    d = -c  # T < d*x  <=>  x >= floor(T/d) + 1
    return "lower", FloorDiv(BinOp("+", total, Int(d)), d)


def _cuts(loop: For):
    """(lower or None, upper or None) cut expressions of the guards `loop.var` owns."""
    inner = _inner_bounds(loop)
    if any(isinstance(n, For) and n.var == loop.var for n in ir.walk(loop.body)):
        return None, None  # an inner loop rebinds the name
    uppers, lowers = [], []
    for n in ir.walk(loop.body):
        if not isinstance(n, If):
            continue
        for conj in _conjuncts(n.cond):
            if loop.var not in ir.free_vars(conj):
                continue
            if ir.free_vars(conj) & {m.var for m in ir.walk(loop.body) if isinstance(m, For)} - set(inner):
                continue
            form = _lt_zero(conj)
            cut = None if form is None else _cut(form, loop.var, inner)
            if cut is not None:
                (uppers if cut[0] == "upper" else lowers).append(cut[1])
    pick = lambda fn, xs: None if not xs else xs[0] if len(xs) == 1 else Call(fn, (xs[0], pick(fn, xs[1:])))
    return pick("max", lowers), pick("min", uppers)


def _clamp(e, lo, hi):
    return Call("min", (Call("max", (e, lo)), hi))


def _split(program: ir.Program, loop: For, ctx: Context, budget: list):
    """The pieces of `loop` with guard-free full tiles, or None (emit it as it is)."""
    lower, upper = _cuts(loop)
    if lower is None and upper is None:
        return None
    s1 = loop.lo if lower is None else fold_index(_clamp(lower, loop.lo, loop.hi), ctx)
    s2 = loop.hi if upper is None else fold_index(_clamp(upper, s1, loop.hi), ctx)
    # exactly once: lo <= s1 <= s2 <= hi, proved by isl in the loop's context
    for a, b in ((loop.lo, s1), (s1, s2), (s2, loop.hi)):
        if a != b and ctx.decide(Cmp("<=", a, b)) is not True:
            STATS["kept"] += 1
            return None
    pieces = []
    full = None
    for k, (a, b) in enumerate(((loop.lo, s1), (s1, s2), (s2, loop.hi))):
        if a == b or ctx.decide(Cmp(">=", a, b)) is True:
            continue  # provably empty piece
        piece = dataclasses.replace(loop, lo=a, hi=b)
        body = simplify_stmts(program, loop.body, ctx.with_loop(piece))
        if k == 1:
            full = body
        if body:
            pieces.append(dataclasses.replace(piece, body=body))
    if full is None or _guard_count(full) >= _guard_count(loop.body):
        STATS["kept"] += 1
        return None
    budget[0] -= 1
    STATS["split"] += 1
    return pieces


def _stmts(program: ir.Program, stmts: tuple, ctx: Context, budget: list) -> tuple:
    out = []
    for s in stmts:
        match s:
            case For(axis=axis) if not ir.is_hardware(axis):
                pieces = _split(program, s, ctx, budget) if budget[0] > 0 else None
                for p in pieces or (s,):
                    out.append(dataclasses.replace(p, body=_stmts(program, p.body, ctx.with_loop(p), budget)))
            case For():
                out.append(dataclasses.replace(s, body=_stmts(program, s.body, ctx.with_loop(s), budget)))
            case If(cond=c, then=then, orelse=orelse):
                out.append(dataclasses.replace(s, then=_stmts(program, then, ctx.add(c), budget),
                                               orelse=_stmts(program, orelse, ctx.add(ir.Not(c)), budget)))
            case _:
                out.append(s)
    return tuple(out)


def full_tiles(program: ir.Program, body: tuple) -> tuple:
    """`body` (a kernel's statements) with guard-free full tiles; unchanged where nothing is
    split. Cheap when no loop carries a guard on its variable (no isl call at all)."""
    if not any(isinstance(n, If) for n in ir.walk(body)):
        return body
    out = _stmts(program, tuple(body), Context.of_program(program), [MAX_SPLITS])
    return body if out == tuple(body) else out
