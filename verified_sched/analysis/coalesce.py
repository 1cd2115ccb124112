"""Loop coalescing for the polyhedral model: perfectly nested ordered loops that the body
uses only through one mixed-radix combination become one loop (the inverse of a split).

    for o in lo .. hi {            // serial or unrolled
      for ii in 0 .. F {           // serial or unrolled, nothing else in o's body
        B(F*o + ii)                // o and ii appear only as F*o + ii
    } }
    ==>  for v in F*lo .. F*hi { B(v) }

`v = F*o + ii` is a bijection between the two iteration spaces that keeps their order (ii
ranges over [0, F), so the lexicographic order of (o, ii) is the numeric order of v); every
access, guard, bound and provenance of B is the same function of the instance, so the
kernel's statement instances, accesses, original instances (provenance) and execution order
are those of the original nest up to that bijection. Every generic obligation (in_bounds,
coverage, dependence, reassociation, independence) is a statement about those sets and that
order, invariant under it, so a proof on the coalesced kernel is a proof on the original;
its polyhedral problems have one dimension instead of two per coalesced pair (n nested
splits: one instead of n + 1). A chain L1 > L2 > ... > Lm (each Lj+1 alone in Lj's body,
L2..Lm from 0 to a constant) is coalesced at once with the weights w_m = 1,
w_j = w_j+1 * F_j+1.

The test is exact and purely structural: substitute Lm := v - sum_{j<m} w_j * Lj into the
body, bring every integer index expression to its canonical linear form (the simplifier's
`norm_index`: loads' indices, stores' indices and provenance, loop bounds, comparison
operands without reads, floor/mod/min/max atoms inside them), and keep the result only if
no Lj is left: then the body was a function of the combination alone. Anything else (a loop
variable in a scalar value, a tensor-core block, a statement without provenance, an inner
loop rebinding a chain name) leaves the chain as it is. In the common case (`_Merge`) the
substitution is done on the linear forms themselves (coefficients c_j of Lj become
c_j - c_m w_j, v gets c_m), which is the same result without walking the substituted tree.
"""
from __future__ import annotations

import dataclasses

from ..core import ir
from ..core.ir import Assign, BinOp, Cmp, For, Int, Load, TensorCore, Var, Zero
from .linear_index import is_index_expr, linear_form, norm_index, render_linear

ORDERED = ("serial", "unrolled")
STATS = {"chains": 0, "declined": 0}  # coalesced chains and chains left alone (tests count work)


def coalesce_kernel(kernel: ir.Kernel, serial_only: bool = False) -> ir.Kernel:
    """The kernel with every coalescable chain of loops coalesced (the same object when
    nothing changes; with `serial_only`, also when the kernel has a hardware loop or a
    barrier anywhere). A coalesced loop is named `<outer>#c`: no identifier has a `#`, so it
    takes no name the kernel uses (nested chains start at distinct loops)."""
    if serial_only and _hardware_or_barrier(kernel.body):
        return kernel
    body = _stmts(kernel.body)
    return kernel if body is kernel.body else dataclasses.replace(kernel, body=body)


def _hardware_or_barrier(stmts: tuple) -> bool:
    """Whether a barrier or a hardware loop is anywhere below `stmts` (one call per walk)."""
    return any(isinstance(s, ir.Barrier) or (isinstance(s, For) and s.axis in ir.HW_AXES)
               for s in _statements(stmts))


def _statements(stmts: tuple):
    """Every statement below `stmts` (not their expressions), in no particular order."""
    stack = list(stmts)
    while stack:
        s = stack.pop()
        yield s
        match s:
            case For(body=b):
                stack.extend(b)
            case ir.If(then=t, orelse=e):
                stack.extend(t)
                stack.extend(e)
            case TensorCore(fallback=fb):
                stack.extend(fb)


def _stmts(stmts: tuple) -> tuple:
    new = tuple(_stmt(s) for s in stmts)
    return stmts if all(a is b for a, b in zip(new, stmts)) else new


