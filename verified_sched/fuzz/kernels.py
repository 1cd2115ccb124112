"""Random well-formed kernels and programs (the generator behind `programs` and `kernels_for`).

Every access is in bounds for every size satisfying the constraints (tensor dims are derived
from the accesses, or guarded with `idx < dim` in `kernels_for`), so generated kernels can be
run. See `verified_sched.fuzz.strategies` for the documented entry points.
"""
from __future__ import annotations

import dataclasses
import functools

from hypothesis import strategies as st

from ..core import ir
from ..ops.fuzz_names import FLOATS, LOOP_NAMES, PARAM_NAMES, SAFE_FUNCS, TENSOR_NAMES, aff_add as _aff_add, aff_expr, aff_max as _aff_max
from .records import op_records, schedules_for

# ---------------------------------------------------------------- kernel generation


class _Gen:
    """Draws one kernel. Loops know an affine upper bound of their iterator (`maxval`), so
    every index form below has a known affine bound of its values plus one."""

    def __init__(self, draw, params, ranks, precs, opts, fixed_dims=None):
        self.draw = draw
        self.params = params
        self.ranks = ranks  # tensor -> rank
        self.precs = precs  # tensor -> precision
        self.opts = opts
        self.fixed = fixed_dims  # tensor -> dims (kernels_for): guard instead of deriving
        self.bounds: dict = {t: [None] * r for t, r in ranks.items()}
        self.maxval: dict = {}
        self.loops_left = 0
        self.names = iter(LOOP_NAMES)
        self.guards: list = []  # in-bounds guards needed by the statement being built

    # ---- indices

    def index(self, scope, tensor, dim) -> ir.Expr:
        d = self.draw
        loops = [v for v, _ in scope]
        forms = ["const"] + (["affine", "affine", "sum", "rev", "floor", "mod", "min", "max", "param"]
                             if loops else [])
        if self.opts["dynamic"] and self.idx_tensors and d(st.integers(0, 4)) == 0:
            forms.append("dynamic")
        form = d(st.sampled_from(forms))
        v = d(st.sampled_from(loops)) if loops else None
        mv = self.maxval.get(v, {})
        match form:
            case "const":
                c = d(st.integers(0, 2))
                e, bound = ir.Int(c), {1: c + 1}
            case "affine":
                a, off = d(st.integers(1, 3)), d(st.integers(0, 2))
                e = ir.Var(v) if a == 1 else ir.BinOp("*", ir.Int(a), ir.Var(v))
                e = ir.BinOp("+", e, ir.Int(off)) if off else e
                bound = _aff_add({k: c * a for k, c in mv.items()}, {1: off + 1})
            case "sum":
                w = d(st.sampled_from(loops))
                e, bound = ir.BinOp("+", ir.Var(v), ir.Var(w)), _aff_add(mv, self.maxval[w], {1: 1})
            case "rev":
                e, bound = ir.BinOp("-", aff_expr(mv), ir.Var(v)), _aff_add(mv, {1: 1})
            case "floor":
                e, bound = ir.FloorDiv(ir.Var(v), d(st.integers(2, 3))), _aff_add(mv, {1: 1})
            case "mod":
                c = d(st.integers(2, 4))
                e, bound = ir.Mod(ir.Var(v), c), {1: c}
            case "min":
                w = d(st.sampled_from(loops))
                e, bound = ir.Call("min", (ir.Var(v), ir.Var(w))), _aff_add(_aff_max(mv, self.maxval[w]), {1: 1})
            case "max":
                c = d(st.integers(1, 2))
                e = ir.Call("max", (ir.BinOp("-", ir.Var(v), ir.Int(c)), ir.Int(0)))
                bound = _aff_add(mv, {1: 1})
            case "param":
                p = d(st.sampled_from(self.params))
                e, bound = ir.BinOp("+", ir.Var(v), ir.Var(p)), _aff_add(mv, {p: 1}, {1: 1})
            case "dynamic":
                t = d(st.sampled_from(self.idx_tensors))
                c = d(st.integers(1, 4))
                inner = ir.Load(t, tuple(self.index(scope, t, k) for k in range(self.ranks[t])))
                e, bound = ir.Mod(inner, c), {1: c}
            case _:
                raise ValueError(f"unknown index form {form!r}")
        if self.fixed is not None:  # every form is >= 0: guard the upper end only
            top = ir.Int(bound[1] - 1) if form in ("mod", "dynamic") else e
            self.guards.append(ir.Cmp("<", top, self.fixed[tensor][dim]))
        else:
            old = self.bounds[tensor][dim]
            self.bounds[tensor][dim] = bound if old is None else _aff_max(old, bound)
        return e

    def load(self, scope, tensor) -> ir.Load:
        return ir.Load(tensor, tuple(self.index(scope, tensor, k) for k in range(self.ranks[tensor])))

    # ---- scalars and conditions

    def scalar(self, scope, depth: int) -> ir.Expr:
        d = self.draw
        kinds = ["load", "load", "float", "int"] + (["var"] if scope else [])
        if depth > 0:
            kinds += ["bin", "bin", "call", "where", "cast"]
        match d(st.sampled_from(kinds)):
            case "load":
                return self.load(scope, d(st.sampled_from(self.value_tensors)))
            case "float":
                return ir.Float(d(st.sampled_from(FLOATS)))
            case "int":
                return ir.Int(d(st.integers(-3, 4)))
            case "var":
                return ir.Var(d(st.sampled_from([v for v, _ in scope] + list(self.params))))
            case "bin":
                op = d(st.sampled_from("+-*/"))
                a = self.scalar(scope, depth - 1)
                if op == "/":
                    return ir.BinOp("/", a, ir.Float(d(st.sampled_from((2.0, 4.0, 0.5)))))
                return ir.BinOp(op, a, self.scalar(scope, depth - 1))
            case "call":
                fn = d(st.sampled_from(self.opts["funcs"]))
                return ir.Call(fn, tuple(self.scalar(scope, depth - 1) for _ in range(ir.FUNCS[fn])))
            case "where":
                return ir.Where(self.cond(scope, 1), self.scalar(scope, depth - 1), self.scalar(scope, depth - 1))
            case _:
                prec = d(st.sampled_from(ir.FLOAT_PRECISIONS))
                return ir.Cast(prec, self.scalar(scope, depth - 1))

    def cond(self, scope, depth: int) -> ir.Cond:
        d = self.draw
        op = d(st.sampled_from(ir.CMPOPS))
        kinds = ["affine"] if scope else []
        if self.opts["data_guards"] or not scope:
            kinds.append("data")
        if depth > 0:
            kinds += ["and", "or", "not"]
        match d(st.sampled_from(kinds)):
            case "affine":
                v = d(st.sampled_from([v for v, _ in scope]))
                lhs = d(st.sampled_from([ir.Var(v), ir.Mod(ir.Var(v), 2),
                                         ir.BinOp("+", ir.Var(v), ir.Var(scope[0][0]))]))
                rhs = d(st.sampled_from([ir.Int(d(st.integers(0, 3))), ir.Var(d(st.sampled_from(self.params))),
                                         ir.BinOp("-", ir.Var(self.params[0]), ir.Int(1))]))
                return ir.Cmp(op, lhs, rhs)
            case "data":
                return ir.Cmp(op, self.load(scope, d(st.sampled_from(self.value_tensors))),
                              ir.Float(d(st.sampled_from((0.0, 0.5, -1.0)))))
            case "and":
                return ir.And(self.cond(scope, depth - 1), self.cond(scope, depth - 1))
            case "or":
                return ir.Or(self.cond(scope, depth - 1), self.cond(scope, depth - 1))
            case _:
                return ir.Not(self.cond(scope, depth - 1))

    # ---- statements

    def assign(self, scope) -> ir.Stmt:
        d = self.draw
        self.guards = []
        target = d(st.sampled_from(self.out_tensors))
        lhs = self.load(scope, target)
        e = self.scalar(scope, 2)
        match d(st.sampled_from(("plain", "plain", "+", "*", "max", "min", "fma"))):
            case "plain":
                value = e
            case "+" | "*" as op:
                value = ir.BinOp(op, lhs, e)
            case "max" | "min" as fn:
                value = ir.Call(fn, (lhs, e))
            case _:
                value = ir.Call("fma", (e, self.scalar(scope, 1), lhs))
        stmt = ir.Assign(target, lhs.index, value)
        return self.guarded(stmt)

    def guarded(self, stmt):
        """Wrap in the in-bounds guards collected for it (kernels_for only)."""
        guards, self.guards = self.guards, []
        return ir.If(functools.reduce(ir.And, guards), (stmt,)) if guards else stmt

    def bound(self, scope) -> tuple:
        """(lo, hi, maxval) of a new loop: never empty for sizes meeting the constraints."""
        d = self.draw
        p = d(st.sampled_from(self.params))
        choices = ["param", "param_plus", "const", "scaled"] + (["tri"] if scope else [])
        lo = d(st.sampled_from((0, 0, 0, 1)))
        match d(st.sampled_from(choices)):
            case "param":
                hi, mv = ir.Var(p), {p: 1, 1: -1}
            case "param_plus":
                c = d(st.integers(1, 3))
                hi, mv = ir.BinOp("+", ir.Var(p), ir.Int(c)), {p: 1, 1: c - 1}
            case "const":
                c = d(st.integers(1, 5))
                hi, mv = ir.Int(c), {1: c - 1}
            case "scaled":
                hi, mv = ir.BinOp("*", ir.Int(2), ir.Var(p)), {p: 2, 1: -1}
            case _:
                u = d(st.sampled_from([v for v, _ in scope]))
                hi, mv = ir.BinOp("+", ir.Var(u), ir.Int(1)), dict(self.maxval[u])
                lo = 0
        if lo:
            hi, mv = ir.BinOp("+", hi, ir.Int(lo)), _aff_add(mv, {1: lo})
        return ir.Int(lo), hi, mv

    def block(self, scope, top: bool, ifs: int = 0) -> list:
        d = self.draw
        out = []
        n = d(st.integers(1, 2))
        for _ in range(n):
            self.stmts_left -= 1
            kinds = ["assign"] + (["loop", "loop"] if self.loops_left > 0 else [])
            if scope and ifs < 2 and self.stmts_left > 0:
                kinds.append("if")
            axes = [a for _, a in scope]
            if (self.opts["parallel"] and any(a.startswith("block.") for a in axes)
                    and "vectorized" not in axes):
                kinds.append("barrier")
            if top and self.loops_left > 0:
                kinds = ["loop"]
            elif self.stmts_left <= 0:
                kinds = ["assign"]
            match d(st.sampled_from(kinds)):
                case "assign":
                    out.append(self.assign(scope))
                case "barrier":
                    out.append(ir.Barrier())
                case "if":
                    self.guards = []
                    c = self.cond(scope, 1)
                    guards, self.guards = self.guards, []
                    then = tuple(self.block(scope, False, ifs + 1))
                    orelse = tuple(self.block(scope, False, ifs + 1)) if d(st.booleans()) else ()
                    self.guards = guards
                    out.append(self.guarded(ir.If(c, then, orelse)))
                case _:
                    out.append(self.loop(scope))
        return out

    def loop(self, scope) -> ir.For:
        d = self.draw
        self.loops_left -= 1
        var = next(self.names)
        lo, hi, mv = self.bound(scope)
        axes = ("serial", "serial", "unrolled") + (ir.AXES[1:] if self.opts["parallel"] else ())
        axis = d(st.sampled_from(axes))
        if ir.is_hardware(axis) and lo != ir.Int(0):
            axis = "serial"
        self.maxval[var] = mv
        body = self.block(scope + ((var, axis),), False)
        return ir.For(var, lo, hi, axis, tuple(body))

    def kernel(self, name: str) -> ir.Kernel:
        d = self.draw
        self.loops_left = d(st.integers(1, self.opts["max_loops"]))
        self.stmts_left = 8
        body = []
        if d(st.booleans()):
            body.append(ir.Zero(d(st.sampled_from(self.out_tensors))))
        while self.loops_left > 0:
            body += self.block((), True)
        if d(st.integers(0, 3)) == 0:  # a statement outside every loop
            body.append(self.assign(()))
        return number(ir.Kernel(name, tuple(body)))


