"""The simplifier run after every schedule op, so `vsched show` prints clean nests.

Two parts:
- index normalization: integer index expressions (Load/Assign indices, loop bounds, affine
  comparisons, provenance) are brought to a canonical linear form `c1*a1 + ... + k`, folding
  constants, exact floor divisions (`floor((32*q + 31)/32) = q`), mods and constant min/max;
- guard folding decided by isl: an `if`/`where` condition (or a conjunct of one) is dropped
  when the enclosing loop domains, enclosing guards and the parameter constraints prove it
  true, and its branch is dropped when they prove it false. min/max inside indices are folded
  the same way. Never decided by interval reasoning: isl decides, or nothing changes.
Loops are removed only when isl proves them empty (or their body became empty).
Conditions isl cannot read (data-dependent, non-affine) are left in place and are simply not
used as context, which only makes the context weaker (sound).
"""
from __future__ import annotations

import dataclasses
import operator
from functools import lru_cache

from polyhedral.lazy_isl import isl

from polyhedral import affine

from ..core import ir
from ..core.ir import (And, Assign, BinOp, BoolConst, Call, Cast, Cmp, FloorDiv, For, If, Int, Load,
                 Mod, Not, Or, TensorCore, Var, Where)
# the linear forms (re-exported: other modules import them from here)
from .linear_index import (add_linear, adopt, is_index_expr, known_form, linear_form, norm_index,  # noqa: F401
                           render_linear, scale_linear)


NotAffine = affine.NonAffine  # the expression or condition is outside what isl can state


# ---------------------------------------------------------------- isl conversion


def _name(v: str) -> str:
    return "v_" + v


def _names(node) -> dict:
    return {v: _name(v) for v in ir.free_vars(node)}


def isl_cond(c) -> str:
    """An isl constraint string for an affine condition; NotAffine otherwise (a function of
    the condition alone: computed once per condition node, `ir.fact`)."""
    return ir.fact(c, _isl_cond)


def _isl_cond(c) -> str:
    c = ir.rewrite(c, lambda n: Cmp(n.op, norm_index(n.a), norm_index(n.b)) if isinstance(n, Cmp) else None)
    return affine.cond(c, _names(c))


@lru_cache(maxsize=4096)
def _isl_set(params: tuple, iters: tuple, text: str) -> isl.Set:
    ps = ", ".join(_name(p) for p in params)
    its = ", ".join(_name(v) for v in iters)
    return isl.Set(f"[{ps}] -> {{ [{its}] : {text} }}")