def _stmt(s):
    match s:
        case For():
            merged = _chain(s)
            if merged is not None:
                return dataclasses.replace(merged, body=_stmts(merged.body))
            body = _stmts(s.body)
            return s if body is s.body else dataclasses.replace(s, body=body)
        case ir.If(then=t, orelse=e):
            t2, e2 = _stmts(t), _stmts(e)
            return s if (t2 is t and e2 is e) else dataclasses.replace(s, then=t2, orelse=e2)
    return s


def _inner_extent(loop) -> int | None:
    lo, hi = loop.lo, loop.hi
    if loop.axis in ORDERED and type(lo) is Int and lo.value == 0 and type(hi) is Int and hi.value >= 1:
        return loop.hi.value
    return None


def _chain(top: For):
    """The coalesced loop of the longest chain starting at `top`, or None."""
    if top.axis not in ORDERED:
        return None
    chain = [top]
    while len(chain[-1].body) == 1 and isinstance(chain[-1].body[0], For) and _inner_extent(chain[-1].body[0]):
        chain.append(chain[-1].body[0])
    if len(chain) < 2:
        return None
    names = {lp.var for lp in chain}
    body = chain[-1].body
    if len(names) < len(chain) or not _plain(body, names):
        STATS["declined"] += 1
        return None
    weights = [1]
    for lp in reversed(chain[1:]):
        weights.append(weights[-1] * lp.hi.value)
    weights.reverse()  # weights[j] of chain[j]; weights[0] is the product of the inner extents
    v = f"{top.var}#c"
    inner = chain[-1].var
    try:  # the linear forms' own algebra: no substitution to walk (the common case)
        new_body = _Merge(chain, weights, v, names).stmts(body)
    except _Decline:  # a chain variable inside floor/mod/min/max, a read or a value: the
        # substitution itself, then the canonical forms
        rest = Var(v)
        for lp, w in zip(chain[:-1], weights[:-1]):
            rest = BinOp("-", rest, BinOp("*", Int(w), Var(lp.var)))

        def fn(n):  # substituted and normalized in one bottom-up pass
            if isinstance(n, Var):
                return rest if n.name == inner else None
            return _norm(n)
        new_body = tuple(s if isinstance(s, Zero) else ir.rewrite(s, fn) for s in body)
        if any(n.name in names for s in new_body for n in ir.walk(s) if isinstance(n, Var)):
            STATS["declined"] += 1
            return None
    STATS["chains"] += 1
    w0 = Int(weights[0])
    return For(v, norm_index(BinOp("*", w0, top.lo)), norm_index(BinOp("*", w0, top.hi)), "serial", new_body,
               loc=top.loc)


class _Decline(Exception):
    """The fast path (`_Merge`) does not apply: take the substitution path."""