def number(kernel: ir.Kernel) -> ir.Kernel:
    """Statement ids S0, S1, ... in source order and identity provenance, as the parser does."""
    counter = iter(range(1 << 30))

    def stmts(body, loops):
        return tuple(stmt(s, loops) for s in body)

    def stmt(s, loops):
        match s:
            case ir.For():
                return dataclasses.replace(s, body=stmts(s.body, loops + (s.var,)))
            case ir.If():
                then = stmts(s.then, loops)
                return dataclasses.replace(s, then=then, orelse=stmts(s.orelse, loops))
            case ir.TensorCore():
                return dataclasses.replace(s, fallback=stmts(s.fallback, loops))
            case ir.Assign():
                prov = tuple((v, ir.Var(v)) for v in loops)
                return dataclasses.replace(s, sid=f"S{next(counter)}", provenance=prov)
        return s

    return dataclasses.replace(kernel, body=stmts(kernel.body, ()))


# ---------------------------------------------------------------- entry points

_DEFAULTS = dict(max_loops=4, parallel=False, dynamic=False, funcs=SAFE_FUNCS, data_guards=True)


def _opts(**kw) -> dict:
    opts = dict(_DEFAULTS)
    opts.update(kw)
    return opts


@st.composite
def programs(draw, max_tensors: int = 3, max_loops: int = 4, kernels: int = 1,
             precisions: tuple = ir.PRECISIONS, parallel: bool = False, dynamic: bool = False,
             funcs: tuple = SAFE_FUNCS, data_guards: bool = True, pad: bool = True,
             constant: bool = False, profile: bool = False, schedule: str | None = None):
    """A well-formed Program whose accesses are in bounds for all admissible sizes.

    `schedule`: None (no schedule), "loops" (schedules_for: ops over the kernel's loops) or
    "any" (op_records: every op kind, meaningless names; for parser round trips).
    `constant`: read-only tensors may live in constant memory. `profile`: draw a profile line.
    """
    params = PARAM_NAMES[:draw(st.integers(1, 3))]
    constraints = tuple(ir.Cmp(">=", ir.Var(p), ir.Int(draw(st.sampled_from((1, 1, 2))))) for p in params)
    names = TENSOR_NAMES[:draw(st.integers(1, max_tensors))]
    ranks = {t: draw(st.integers(1, 3)) for t in names}
    precs = {t: draw(st.sampled_from(precisions)) for t in names}
    n_out = draw(st.integers(1, max(1, len(names) - 1)))
    outs = names[len(names) - n_out:]
    idx = ()
    if dynamic:
        idx = ("idx",)
        ranks["idx"], precs["idx"] = 1, "i32"
    opts = _opts(max_loops=max_loops, parallel=parallel, dynamic=dynamic, funcs=funcs,
                 data_guards=data_guards)
    bounds: dict = {t: [None] * r for t, r in ranks.items()}
    ks = []
    for n in range(kernels):
        gen = _Gen(draw, params, ranks, precs, opts)
        gen.bounds, gen.out_tensors, gen.value_tensors, gen.idx_tensors = bounds, outs, names, idx
        ks.append(gen.kernel(f"kern{n}"))
    written = {s.tensor for s in ir.walk(tuple(ks)) if isinstance(s, (ir.Assign, ir.Zero))}
    tensors = []
    for t in names + idx:
        dims = tuple(aff_expr(b) if b is not None else ir.Var(params[0]) for b in bounds[t])
        pads = tuple(draw(st.sampled_from((0, 0, 0, 1, 3))) for _ in dims) if pad else ()
        memory = "global"
        if constant and t not in written and draw(st.booleans()):
            memory = "constant"
        tensors.append(ir.Tensor(t, dims, precs[t], memory, pads))
    program = ir.Program(params, constraints, draw(st.sampled_from((None,) + ir.PROFILES)) if profile else None,
                         tuple(tensors), tuple(ks))
    if schedule is not None:
        scheds = []
        for k in ks:
            if schedule == "loops":
                ops = draw(schedules_for(program, k.name))
            else:
                ops = tuple(draw(st.lists(op_records(params), max_size=4)))
            scheds.append(ir.Schedule(k.name, ops))
        program = dataclasses.replace(program, schedules=tuple(scheds))
    if kernels >= 2 and draw(st.booleans()):
        program = dataclasses.replace(program, claims=(ir.Claim(ks[0].name, ks[1].name),))
    return program


@st.composite
def kernels_for(draw, program: ir.Program, name: str = "extra", max_loops: int = 3,
                parallel: bool = False, dynamic: bool = False, funcs: tuple = SAFE_FUNCS,
                data_guards: bool = True):
    """A kernel over `program`'s params and tensors (not added to it). Accesses are kept in
    bounds by `if` guards `idx < dim` around the statements, so sizes need `P >= 1` only
    for the loop bounds' sake (every index form is non-negative)."""
    tensors = {t.name: t for t in program.tensors}
    writable = tuple(n for n, t in tensors.items() if t.memory != "constant")
    if not program.params or not writable:
        raise ValueError("kernels_for needs a program with a parameter and a writable tensor")
    opts = _opts(max_loops=max_loops, parallel=parallel, dynamic=dynamic, funcs=funcs,
                 data_guards=data_guards)
    gen = _Gen(draw, tuple(program.params), {n: t.rank for n, t in tensors.items()},
               {n: t.prec for n, t in tensors.items()}, opts, fixed_dims={n: t.dims for n, t in tensors.items()})
    gen.out_tensors, gen.value_tensors = writable, tuple(tensors)
    gen.idx_tensors = tuple(n for n, t in tensors.items() if t.prec == "i32")
    return gen.kernel(name)