class Context:
    """What is known at a program point: parameter constraints, enclosing loop bounds and
    enclosing guards, as affine conditions (the ones isl cannot read are dropped).

    `add` and `with_loop` are lazy: a condition becomes isl text only when a decision states
    it, once (contexts made from this one share its facts), so entering a loop costs nothing.
    `decide` states only the facts that share a name with the condition, directly or through
    other such facts (params included): the rest constrain other names, so they cannot make
    the condition true or false (only the whole context empty, where any answer holds). A
    guard deep in a nest is decided over its own loops, not the whole nest."""

    def __init__(self, params: tuple, facts: tuple = (), iters: tuple = (), exact: bool = True):
        self.params = tuple(params)
        self.iters = tuple(iters)
        self.exact = exact  # every parameter constraint is a fact (a later one isl cannot read is dropped)
        # one entry per fact, shared with the contexts made from this one: [condition or None,
        # iterators known when added, its names or None, its text, None (dropped) or _PENDING]
        self._entries = tuple([None, (), None, f] for f in facts)

    @property
    def facts(self) -> tuple:
        return tuple(t for t in map(self._entry_text, self._entries) if t is not None)

    def _entry_text(self, entry):
        if entry[3] is _PENDING:
            entry[3] = None
            if all(n in self.params or n in entry[1] for n in ir.free_vars(entry[0])):
                try:
                    entry[3] = isl_cond(entry[0])
                except NotAffine:
                    pass
        return entry[3]

    @staticmethod
    def _entry_names(entry):
        """The names a fact mentions (None: not known, taken as every name)."""
        if entry[2] is None and entry[0] is not None:
            c = entry[0]
            if isinstance(c, Cmp) and isinstance(c.a, (Var, Int)) and isinstance(c.b, (Var, Int)):
                # a loop's bound facts `lo <= v`, `v < hi` mostly: no walk
                entry[2] = frozenset(x.name for x in (c.a, c.b) if isinstance(x, Var))
            else:
                entry[2] = frozenset(ir.free_vars(c))
        return entry[2]

    def _extended(self, iters: tuple, conds: tuple) -> "Context":
        ctx = Context(self.params, (), iters, self.exact)
        ctx._entries = self._entries + tuple([c, iters, None, _PENDING] for c in conds)
        return ctx

    @staticmethod
    def of_program(program: ir.Program) -> "Context":
        facts = []
        for c in program.constraints:
            try:
                facts.append(isl_cond(c))
            except NotAffine:
                pass
        ctx = Context(tuple(program.params), tuple(facts), (), len(facts) == len(program.constraints))
        for e in ctx._entries:
            e[2] = frozenset(program.params)
        return ctx

    def _known_var(self, names) -> bool:
        return all(n in self.params or n in self.iters for n in names)

    def add(self, cond) -> "Context":
        return self._extended(self.iters, (cond,))

    def with_loop(self, loop: For) -> "Context":
        v, lo, hi = Var(loop.var), loop.lo, loop.hi
        iters = self.iters + (loop.var,)
        # (`_extended` of the two bound facts, built in place: one per loop level of a nest)
        ctx = object.__new__(Context)
        ctx.params, ctx.iters, ctx.exact = self.params, iters, self.exact
        # the names of constant bounds' facts are known now (what `_entry_names` would find)
        ctx._entries = self._entries + (
            [Cmp("<=", lo, v), iters, frozenset((loop.var,)) if type(lo) is Int else None, _PENDING],
            [Cmp("<", v, hi), iters, frozenset((loop.var,)) if type(hi) is Int else None, _PENDING])
        return ctx

    def with_iter(self, name: str) -> "Context":
        return self._extended(self.iters + (name,), ())

    def set(self, extra: str | None = None) -> isl.Set:
        parts = list(self.facts) + ([extra] if extra else [])
        return _isl_set(self.params, self.iters, " and ".join(parts) if parts else "0 = 0")

    def _relevant(self, names) -> tuple:
        """(facts, iterators) that share a name with `names`, directly or through other such
        facts (a fact whose names are unknown, or that has none, is always kept); only those
        facts are turned into isl text."""
        names, entries = set(names), self._entries
        keep = [False] * len(entries)
        grew = True
        while grew:
            grew = False
            for k, e in enumerate(entries):
                if keep[k]:
                    continue
                fn = e[2] if e[2] is not None else self._entry_names(e)
                if fn is None or not fn or not fn.isdisjoint(names):
                    keep[k], grew = True, True
                    names |= set(self.params) | set(self.iters) if fn is None else fn
        facts = tuple(t for e, k in zip(entries, keep) if k for t in [self._entry_text(e)] if t is not None)
        return facts, tuple(v for v in self.iters if v in names)

    def _space_ok(self, node) -> bool:
        return self._known_var(ir.free_vars(node))

    def decide(self, cond):
        """True / False when isl proves `cond` always / never holds here, else None."""
        if isinstance(cond, BoolConst):
            return cond.value
        if isinstance(cond, Cmp):  # constants on both sides: decided exactly, without isl
            la, lb = linear_form(cond.a, False), linear_form(cond.b, False)
            if la is not None and lb is not None and not la[0] and not lb[0]:
                return _CMP[cond.op](la[1], lb[1])
        names = ir.free_vars(cond)
        if not self._known_var(names):
            return None
        try:
            text = isl_cond(cond)
        except NotAffine:
            return None
        facts, iters = self._relevant(names)
        dom = _isl_set(self.params, iters, " and ".join(facts) if facts else "0 = 0")
        if dom.is_empty():
            return None  # unreachable: leave it to the caller (loops are dropped separately)
        yes = _isl_set(self.params, iters, " and ".join(facts + (text,)))
        if yes.is_empty():
            return False
        if dom.is_subset(yes):
            return True
        return None

    def empty(self) -> bool:
        return self.set().is_empty()

    def counterexample(self, cond) -> dict | None:
        """Parameter values (and iterators) where `cond` holds here, if any (None if isl
        proves it never holds). NotAffine when isl cannot state `cond`."""
        if not self._space_ok(cond):
            raise NotAffine(cond)
        text = isl_cond(cond)
        s = self.set(text)
        if s.is_empty():
            return None
        return point_dict(s.sample_point(), self.params, self.iters)


_PENDING = object()  # a fact not yet turned into isl text
_CMP = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__, "==": int.__eq__,
        "!=": int.__ne__}


def point_dict(point: isl.Point, params: tuple, iters: tuple) -> dict:
    out = {}
    for i, p in enumerate(params):
        out[p] = point.get_coordinate_val(isl.dim_type.param, i).to_python()
    for i, v in enumerate(iters):
        out[v] = point.get_coordinate_val(isl.dim_type.set, i).to_python()
    return out