class _Merge:
    """The body with `Lm := v - sum_{j<m} w_j * Lj` applied to the linear form of every
    integer index expression directly: with coefficients c_j, the form becomes
    sum_{j<m} (c_j - c_m w_j) Lj + c_m v + the rest, rendered once. _Decline when a chain
    variable is left (its coefficients are not c_m w_j), sits inside an atom (floor, mod,
    min/max, a read: the substitution path handles those) or in a scalar position, or at a
    node this walk does not know."""

    def __init__(self, chain: list, weights: list, v: str, names: set):
        self.inner, self.v, self.names = Var(chain[-1].var), Var(v), names
        self.outer = [(Var(lp.var), w) for lp, w in zip(chain[:-1], weights[:-1])]

    def index(self, e):
        lin = linear_form(e)
        if lin is None:
            raise _Decline
        terms, const = lin
        cm = terms.pop(self.inner, 0)
        if cm:
            for key, w in self.outer:
                x = terms.get(key, 0) - cm * w
                if x:
                    terms[key] = x
                else:
                    terms.pop(key, None)
            terms[self.v] = cm
        for t in terms:
            if isinstance(t, Var):
                if t.name in self.names:
                    raise _Decline
            elif ir.free_vars(t) & self.names:
                raise _Decline
        out = render_linear(terms, const)
        return e if out == e else out

    def stmts(self, body: tuple) -> tuple:
        return tuple(self.stmt(s) for s in body)

    def stmt(self, s):
        match s:
            case For(lo=lo, hi=hi, body=b):
                return ir.replaced(s, lo=self.index(lo), hi=self.index(hi), body=self.stmts(b))
            case ir.If(cond=c, then=t, orelse=e):
                return ir.replaced(s, cond=self.cond(c), then=self.stmts(t), orelse=self.stmts(e))
            case Assign(index=idx, value=val, provenance=prov):
                return ir.replaced(s, index=tuple(self.index(x) for x in idx), value=self.scalar(val),
                                           provenance=tuple((k, self.index(x)) for k, x in prov))
            case Zero():
                return s
        raise _Decline

    def cond(self, c):
        match c:
            case Cmp(a=a, b=b) if is_index_expr(a, False) and is_index_expr(b, False):
                return ir.replaced(c, a=self.index(a), b=self.index(b))
            case Cmp(a=a, b=b):
                return ir.replaced(c, a=self.scalar(a), b=self.scalar(b))
            case ir.And(a=a, b=b) | ir.Or(a=a, b=b):
                return ir.replaced(c, a=self.cond(a), b=self.cond(b))
            case ir.Not(a=a):
                return ir.replaced(c, a=self.cond(a))
            case ir.BoolConst():
                return c
        raise _Decline

    def scalar(self, e):
        match e:
            case Int() | ir.Float():
                return e
            case Var(name=n):
                if n in self.names:
                    raise _Decline
                return e
            case Load(index=idx):
                return ir.replaced(e, index=tuple(self.index(x) for x in idx))
            case BinOp(a=a, b=b):
                return ir.replaced(e, a=self.scalar(a), b=self.scalar(b))
            case ir.Call(args=args):
                return ir.replaced(e, args=tuple(self.scalar(x) for x in args))
            case ir.Cast(a=a) | ir.FloorDiv(a=a) | ir.Mod(a=a):
                return ir.replaced(e, a=self.scalar(a))
            case ir.Where(cond=c, a=a, b=b):
                return ir.replaced(e, cond=self.cond(c), a=self.scalar(a), b=self.scalar(b))
        raise _Decline


def _plain(body: tuple, names: set) -> bool:
    """No tensor-core block or barrier, no statement that lacks its provenance (its identity
    would be the loops themselves), no inner loop rebinding a chain name."""
    for n in _statements(body):
        if isinstance(n, (TensorCore, ir.Barrier)):
            return False
        if isinstance(n, For) and n.var in names:
            return False
        if isinstance(n, Assign) and not n.provenance:
            return False
    return True


def _norm(n):
    match n:
        case Load(index=idx):
            new = tuple(norm_index(x) for x in idx)
            return None if all(a is b for a, b in zip(new, idx)) else dataclasses.replace(n, index=new)
        case Assign(index=idx, provenance=prov):
            new = tuple(norm_index(x) for x in idx)
            p2 = tuple((k, norm_index(x)) for k, x in prov)
            if all(a is b for a, b in zip(new, idx)) and all(a[1] is b[1] for a, b in zip(p2, prov)):
                return None
            return dataclasses.replace(n, index=new, provenance=p2)
        case For(lo=lo, hi=hi):
            lo2, hi2 = norm_index(lo), norm_index(hi)
            return None if (lo2 is lo and hi2 is hi) else dataclasses.replace(n, lo=lo2, hi=hi2)
        case Cmp(a=a, b=b) if is_index_expr(a, False) and is_index_expr(b, False):
            a2, b2 = norm_index(a), norm_index(b)
            return None if (a2 is a and b2 is b) else dataclasses.replace(n, a=a2, b=b2)
    return None
