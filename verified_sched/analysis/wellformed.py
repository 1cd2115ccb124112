"""Well-formedness of a Program: names, arity, scoping, placement and index typing.

Run by the parser (so errors surface as ParseError at the offending node) and, in tests,
after every schedule op (so an op that builds a malformed kernel is caught at once).

Index positions (tensor indices, loop bounds, tensor dims, size constraints, partition
breakpoints) use the integer index language of the README's DSL section: integer literals, iterators
and parameters, + - and * with one constant side (affine), floor(e / c), e % c, min, max,
unary minus, and (in tensor indices only) reads of i32 tensors: dynamic indices.
"""
from __future__ import annotations

import operator

from ..core import ir
from ..core.errors import Loc, ParseError
from .linear_index import known_form


_NAME = operator.attrgetter("name")


def _err(msg: str, node, fallback: Loc | None = None) -> ParseError:
    loc = getattr(node, "loc", None) if node is not None else None
    return ParseError(msg, loc or fallback)


class _Checker:
    def __init__(self, program: ir.Program):
        self.program = program
        self.params = set(program.params)
        self.tensors = {t.name: t for t in program.tensors}
        self.fallback = program.loc

    # ---------------------------------------------------------------- index language

    def index(self, e, names: set, what: str, dynamic: bool) -> None:
        """Check an integer index expression whose variables must lie in `names`."""
        if type(e) is ir.Int:  # (most loop bounds)
            return
        form = known_form(e)  # a canonical render of a sum of variables: only its names to check
        if form is not None and names.issuperset(map(_NAME, form[0])):
            return
        match e:
            case ir.Int():
                return
            case ir.Float():
                raise _err(f"a float literal cannot appear in {what} (it must be an integer)", e, self.fallback)
            case ir.Var(name=n):
                if n not in names:
                    raise _err(self._unknown_var(n, what), e, self.fallback)
            case ir.BinOp(op="/"):
                raise _err(f"'/' is real division and cannot appear in {what}; use floor(e / c)", e, self.fallback)
            case ir.BinOp(op=op, a=a, b=b):
                self.index(a, names, what, dynamic)
                self.index(b, names, what, dynamic)
                if op == "*" and not (_constant(a) or _constant(b)):
                    raise _err(f"non-affine product in {what}: one factor must be a constant", e, self.fallback)
            case ir.FloorDiv(a=a) | ir.Mod(a=a):
                self.index(a, names, what, dynamic)
            case ir.Call(fn=("min" | "max" | "neg"), args=args):
                for x in args:
                    self.index(x, names, what, dynamic)
            case ir.Call(fn=fn):
                raise _err(f"'{fn}' cannot appear in {what}", e, self.fallback)
            case ir.Load(tensor=t):
                if not dynamic:
                    raise _err(f"a tensor read cannot appear in {what}", e, self.fallback)
                tensor = self.load(e, names)
                if tensor.prec != "i32":
                    raise _err(f"tensor '{t}' is {tensor.prec}: only i32 reads can be used as an index "
                               f"(in {what})", e, self.fallback)
            case ir.Cast() | ir.Where():
                raise _err(f"{type(e).__name__.lower()} cannot appear in {what}", e, self.fallback)
            case _:
                raise _err(f"not an expression: {e!r}", e, self.fallback)

    def _unknown_var(self, n: str, what: str) -> str:
        if what in ("a tensor dimension", "a size constraint", "a partition breakpoint"):
            return f"undeclared parameter '{n}' in {what}"
        if n in self.tensors:
            return f"tensor '{n}' used without an index in {what}"
        return f"undeclared name '{n}' in {what} (not a parameter or an iterator in scope)"

    def cond(self, c, names: set, what: str, data: bool) -> None:
        """A condition; `data` allows scalar (data-dependent) comparisons."""
        match c:
            case ir.Cmp(a=a, b=b):
                for x in (a, b):
                    if data:
                        self.scalar(x, names)
                    else:
                        self.index(x, names, what, dynamic=False)
            case ir.And(a=a, b=b) | ir.Or(a=a, b=b):
                self.cond(a, names, what, data)
                self.cond(b, names, what, data)
            case ir.Not(a=a):
                self.cond(a, names, what, data)
            case ir.BoolConst():
                return
            case _:
                raise _err(f"not a condition: {c!r}", c, self.fallback)

    # ---------------------------------------------------------------- scalars

    def load(self, e: ir.Load, names: set) -> ir.Tensor:
        tensor = self.tensors.get(e.tensor)
        if tensor is None:
            raise _err(f"unknown tensor '{e.tensor}'", e, self.fallback)
        if len(e.index) != tensor.rank:
            raise _err(f"tensor '{e.tensor}' has rank {tensor.rank} but is indexed with "
                       f"{len(e.index)} index(es)", e, self.fallback)
        for x in e.index:
            self.index(x, names, f"an index of '{e.tensor}'", dynamic=True)
        return tensor

    def scalar(self, e, names: set) -> None:
        match e:
            case ir.Int() | ir.Float():
                return
            case ir.Var(name=n):
                if n not in names:
                    raise _err(self._unknown_var(n, "an expression"), e, self.fallback)
            case ir.BinOp(a=a, b=b):
                self.scalar(a, names)
                self.scalar(b, names)
            case ir.FloorDiv(a=a) | ir.Mod(a=a) | ir.Cast(a=a):
                self.scalar(a, names)
            case ir.Call(args=args):
                for x in args:
                    self.scalar(x, names)
            case ir.Where(cond=c, a=a, b=b):
                self.cond(c, names, "a condition", data=True)
                self.scalar(a, names)
                self.scalar(b, names)
            case ir.Load():
                self.load(e, names)
            case _:
                raise _err(f"not an expression: {e!r}", e, self.fallback)

    # ---------------------------------------------------------------- statements

    def written(self, name: str, node) -> None:
        tensor = self.tensors.get(name)
        if tensor is None:
            raise _err(f"unknown tensor '{name}'", node, self.fallback)
        if tensor.memory == "constant":
            raise _err(f"tensor '{name}' is in constant memory and cannot be written", node, self.fallback)

    def stmts(self, body, loops: tuple = (), axes: tuple = (), names: set | None = None) -> None:
        """Check every statement below `body`, pre-order (the order of `ir.walk_scoped`: a
        statement, then what is below it; an if's then branch before its else branch; a
        tensor-core block's fallback), with the enclosing loops' names and axes, which grow
        by one per loop entered (one call per statement: a deep nest is walked once)."""
        if names is None:
            names = self.params | set(loops)
        for s in body:
            self.stmt(s, loops, axes, names)
            t = type(s)
            if t is ir.For:
                self.stmts(s.body, loops + (s.var,), axes + (s.axis,), names | {s.var})
            elif t is ir.If:
                self.stmts(s.then, loops, axes, names)
                self.stmts(s.orelse, loops, axes, names)
            elif t is ir.TensorCore:
                self.stmts(s.fallback, loops, axes, names)

    def stmt(self, s, loops: tuple, axes: tuple, names: set | None = None) -> None:
        """Check `s` itself (what is below it comes next in `stmts`' walk); `names`: the
        parameters and `loops`."""
        if names is None:
            names = self.params | set(loops)
        match s:
            case ir.For(var=v, lo=lo, hi=hi, axis=axis):
                if v in loops:
                    raise _err(f"loop iterator '{v}' shadows an enclosing loop of the same name", s, self.fallback)
                if v in self.params:
                    raise _err(f"loop iterator '{v}' shadows the parameter '{v}'", s, self.fallback)
                for b in (lo, hi):
                    if type(b) is not ir.Int:  # (a literal is a valid bound)
                        self.index(b, names, "a loop bound", dynamic=False)
                if ir.is_hardware(axis) and lo != ir.Int(0):
                    raise _err(f"{axis} loop '{v}' must start at 0", s, self.fallback)
            case ir.Assign(tensor=t, index=index, value=value):
                self.written(t, s)
                self.load(ir.Load(t, index, loc=s.loc), names)
                self.scalar(value, names)
            case ir.Zero(tensor=t):
                self.written(t, s)
            case ir.If(cond=c):
                self.cond(c, names, "a condition", data=True)
            case ir.Barrier():
                if not any(a.startswith("block.") for a in axes):
                    raise _err("barrier outside a block loop", s, self.fallback)
                if "vectorized" in axes:
                    raise _err("barrier under a vectorized loop", s, self.fallback)
            case ir.TensorCore(shape=shape):
                if not all(isinstance(x, int) and x > 0 for x in shape):
                    raise _err(f"tensor_core shape must be positive integers, got {shape}", s, self.fallback)
            case _:
                raise _err(f"not a statement: {s!r}", s, self.fallback)


