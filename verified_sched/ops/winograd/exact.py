"""Declared input ranges and the Winograd `exactness` obligation.

Syntax (one line per group of tensors; design notes in the module docstring of the op):

    inputs a, b int in [-8, 8]              integers in [-8, 8]
    inputs a in [-1, 1] grid 1/16           multiples of 1/16 (a power of two) in [-1, 1]

The DSL parser keeps these as `Program.inputs` (verified_sched/core/inputs.py); the same text in
a comment, `# inputs: a, b int in [-8, 8]`, is read by the parser into it too.

Exactness is decided from the actual nests, not from a formula: an interval-and-grid analysis
walks both forms' statements and bounds every rounded result (each product, each partial sum
of each accumulation, with the accumulation count a product of the reduction loops' extents,
possibly symbolic) by |v| <= P(params), v in 2^-e Z. Every such v is exactly representable
in f32 when P * 2^e <= 2^24; if that holds everywhere in both forms, both compute the exact
real value and agree bitwise (they accumulate into +0, so no -0 appears). Each requirement
is decided for all parameter values under the constraints by z3 (with a timeout).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import z3

from smt import intexpr
from smt.solver import solver

from ...core import budget, ir
from ...core.counterexample import Counterexample, Instance
from ...core.obligations import Decided, formal_statement, procedure
from .apply import Minted, rewrite_kernel

LIMIT = 2 ** 24


InputRange = ir.InputRange


def declared_ranges(program: ir.Program) -> list:
    """The declared ranges: Program.inputs (the parser reads `# inputs:` comments into it)."""
    return list(program.inputs)


# ---------------------------------------------------------------- bounds


class Unknown(Exception):
    """The analysis cannot bound something (reported as unknown, never as proved)."""


@dataclass(frozen=True)
class Bound:
    """|v| <= sum(coef * prod(extents)) and v in 2^-grid Z. poly: {monomial: Fraction}."""

    poly: tuple  # sorted ((monomial, coef), ...); monomial = tuple of extent keys
    grid: int

    @staticmethod
    def const(c, grid=0):
        return Bound(((((), Fraction(c)),) if c else ()), grid)

    def d(self):
        return dict(self.poly)


def _mk(d: dict, grid: int) -> Bound:
    return Bound(tuple(sorted((m, c) for m, c in d.items() if c)), grid)


def _add(x: Bound, y: Bound) -> Bound:
    d = x.d()
    for m, c in y.poly:
        d[m] = d.get(m, 0) + c
    return _mk(d, max(x.grid, y.grid))


def _mul(x: Bound, y: Bound) -> Bound:
    d = {}
    for m1, c1 in x.poly:
        for m2, c2 in y.poly:
            m = tuple(sorted(m1 + m2))
            d[m] = d.get(m, 0) + c1 * c2
    return _mk(d, x.grid + y.grid)


def _max(x: Bound, y: Bound) -> Bound:
    """Coefficient-wise max: an upper bound of max(x, y) since every monomial is >= 0."""
    d = x.d()
    for m, c in y.poly:
        d[m] = max(d.get(m, 0), c)
    return _mk(d, max(x.grid, y.grid))


def _dyadic(v: float) -> Bound:
    f = abs(Fraction(v))
    den, e = f.denominator, 0
    while den > 1:
        if den % 2:
            raise Unknown(f"constant {v} is not dyadic")
        den, e = den // 2, e + 1
    return Bound.const(f, e)


class _Analysis:
    """Walks statements, tracking per tensor (and constant index pattern) a Bound."""

    def __init__(self, program: ir.Program, ranges: list):
        self.program = program
        self.params = {p if isinstance(p, str) else p.name for p in program.params}
        self.state = {}
        self.extents = {}  # key -> Expr
        self.reqs = []  # (Bound, where)
        self.frozen = {}
        self.reset = {}  # tensor -> how many loops enclose its `zero` (not counted as its reduction)
        for r in ranges:
            for t in r.tensors:
                self.state[t] = [(None, Bound.const(r.magnitude, r.grid_exp))]
        self.collect = False

    def read(self, ld: ir.Load) -> Bound:
        entries = self.frozen.get(ld.tensor, self.state.get(ld.tensor))
        if not entries:
            raise Unknown(f"no declared range for {ld.tensor} (add 'inputs {ld.tensor} ...')")
        pat = tuple(e.value if isinstance(e, ir.Int) else None for e in ld.index)
        out = None
        for p, b in entries:
            if p is None or all(x is None or y is None or x == y for x, y in zip(p, pat)):
                out = b if out is None else _max(out, b)
        if out is None:
            raise Unknown(f"{ld.tensor}{list(pat)} is read before it is written")
        return out

    def expr(self, e, where: str, rounded=True) -> Bound:
        match e:
            case ir.Int(value=v):
                return Bound.const(abs(v))
            case ir.Float(value=v):
                return _dyadic(v)
            case ir.Load():
                return self.read(e)
            case ir.Cast(prec="f32", a=a):
                return self.expr(a, where)
            case ir.Call(fn=("neg" | "abs" | "relu"), args=(a,)):
                return self.expr(a, where)
            case ir.Call(fn=("min" | "max"), args=(a, b)) | ir.Where(a=a, b=b):
                return _max(self.expr(a, where), self.expr(b, where))
            case ir.Call(fn="fma", args=(a, b, c)):
                r = _add(_mul(self.expr(a, where), self.expr(b, where)), self.expr(c, where))
            case ir.BinOp(op=("+" | "-"), a=a, b=b):
                r = _add(self.expr(a, where), self.expr(b, where))
            case ir.BinOp(op="*", a=a, b=b):
                r = _mul(self.expr(a, where), self.expr(b, where))
            case _:
                raise Unknown(f"{type(e).__name__} at {where} is not exact arithmetic")
        if rounded:
            self.require(r, where)
        return r

    def require(self, b: Bound, where: str) -> None:
        if self.collect:
            self.reqs.append((b, where))

    def extent(self, lo, hi) -> Bound:
        e = hi if lo == ir.Int(0) else ir.BinOp("-", hi, lo)
        if not ir.free_vars(e) <= self.params or ir.reads(e):
            raise Unknown("a reduction loop's extent depends on other iterators")
        if isinstance(e, ir.Int):
            return Bound.const(max(e.value, 0))
        from ...core.printer import expr_text

        key = expr_text(e)
        self.extents[key] = e
        return Bound((((key,), Fraction(1)),), 0)

    def assign(self, st: ir.Assign, loops) -> None:
        where = st.sid or st.tensor
        inside = {v for v, _, _ in loops}
        used = ir.free_vars(st.index) & inside
        for v in used:
            entries = [e for e in st.index if v in ir.free_vars(e)]
            if len(entries) != 1 or len(ir.free_vars(entries[0]) & inside) != 1:
                raise Unknown(f"{where}: index of {st.tensor} is not one iterator per axis")
        count = Bound.const(1)
        for v, lo, hi in loops[self.reset.get(st.tensor, 0):]:  # loops around its `zero` restart it
            if v not in used:
                count = _mul(count, self.extent(lo, hi))
        pat = tuple(e.value if isinstance(e, ir.Int) else None for e in st.index)
        acc = ir.accumulation(st)
        if acc is not None and acc[0] == "+":
            base = self.read(ir.Load(st.tensor, st.index))
            fused = isinstance(st.value, ir.Call)
            term = self.expr(acc[1], where, rounded=not fused) if not fused else \
                _mul(self.expr(acc[1].a, where), self.expr(acc[1].b, where))
            val = _add(base, _mul(count, term))
            self.require(val, where + " (partial sums)")
        else:
            val = self.expr(st.value, where)
        self.state.setdefault(st.tensor, []).append((pat, val))

    def stmt(self, s, loops=(), guarded=False) -> None:
        match s:
            case ir.Zero(tensor=t) if guarded:  # maybe not run: the values before it stay possible
                self.state.setdefault(t, []).append((None, Bound.const(0)))
            case ir.Zero(tensor=t):
                self.state[t] = [(None, Bound.const(0))]
                if loops:  # zeroed in every iteration of its loops (`winograd block`'s M)
                    self.reset[t] = len(loops)
            case ir.For(var=v, lo=lo, hi=hi, body=body):
                saved = dict(self.reset)
                for b in body:
                    self.stmt(b, loops + ((v, lo, hi),), guarded)
                self.reset = saved
            case ir.If(then=t, orelse=e):
                for b in t + e:
                    self.stmt(b, loops, True)
            case ir.Assign():
                self.assign(s, loops)
            case ir.Barrier():
                pass
            case _:
                raise Unknown(f"{type(s).__name__} is not analysed")

    def prefix(self, stmts) -> None:
        """Statements before the site: their effect on the state, no requirements; a tensor
        they write that cannot be bounded becomes unknown (an error only if the site reads it)."""
        for s in stmts:
            try:
                self.stmt(s)
            except Unknown:
                for n in ir.walk(s):
                    if isinstance(n, ir.Assign):
                        self.state[n.tensor] = []


# ---------------------------------------------------------------- the obligation


def _z3_int(e):
    """z3 integer term of a parameter expression (`smt.intexpr`, the one IR -> z3 translator)."""
    try:
        return intexpr.term(e, {})
    except intexpr.NoTerm as err:
        raise _unknown(err) from None


def _z3_cond(c):
    try:
        return intexpr.cond(c, {})
    except intexpr.NoTerm as err:
        raise _unknown(err) from None


def _unknown(err) -> "Unknown":
    what = "constraint" if err.in_condition else "parameter expression"
    return Unknown(f"{what} {type(err.node).__name__} not supported")


def _text(b: Bound) -> str:
    terms = [f"{c}" + "".join(f"*({k})" for k in m) for m, c in b.poly] or ["0"]
    return f"({' + '.join(terms)}) * 2^{b.grid}"


def _lhs(b: Bound, extents: dict):
    """P(params) as a z3 real, every extent clamped at 0 (an empty loop counts nothing)."""
    lhs = z3.RealVal(0)
    for mono, c in b.poly:
        prod = z3.IntVal(1)
        for k in mono:
            x = _z3_int(extents[k])
            prod = prod * z3.If(x < 0, 0, x)
        lhs = lhs + z3.RealVal(f"{c.numerator}/{c.denominator}") * z3.ToReal(prod)
    return lhs


def _threshold(b: Bound):
    """(symbol, T) when the requirement reads c * X * 2^e <= 2^24, i.e. X <= T; else None."""
    if len(b.poly) == 1 and len(b.poly[0][0]) == 1:
        (mono, c), = b.poly
        return mono[0], int(Fraction(LIMIT) / (c * Fraction(2) ** b.grid))
    return None


def _condition(b: Bound) -> str:
    """Human form of P * 2^e <= 2^24; 'X <= T' when P = c * X."""
    if len(b.poly) == 1 and len(b.poly[0][0]) == 1:
        (m, c), = b.poly
        return f"{m[0]} <= {int(Fraction(LIMIT) / (c * Fraction(2) ** b.grid))}"
    return f"{_text(b)} <= 2^24"


def analyse(before, after, kernel: str, m, ranges: list):
    """(requirements, extents) of both forms: [(Bound, where)]; raises Unknown."""
    reqs, extents = [], {}
    bk = before.kernel(kernel).body
    a = _Analysis(before, ranges)
    a.prefix(bk[:m.site.position])
    a.collect = True
    a.stmt(bk[m.site.position])
    reqs += [(b, "direct form " + w) for b, w in a.reqs]
    extents.update(a.extents)
    ak = after.kernel(kernel).body
    w = _Analysis(after, ranges)
    w.prefix(ak[:m.start])
    w.collect = True
    d = m.site.d
    w.frozen = {d: list(w.state.get(d, []))}  # each cell of d has exactly one writer (coverage)
    for s in ak[m.start:m.start + len(m.roles)]:
        w.stmt(s)
    reqs += [(b, "winograd form " + x) for b, x in w.reqs]
    extents.update(w.extents)
    return reqs, extents


def exactness_goal(before, after, kernel: str, m: Minted, ranges: list, timeout: float = budget.DEFAULT_TIMEOUT):
    """The `exactness` goal of one site (a procedure: one z3 query per bounded result, and
    for a violated one a second query for the smallest violating size; not one query)."""
    return procedure("exactness", formal_statement(exactness),
                     lambda: exactness(before, after, kernel, m, ranges, timeout))


def exactness(before, after, kernel: str, m: Minted, ranges: list, timeout: float = budget.DEFAULT_TIMEOUT):
    """Formal statement: for all parameter values satisfying the constraints and all inputs
    in the declared ranges and grids, every rounded result of the direct nest and of the
    Winograd nests (each product, each partial sum) has |v| * 2^e <= 2^24 where v is a
    multiple of 2^-e, so it is exact in f32 and both forms agree bitwise. The bound of each
    value is derived from the nests (interval and grid analysis, counts from the reduction
    loops' extents); refuted means some bound exceeds 2^24 units of its grid (the bounds are
    attained by sign-aligned inputs at the range ends)."""
    try:
        reqs, extents = analyse(before, after, kernel, m, ranges)
        params = [p if isinstance(p, str) else p.name for p in before.params]
        cons = [_z3_cond(c) for c in before.constraints]
    except Unknown as exc:
        return Decided("unknown", f"exactness: {exc}", engine="z3")
    seen = {}
    for b, where in reqs:
        seen.setdefault(b, where)
    conds, violated, unknown = [], [], []
    for b, where in seen.items():
        lhs = _lhs(b, extents)
        s = solver(timeout)  # capped by the time left before the deadline
        s.add(*cons)
        s.add(lhs * (2 ** b.grid) > LIMIT)
        res = s.check()
        thr = _threshold(b)
        if res == z3.sat:
            if thr is not None:  # the smallest violating value of the one symbol, when allowed
                s.push()
                s.add(_z3_int(extents[thr[0]]) == thr[1] + 1)
                if s.check() != z3.sat:
                    s.pop()
                    s.check()
            mdl = s.model()
            cex = {p: mdl.eval(z3.Int(p), model_completion=True).as_long() for p in params}
            violated.append((thr[1] if thr else -1, b, where, cex))
        elif res == z3.unsat:
            if thr is not None:
                conds.append((thr[0], thr[1], where))
            elif any(mono for mono, _ in b.poly):
                conds.append((_text(b), None, where))
        else:
            unknown.append(f"{budget.z3_unknown(s.reason_unknown())} on {where}")
    if violated:
        _, b, where, cex = min(violated, key=lambda v: v[0])
        return Decided("refuted", f"exactness: {where} may reach {_text(b)} > 2^24 units (needs {_condition(b)})",
                       counterexample=Counterexample(Instance(cex), extra={"statement": where, "bound": _text(b)}), engine="z3")
    if unknown:
        return Decided("unknown", "exactness: " + "; ".join(unknown[:3]), engine="z3")
    best = {}
    for key, t, where in conds:
        if key not in best or (t is not None and t < best[key][0]):
            best[key] = (t, where)
    tight = [f"{k} <= {t} ({w})" if t is not None else f"{k} <= 2^24 ({w})" for k, (t, w) in best.items()]
    msg = f"exactness: all {len(seen)} bounded results of both forms are exact in f32"
    if tight:
        msg += "; conditions: " + ", ".join(tight)
    return Decided("proved", msg, engine="z3")


def small_int_ranges(program: ir.Program) -> list:
    """The ranges of the oracle's `--inputs small-int` mode: every global tensor an integer in
    [-8, 8]."""
    names = tuple(t.name for t in program.tensors if t.memory in ("global", "constant"))
    return [InputRange(names, Fraction(-8), Fraction(8), 0, "inputs * int in [-8, 8]")]


def bitwise_expected(program: ir.Program, kernel: str, sizes: dict, ranges: list | None = None,
                     timeout: float = 5.0):
    """True when every Winograd site of `kernel` (before its schedule) is exact at these sizes
    for inputs in `ranges` (default: small-int), so the oracle may demand bitwise equality;
    False when refuted; None when unknown or there is no site."""
    import dataclasses

    fixed = tuple(ir.Cmp("==", ir.Var(p), ir.Int(int(v))) for p, v in sizes.items())
    p = dataclasses.replace(program, constraints=program.constraints + fixed)
    q, minted, _ = rewrite_kernel(p, kernel)
    if not minted:
        return None
    ranges = ranges if ranges is not None else small_int_ranges(program)
    status = {exactness(p, q, kernel, m, ranges, timeout).status for m in minted}
    return True if status == {"proved"} else False if "refuted" in status else None


def exact_at(program: ir.Program, kernel: str, sizes: dict, inputs: str) -> bool:
    """The op's `exact_at` hook (`vsched run` asks the modules of a kernel's schedule ops):
    whether the Winograd form is proved exact, so bitwise equal to the direct form, at these
    sizes for the inputs drawn (`inputs`: the oracle's mode; small integers, or the file's
    declared `inputs` ranges). The oracle then demands bitwise equality, not the tolerance."""
    if inputs != "small-int" and not program.inputs:
        return False
    return bitwise_expected(program, kernel, sizes, list(program.inputs) or None) is True
