"""The interpreter's fast path: a loop whose iterations are independent runs all of them at
once, its variable bound to a numpy array of iteration values (one lane per iteration).

Why it keeps the interpreter's semantics bitwise:

- Independence (`independent`, a conservative syntactic test): inside the loop, every access
  (read or write) of a tensor the loop writes uses one and the same index tuple, and one
  dimension of it is `a * v + f` with `a != 0`, `v` the loop variable and `f` free of `v`,
  of the loop's inner iterators and of memory reads. Two different iterations then touch
  disjoint cells of every tensor written, so no iteration reads or writes a cell another one
  writes, and running them in lockstep (each statement instance for every lane at once, in
  the body's order) computes what running them one after another computes. A reduction
  over the loop itself (`s += x[v]`) fails the test and stays scalar; a matmul vectorizes
  its `j` loop and keeps each cell's `k` accumulation in order.
- Arithmetic: each lane does the scalar path's operations, in its order, in the same numpy
  dtype (float32 for f32/f16/bf16, float64 for f64), with the same rounding to storage; only
  operations whose numpy array form is bitwise the scalar form are accepted (+ - * /, min,
  max, abs, neg, relu, sqrt, casts between float types). Anything else (i32 arithmetic, exp,
  log, fma, `where`, an inner loop bound depending on the lane, a dynamic index,
  barriers, tensor-core blocks, inner vectorized or hardware loops, which draw random orders)
  makes the loop run on the scalar path (`NoVector` at compile time).
- An `if` whose (integer, read-free) condition depends on the lane splits the lanes: those
  where it holds run the then-branch, then the others the else-branch.
- An index out of storage is the same KernelError, naming the first lane that fails at the
  first statement where one does (memory written by other lanes before it may differ from a
  scalar run that stopped earlier; the run has failed either way).
"""
from __future__ import annotations

import numpy as np

from ..core import ir
from .closures import ARITH, binary, connective, integer, reader, unary, writer
from .scalar import COMPUTE, NUMS, Num, bounds_checker
from ..analysis.linear_form import LinearForm

FLOAT_DTYPE = {"f32": np.float32, "f64": np.float64}
_CMP = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
        "!=": np.not_equal}


_LANE_PICK = {"min": lambda a, b: np.minimum(a, b)[()], "max": lambda a, b: np.maximum(a, b)[()]}


def _lanes(op):
    """A combinator of two mask closures through the lane-wise `op` (both sides evaluated)."""
    return lambda fa, fb: binary(op, fa, fb)


class NoVector(Exception):
    """This loop cannot run on the vector path (compile time): use the scalar one."""


# ---------------------------------------------------------------- independence


def _linear(e, var: str, banned: set):
    """The coefficient of `var` in `e` if `e` is a*var + f with f free of `var`, of `banned`
    names and of reads; None otherwise (the semantics table's linear-form rules, a subtree
    free of `var` an opaque atom)."""
    def opaque(x) -> bool:
        return not (var in ir.free_vars(x) or ir.free_vars(x) & banned or ir.reads(x))

    if opaque(e):
        return 0
    form = LinearForm(lambda x: f"<{id(x)}>" if not isinstance(x, ir.Int) and opaque(x) else None)(e)
    if form is None or set(form[0]) & banned:
        return None
    return form[0].get(var, 0)


def independent(loop: ir.For) -> bool:
    """Whether no iteration of `loop` reads or writes a cell another iteration writes
    (sufficient, syntactic: see the module docstring)."""
    var = loop.var
    inner = {n.var for n in ir.nodes_of(loop.body, ir.For)}
    index = {}
    for n in ir.walk(loop.body):
        if isinstance(n, (ir.Zero, ir.TensorCore, ir.Barrier)):
            return False
        if isinstance(n, ir.Assign):
            if index.setdefault(n.tensor, n.index) != n.index:
                return False
    for n in ir.walk(loop.body):
        if isinstance(n, ir.Load) and n.tensor in index and n.index != index[n.tensor]:
            return False
    for idx in index.values():
        if any(ir.reads(e) for e in idx):
            return False
        if not any(_linear(e, var, inner) not in (None, 0) for e in idx):
            return False
    return True


# ---------------------------------------------------------------- vector compiler


def _read(prec: str):
    match prec:
        case "f32" | "f64":
            return lambda v: v
        case "f16":
            return lambda v: np.asarray(v).astype(np.float32)[()]
        case "bf16":
            return lambda v: (np.asarray(v).astype(np.uint32) << np.uint32(16)).view(np.float32)[()]
    raise NoVector(prec)


def _bf16(v):
    u = np.asarray(v, dtype=np.float32).view(np.uint32).astype(np.int64)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
    return np.where(nan, (u >> 16) | 0x40, rounded).astype(np.uint16)[()]