# ---------------------------------------------------------------- context-aware folding


def fold_index(e, ctx: Context | None):
    """Normalize an index expression and fold its min/max (and floor/mod atoms) that `ctx`
    decides."""
    if isinstance(e, (Int, Var)) or known_form(e) is not None:
        return e  # (most loop bounds, and canonical sums of variables: normal, nothing to fold)
    lin = linear_form(e)
    if lin is None:
        return e
    out = render_linear(*lin)  # norm_index(e), its linear form computed once
    e = adopt(e, out) if out == e else out
    if ctx is None or all(isinstance(t, Var) for t in lin[0]):
        return e  # (a sum of variables has no min/max/floor/mod to fold, and is normal)

    def fn(n):
        match n:
            case Call(fn=("min" | "max") as f, args=(a, b)) if is_index_expr(a) and is_index_expr(b):
                le = ctx.decide(Cmp("<=", a, b))
                if le is True:
                    return a if f == "min" else b
                if le is False or ctx.decide(Cmp(">=", a, b)) is True:
                    return b if f == "min" else a
            case Mod(a=a, divisor=d) if is_index_expr(a):
                if ctx.decide(And(Cmp(">=", a, Int(0)), Cmp("<", a, Int(d)))) is True:
                    return a
            case FloorDiv(a=a, divisor=d) if is_index_expr(a):
                if ctx.decide(And(Cmp(">=", a, Int(0)), Cmp("<", a, Int(d)))) is True:
                    return Int(0)
        return None

    out = norm_index(ir.rewrite(e, fn))
    return e if out == e else out


def _fold_cmp(c: Cmp, ctx):
    a, b = c.a, c.b
    if is_index_expr(a, False) and is_index_expr(b, False):
        a, b = fold_index(a, ctx), fold_index(b, ctx)
        la, lb = linear_form(a), linear_form(b)
        if not la[0] and not lb[0]:
            x, y = la[1], lb[1]
            return BoolConst({"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y,
                              "!=": x != y}[c.op])
    else:
        a, b = fold_expr(a, ctx), fold_expr(b, ctx)
    if a is c.a and b is c.b:
        return c
    return Cmp(c.op, a, b, loc=c.loc)


def fold_cond(c, ctx: Context | None):
    """Constant-fold a condition; with a context, drop the conjuncts isl proves true and turn
    the whole condition into a BoolConst when isl decides it."""
    match c:
        case Cmp():
            c2 = _fold_cmp(c, ctx)
        case And(a=a, b=b) | Or(a=a, b=b):
            x, y = fold_cond(a, ctx), fold_cond(b, ctx)
            unit = BoolConst(isinstance(c, And))  # true for `and`, false for `or`
            absorbing = BoolConst(not unit.value)
            if x == absorbing or y == absorbing:
                return absorbing
            if x == unit:
                return y
            if y == unit:
                return x
            c2 = c if (x is a and y is b) else type(c)(x, y, loc=c.loc)
        case Not(a=a):
            x = fold_cond(a, ctx)
            if isinstance(x, BoolConst):
                return BoolConst(not x.value)
            c2 = c if x is a else Not(x, loc=c.loc)
        case _:
            c2 = c
    if ctx is not None and not isinstance(c2, BoolConst):
        d = ctx.decide(c2)
        if d is not None:
            return BoolConst(d)
    return c2


def fold_expr(e, ctx: Context | None):
    """Fold a scalar expression: normalize the indices of its loads, decide its where
    conditions (a where is lazy, so dropping the unselected branch is exact). Arithmetic in a
    scalar position is never rearranged or folded, not even on integers: it runs in the
    target's compute type, where e.g. neg(0) is -0.0 and folding it to 0 would change bits."""
    match e:
        case Load(tensor=t, index=idx):
            new = tuple(fold_index(x, ctx) for x in idx)
            return e if all(a is b for a, b in zip(new, idx)) else Load(t, new, loc=e.loc)
        case Where(cond=c, a=a, b=b):
            c2 = fold_cond(c, ctx)
            if c2 == BoolConst(True):
                return fold_expr(a, ctx)
            if c2 == BoolConst(False):
                return fold_expr(b, ctx)
            # the branches are folded in the enclosing context only: refining them by the
            # condition would rewrite a blend `where(c, v, t[I])` into an unrecognizable shape
            a2, b2 = fold_expr(a, ctx), fold_expr(b, ctx)
            if c2 is c and a2 is a and b2 is b:
                return e
            return Where(c2, a2, b2, loc=e.loc)
        case BinOp(op=op, a=a, b=b):
            a2, b2 = fold_expr(a, ctx), fold_expr(b, ctx)
            return e if (a2 is a and b2 is b) else BinOp(op, a2, b2, loc=e.loc)
        case Call(fn=fn, args=args):
            new = tuple(fold_expr(x, ctx) for x in args)
            return e if all(x is y for x, y in zip(new, args)) else Call(fn, new, loc=e.loc)
        case Cast(prec=p, a=a):
            a2 = fold_expr(a, ctx)
            return e if a2 is a else Cast(p, a2, loc=e.loc)
        case FloorDiv(a=a, divisor=d):
            a2 = fold_expr(a, ctx)
            return e if a2 is a else FloorDiv(a2, d, loc=e.loc)
        case Mod(a=a, divisor=d):
            a2 = fold_expr(a, ctx)
            return e if a2 is a else Mod(a2, d, loc=e.loc)
    return e