def _constant(e) -> bool:
    """No iterator, parameter or tensor read anywhere below `e`."""
    return not ir.nodes_of(e, (ir.Var, ir.Load))


def check_kernel(program: ir.Program, kernel: ir.Kernel) -> None:
    """Raise ParseError (at the offending node) if `kernel` is not well formed in `program`."""
    checker = _Checker(program)
    checker.fallback = kernel.loc or program.loc
    checker.stmts(kernel.body)


def check_program(program: ir.Program) -> None:
    """Raise ParseError (at the offending node) if `program` is not well formed."""
    ck = _Checker(program)
    seen: set = set()
    for p in program.params:
        if p in seen:
            raise ParseError(f"parameter '{p}' declared twice", program.loc)
        seen.add(p)
    params = set(program.params)
    for c in program.constraints:
        ck.cond(c, params, "a size constraint", data=False)
    tensors: dict = {}
    for t in program.tensors:
        if t.name in tensors:
            raise _err(f"tensor '{t.name}' declared twice (first at {tensors[t.name].loc})", t, program.loc)
        if t.name in params:
            raise _err(f"tensor '{t.name}' has the name of a parameter", t, program.loc)
        tensors[t.name] = t
        for d in t.dims:
            ck.index(d, params, "a tensor dimension", dynamic=False)
    for r in program.inputs:
        for name in r.tensors:
            if name not in tensors:
                raise _err(f"inputs: unknown tensor '{name}'", r, program.loc)
    kernels: dict = {}
    for k in program.kernels:
        if k.name in kernels:
            raise _err(f"kernel '{k.name}' defined twice (first at {kernels[k.name].loc})", k, program.loc)
        kernels[k.name] = k
        check_kernel(program, k)
    scheduled: dict = {}
    for s in program.schedules:
        if s.kernel not in kernels:
            raise _err(f"schedule for unknown kernel '{s.kernel}'", s, program.loc)
        if s.kernel in scheduled:
            raise _err(f"kernel '{s.kernel}' has two schedules (first at {scheduled[s.kernel].loc})", s, program.loc)
        scheduled[s.kernel] = s
        for op in s.ops:
            for b in getattr(op, "breakpoints", None) or ():
                ck.index(b, params, "a partition breakpoint", dynamic=False)
    for c in program.claims:
        for name in (c.a, c.b):
            if name not in kernels:
                raise _err(f"claim names unknown kernel '{name}'", c, program.loc)