def _store(prec: str):
    match prec:
        case "f32":
            return lambda v: np.asarray(v).astype(np.float32)[()]
        case "f64":
            return lambda v: np.asarray(v).astype(np.float64)[()]
        case "f16":
            return lambda v: np.asarray(v).astype(np.float32).astype(np.float16)[()]
        case "bf16":
            return _bf16
    raise NoVector(prec)


def lane_minimum(a, b):
    """IEEE 754-2019 minimum on lanes, as the semantics table's `min` row and the C helpers: a NaN
    operand gives the canonical quiet NaN, -0 < +0."""
    nan = np.result_type(a, b).type(np.nan)
    pick = (a < b) | ((a == b) & np.signbit(a))
    return np.where((a != a) | (b != b), nan, np.where(pick, a, b))[()]


def lane_maximum(a, b):
    """IEEE 754-2019 maximum on lanes (see lane_minimum)."""
    nan = np.result_type(a, b).type(np.nan)
    pick = (a > b) | ((a == b) & ~np.signbit(a))
    return np.where((a != a) | (b != b), nan, np.where(pick, a, b))[()]


def _lane_abs(a):
    """The semantics table's abs on lanes: a < 0 ? -a : a (so abs(-0.0) is -0.0, as in C)."""
    return np.where(a < 0, -a, a)



class VectorCompiler:
    """Closures `f(env, st)` over a loop body where env[var] is an int64 array of lanes."""

    def __init__(self, comp, var: str, bounds, where):
        self.comp, self.var, self.bounds, self.where = comp, var, bounds, where

    def depends(self, node) -> bool:
        return self.var in ir.free_vars(node)

    # ------------------------------------------------------------ statements

    def stmts(self, body):
        fns = [self.stmt(s) for s in body]

        def run(env, st):
            for f in fns:
                f(env, st)
        return run

    def stmt(self, s):
        match s:
            case ir.For(axis=("serial" | "unrolled")):
                if self.depends(s.lo) or self.depends(s.hi) or ir.reads(s.lo) or ir.reads(s.hi):
                    raise NoVector("inner loop bounds depend on the lane")
                flo, fhi, body, v = self.comp.int(s.lo), self.comp.int(s.hi), self.stmts(s.body), s.var

                def loop(env, st):
                    for i in range(flo(env, st), fhi(env, st)):
                        env[v] = i
                        body(env, st)
                    env.pop(v, None)
                return loop
            case ir.If(cond=c, then=then, orelse=orelse):
                if ir.reads(c):
                    raise NoVector("a condition reads memory")
                ft, fe = self.stmts(then), self.stmts(orelse)
                if not self.depends(c):
                    fc = self.comp.cond(c, None)
                    return lambda env, st: (ft if fc(env, st) else fe)(env, st)
                return self.masked(self.mask(c), ft, fe)
            case ir.Assign():
                return self.comp.gated(self.assign(s), self.where)
        raise NoVector(f"statement {type(s).__name__}")

    def masked(self, fm, ft, fe):
        """A lane-dependent `if`: the lanes where it holds run the then-branch, the others the
        else-branch (lanes are independent, so the two groups may run one after the other)."""
        var = self.var

        def run(env, st):
            lanes = env[var]
            m = np.broadcast_to(np.asarray(fm(env, st), dtype=bool), lanes.shape)
            if m.all():
                ft(env, st)
                return
            if m.any():  # a branch no lane takes is not run at all (its reads could be outside)
                env[var] = lanes[m]
                ft(env, st)
            env[var] = lanes[~m]
            fe(env, st)
            env[var] = lanes
        return run

    def mask(self, c):
        """A condition over integers as a boolean per lane (no memory reads, nothing lazy)."""
        f = connective(c, self.mask, np.logical_not, _lanes(np.logical_and), _lanes(np.logical_or))
        if f is not None:
            return f
        match c:
            case ir.Cmp(op=op, a=a, b=b) if self.comp.is_int(a) and self.comp.is_int(b):
                return binary(_CMP[op], self.int(a), self.int(b))
        raise NoVector(f"lane-dependent condition {type(c).__name__}")

    def assign(self, s: ir.Assign):
        prec = self.comp.prec[s.tensor]
        if COMPUTE[prec] == "i32":
            raise NoVector("integer arithmetic")
        T = NUMS[COMPUTE[prec]]
        return writer(s.tensor, [self.int(x) for x in s.index], self.bounds, s.loc, self.value(s.value, T),
                      _store(prec))

    # ------------------------------------------------------------ expressions

    def int(self, e):
        f = integer(e, self.int, _LANE_PICK)
        if f is None:
            raise NoVector(f"index {type(e).__name__}")
        return f

    def value(self, e, T: Num):
        dtype = FLOAT_DTYPE[T.name]
        match e:
            case ir.Int(value=v) | ir.Float(value=v):
                c = T.const(v)
                return lambda env, st: c
            case ir.Var(name=n):
                return lambda env, st: np.asarray(env[n]).astype(dtype)[()]
            case ir.BinOp(op=("+" | "-" | "*" | "/") as op, a=a, b=b):
                return binary(ARITH[op], self.value(a, T), self.value(b, T))
            case ir.FloorDiv() | ir.Mod():
                fi = self.int(e)
                return lambda env, st: np.asarray(fi(env, st)).astype(dtype)[()]
            case ir.Call(fn=("min" | "max" | "relu") as fn, args=args):
                fs = [self.value(x, T) for x in args]
                if fn == "relu":
                    (f0,), zero = fs, T.zero
                    return lambda env, st: lane_maximum(f0(env, st), zero)
                return binary(lane_minimum if fn == "min" else lane_maximum, *fs)
            case ir.Call(fn=("neg" | "abs" | "sqrt") as fn, args=(a,)):
                fa = self.value(a, T)
                op = {"neg": np.negative, "abs": _lane_abs, "sqrt": np.sqrt}[fn]
                return unary(lambda v: op(v)[()], fa)
            case ir.Cast(prec=p, a=a) if p != "i32":
                inner = NUMS[COMPUTE[p]]
                fa, rnd, back = self.value(a, inner), _store(p), _read(p)
                return lambda env, st: np.asarray(back(rnd(fa(env, st)))).astype(dtype)[()]
            case ir.Load(tensor=t, index=index):
                prec = self.comp.prec[t]
                if COMPUTE[prec] == "i32":
                    raise NoVector("integer load")
                if any(ir.reads(x) for x in index):
                    raise NoVector("dynamic index")
                read = _read(prec)
                return reader(t, [self.int(x) for x in index], self.bounds, e.loc,
                              lambda v: np.asarray(read(v)).astype(dtype)[()])
        raise NoVector(f"expression {type(e).__name__}")


