"""Claims over scatters with data-dependent rows (an embedding backward), by lifting the row.

The value comparison (verified_sched/values/claims_value.py) needs every index affine. A scatter
`t[..., X[a], ...] += e` (X an integer input neither kernel writes, `a` affine, the read a whole
index component; guards may test X[a] too) is lifted: it runs for every row r of t's
dimension as

    for r in 0 .. dim { if guards[X[a] := r] { t[..., r, ...] += e * SEL_X[a, r] } }

The instance whose r equals X[a] is the real one; the others add nothing. `SEL_X[a, r]` is a
marker leaf standing for that filter (never a value: the comparison matches term families
by structure and leaf cells, and reduction terms never go to z3). Each lifted cell's chain
then holds, for every r, the terms whose row may be r, each tagged with the X cell that
decides it. When the comparison proves the lifted kernels equal, every observable cell
receives the same multiset of (term, X cell, row) in the same order in both; keeping the
terms whose X cell holds that row is the same filter on both sides, so the real kernels
leave the same values for every value of X. The lifted guards must bound r within the
dimension (isl), so no real instance is left out of the lifted rows. Only "proved" carries
over: a lifted difference need not be a real one (the caller leaves it unknown, and a run
may refute the claim).
"""
from __future__ import annotations

import dataclasses

import islpy as isl

from verified_sched.core import ir
from .affine import NonAffine, aff, cond


class NoLift(Exception):
    """The kernel has a data-dependent part the lifting does not cover."""


def _dynamic(node) -> bool:
    """A read whose index reads data, or a condition or index that reads data."""
    return any(isinstance(n, ir.Load) for n in ir.walk(node))


def lifted_program(program: ir.Program, names: tuple):
    """(program with kernels `names` lifted and the SEL tensors declared, {X: SEL name}), or
    None when no statement needs lifting; raises NoLift where one cannot be lifted."""
    kernels = [program.kernel(n) for n in names]
    written = {n.tensor for k in kernels for n in ir.walk(k.body) if isinstance(n, (ir.Assign, ir.Zero))}
    lift = _Lifter(program, written)
    new = [dataclasses.replace(k, body=lift.stmts(k.body, ())) for k in kernels]
    if not lift.sel:
        return None
    taken = {k.name: k for k in new}
    kernels = tuple(taken.get(k.name, k) for k in program.kernels)
    return dataclasses.replace(program, tensors=program.tensors + tuple(lift.sel.values()), kernels=kernels), \
        {x: t.name for x, t in lift.sel.items()}