# ---------------------------------------------------------------- statements


def _simplify_stmts(stmts: tuple, ctx: Context) -> tuple:
    """The statements simplified: `stmts` itself when every one comes back as it was, so an
    enclosing statement tests for change by identity, not by comparing its whole subtree
    (that was quadratic in the depth of a nest: each loop compared everything below it)."""
    out = []
    for s in stmts:
        out.extend(_simplify_stmt(s, ctx))
    if len(out) == len(stmts) and all(map(operator.is_, out, stmts)):
        return stmts
    return tuple(out)


def _simplify_stmt(s, ctx: Context) -> list:
    match s:
        case For(var=v, lo=lo, hi=hi, body=body):
            lo2 = lo if type(lo) is Int else fold_index(lo, ctx)  # (a literal is normal)
            hi2 = hi if type(hi) is Int else fold_index(hi, ctx)
            if isinstance(lo2, Int) and isinstance(hi2, Int):  # (what decide answers for constants)
                if lo2.value >= hi2.value:
                    return []
            elif ctx.decide(Cmp(">=", lo2, hi2)) is True:
                return []
            inner = ctx.with_loop(s if (lo2 is lo and hi2 is hi) else ir.replaced(s, lo=lo2, hi=hi2))
            body2 = _simplify_stmts(body, inner)
            if not body2:
                return []
            if lo2 is lo and hi2 is hi and body2 is body:
                return [s]
            return [ir.replaced(s, lo=lo2, hi=hi2, body=body2)]
        case If(cond=c, then=then, orelse=orelse):
            c2 = fold_cond(c, ctx)
            if c2 == BoolConst(True):
                return list(_simplify_stmts(then, ctx))
            if c2 == BoolConst(False):
                return list(_simplify_stmts(orelse, ctx))
            then2 = _simplify_stmts(then, ctx.add(c2))
            else2 = _simplify_stmts(orelse, ctx.add(Not(c2)))
            if not then2 and not else2:
                return []
            if not then2:
                return [If(fold_cond(Not(c2), None), else2, (), loc=s.loc)]
            if c2 is c and then2 is then and else2 is orelse:
                return [s]
            return [If(c2, then2, else2, loc=s.loc)]
        case Assign(index=idx, value=val, provenance=prov):
            idx2 = tuple(fold_index(x, ctx) for x in idx)
            val2 = fold_expr(val, ctx)
            prov2 = tuple((n, fold_index(x, ctx)) for n, x in prov)
            # the folds hand back the very object when nothing changed (else an unequal one):
            # identity decides, without comparing whole index expressions
            if (all(a is b for a, b in zip(idx2, idx)) and val2 is val
                    and all(a[1] is b[1] for a, b in zip(prov2, prov))):
                return [s]
            return [ir.replaced(s, index=idx2, value=val2, provenance=prov2)]
        case TensorCore(fallback=fb):
            fb2 = _simplify_stmts(fb, ctx)
            return [s if fb2 is fb else ir.replaced(s, fallback=fb2)]
    return [s]


def simplify_stmts(program: ir.Program, stmts: tuple, ctx: Context | None = None) -> tuple:
    stmts = stmts if isinstance(stmts, tuple) else tuple(stmts)
    return _simplify_stmts(stmts, ctx or Context.of_program(program))


def simplify_kernel(program: ir.Program, kernel: ir.Kernel) -> ir.Kernel:
    """The kernel with guards folded, indices normalized and provably empty loops removed."""
    body = simplify_stmts(program, kernel.body)
    return kernel if body is kernel.body else dataclasses.replace(kernel, body=body)