def vector_bounds(params):
    """The bounds check of the vector path: the scalar check on the first failing lane."""
    scalar = bounds_checker(params)

    def check(name, cell, shape, env, st, loc):
        bad = None
        for i, n in zip(cell, shape):
            if isinstance(i, np.ndarray):
                if not i.size or (i.min() >= 0 and i.max() < n):  # two reductions: no lane outside
                    continue
                out = (i < 0) | (i >= n)
                if out.any():
                    k = int(np.argmax(out))
                    bad = k if bad is None else min(bad, k)
            elif not 0 <= i < n:
                bad = 0
        if bad is None:
            return
        lane_env = {k: (int(v[bad]) if isinstance(v, np.ndarray) else v) for k, v in env.items()}
        lane_cell = tuple(int(i[bad]) if isinstance(i, np.ndarray) else i for i in cell)
        scalar(name, lane_cell, shape, lane_env, st, loc)
    return check


def compile_loop(comp, s: ir.For, where, bounds, shuffle):
    """A vectorized runner for loop `s` (NoVector if it cannot be one): all iterations at once,
    in lockstep; a `vectorized` loop still draws its random order (so the random stream stays
    the scalar path's)."""
    if s.axis not in ("serial", "unrolled", "vectorized") or not independent(s):
        raise NoVector("not independent")
    if any(isinstance(n, ir.For) and n.axis not in ("serial", "unrolled") for n in ir.walk(s.body)):
        raise NoVector("inner parallel loop")
    vc = VectorCompiler(comp, s.var, bounds, where)
    body = vc.stmts(s.body)
    flo, fhi, var, axis = comp.int(s.lo), comp.int(s.hi), s.var, s.axis

    def run(env, st):
        lo, hi = flo(env, st), fhi(env, st)
        if hi <= lo:
            return
        lanes = list(range(lo, hi))
        if axis == "vectorized":
            shuffle(st, lanes)
        env[var] = np.array(lanes, dtype=np.int64)
        body(env, st)
        env.pop(var, None)
    return run


def vector_runner(comp, s: ir.For, where, tick=None):
    """The vector runner of loop `s` for the interpreter's compiler `comp`, or None when the
    loop must run on the scalar path; `tick(n)` (progress) gets the iterations done."""
    try:
        fast = compile_loop(comp, s, where, vector_bounds(comp.params), lambda st, its: st.rng.shuffle(its))
    except NoVector:
        return None
    if tick is None:
        return fast
    flo, fhi = comp.int(s.lo), comp.int(s.hi)

    def ticked(env, st):
        fast(env, st)
        tick(max(0, fhi(env, st) - flo(env, st)))
    return ticked