class _Lifter:
    def __init__(self, program: ir.Program, written: set):
        self.p, self.written = program, written
        self.sel = {}  # X -> declared SEL tensor
        self.count = 0
        self.names = {t.name for t in program.tensors} | set(program.params)

    def stmts(self, body: tuple, guards: tuple) -> tuple:
        out = []
        for s in body:
            if isinstance(s, ir.For):
                if _dynamic(s.lo) or _dynamic(s.hi):
                    raise NoLift("a loop bound reads data")
                out.append(dataclasses.replace(s, body=self.stmts(s.body, guards)))
            elif isinstance(s, ir.If) and _dynamic(s.cond):
                if s.orelse:
                    raise NoLift("a data-dependent condition with an else branch")
                out += self.stmts(s.then, guards + (s.cond,))  # X is never written: test it per statement
            elif isinstance(s, ir.If):
                out.append(dataclasses.replace(s, then=self.stmts(s.then, guards), orelse=self.stmts(s.orelse, guards)))
            elif isinstance(s, ir.Assign) and (guards or any(_dynamic(i) for n in ir.walk(s) if isinstance(n, ir.Load)
                                                             for i in n.index) or any(_dynamic(i) for i in s.index)):
                out.append(self.assign(s, guards))
            elif guards or (not isinstance(s, ir.Assign) and _dynamic(s)):
                raise NoLift("a statement other than a scatter under a data-dependent condition")
            else:
                out.append(s)
        return tuple(out)

    def row(self, e) -> bool:
        """A whole index component that reads an integer input neither kernel writes."""
        return (isinstance(e, ir.Load) and e.tensor not in self.written and self.p.tensor(e.tensor).prec == "i32"
                and not any(_dynamic(i) for i in e.index))

    def assign(self, s: ir.Assign, guards: tuple):
        acc = ir.accumulation(s)
        if acc is None or (isinstance(s.value, ir.Call) and s.value.fn == "fma"):
            raise NoLift(f"{s.sid} reads data in an index and is not an accumulation")
        rows = []
        for k, c in enumerate(s.index):
            if self.row(c):
                if c not in [r for r, _ in rows]:
                    rows.append((c, self.p.tensor(s.tensor).dims[k]))
            elif _dynamic(c):
                raise NoLift(f"{s.sid}: an index reads data other than as a whole component")
        if not rows:
            raise NoLift(f"{s.sid} is guarded by data but writes no data-dependent row")
        _, term = acc
        if _dynamic(tuple(i for n in ir.walk(term) if isinstance(n, ir.Load) for i in n.index)) \
                or any(r in list(ir.walk(term)) for r, _ in rows) \
                or any(isinstance(n, ir.Load) and n.tensor == s.tensor for n in ir.walk(term)):
            # (a term reading the accumulated tensor makes the statement a plain one for the
            # comparison, whose trees may go to z3: the marker must stay inside reduction terms)
            raise NoLift(f"{s.sid}: its term reads data in an index, the row or the accumulated tensor")
        sub = {}
        for load, _ in rows:
            self.count += 1
            name = f"lift_r{self.count}"
            while name in self.names:
                name += "_"
            sub[load] = ir.Var(name)

        def fn(n):
            return sub.get(n)
        new_guards = tuple(ir.rewrite(g, fn) for g in guards)
        if any(_dynamic(g) for g in new_guards):
            raise NoLift(f"{s.sid}: a guard reads data other than the row")
        for load, dim in rows:
            self._bounded(sub[load].name, dim, new_guards)
        mark = term
        for load, dim in rows:
            sel = self._sel(load.tensor, dim, self.p.tensor(s.tensor).prec)
            mark = ir.BinOp("*", mark, ir.Load(sel.name, tuple(load.index) + (sub[load],)))
        target = ir.Load(s.tensor, s.index)
        new_target = ir.Load(s.tensor, tuple(ir.rewrite(i, fn) for i in s.index))
        v = s.value
        if isinstance(v, ir.BinOp):
            value = ir.BinOp(v.op, new_target, mark) if v.a == target else ir.BinOp(v.op, mark, new_target)
        else:
            args = (new_target, mark) if v.args[0] == target else (mark, new_target)
            value = ir.Call(v.fn, args)
        out = dataclasses.replace(s, index=new_target.index, value=value)
        for g in reversed(new_guards):
            out = ir.If(g, (out,))
        for load, dim in reversed(rows):
            out = ir.For(sub[load].name, ir.Int(0), dim, "serial", (out,))
        return out

    def _sel(self, x: str, dim, prec: str) -> ir.Tensor:
        t = self.sel.get(x)
        if t is None:
            name = f"{x}_sel"
            while name in self.names:
                name += "_"
            self.names.add(name)
            t = ir.Tensor(name, tuple(self.p.tensor(x).dims) + (dim,), prec)
            self.sel[x] = t
        elif t.dims[-1] != dim or t.prec != prec:
            raise NoLift(f"rows of {x} index dimensions of different extents or precisions")
        return t

    def _bounded(self, r: str, dim, guards: tuple):
        """The guards (X[a] replaced by r) keep r within 0 .. dim, whatever the other values."""
        free = sorted({n.name for g in guards + (dim,) for n in ir.walk(g) if isinstance(n, ir.Var)} | {r})
        names = {v: f"v{k}" for k, v in enumerate(free)}
        tup = ", ".join(names.values())
        try:
            text = " and ".join(f"({cond(g, names)})" for g in guards) or "true"
            inside = isl.Set(f"{{ [{tup}] : 0 <= {names[r]} < {aff(dim, names)} }}")
            where = isl.Set(f"{{ [{tup}] : {text} }}")
        except (NonAffine, isl.Error) as exc:
            raise NoLift(f"the guards of a row are not affine once it is lifted ({exc})") from None
        if not where.is_subset(inside):
            raise NoLift("the guards do not keep a data-dependent row within its dimension")


def decide(ma, mb, profile: str, timeout: float, compare) -> list:
    """`compare(ma, mb, profile, timeout)` (claims_value's comparison) on the lifted kernels
    where a statement reads data in an index or a guard, else on the kernels themselves. A
    lifted answer other than proved is unknown (module docstring)."""
    from verified_sched.core.obligations import Decided
    from .model import KernelModel
    names = (ma.kernel.name, mb.kernel.name)
    if all(ma.is_exact(st) for st in ma.stmts) and all(mb.is_exact(st) for st in mb.stmts):
        return compare(ma, mb, profile, timeout)
    try:
        lifted = lifted_program(ma.program, names)
    except NoLift:
        lifted = None
    if lifted is None:
        return compare(ma, mb, profile, timeout)
    program, sel = lifted
    out = compare(KernelModel(program, names[0], tag=ma.tag), KernelModel(program, names[1], tag=mb.tag),
                  profile, timeout)
    rows = ", ".join(sorted(sel))
    if all(d.status == "proved" for _, d in out):
        return [(kind, dataclasses.replace(d, message=f"{d.message} (for every value of {rows}: the data-dependent "
                                                      "rows lifted)")) for kind, d in out]
    bad = next(d for _, d in out if d.status != "proved")
    return [("equivalence", Decided("unknown", f"not decided by value: with the data-dependent rows of {rows} "
                                               f"lifted, {bad.message}", out[0][1].statement))]
