"""Integer ranges: index arithmetic fits the backends' int64 for admitted sizes.

The verifier reasons over unbounded integers; the C, CUDA and emulator backends compute every
loop bound, index expression, integer comparison and integer floor/mod in int64. So:

- every integer literal of a program fits int64 (the lexer rejects others, a parse error);
- **admitted sizes**: the constraints hold, every parameter lies in [-SIZE_BOUND, SIZE_BOUND]
  (SIZE_BOUND = 2^31 - 1) and every global tensor's storage is under 2^63 bytes (it could not
  be allocated otherwise);
- `prove(program, kernel)` (part of the `in_bounds` obligation): for all admitted sizes, every
  loop bound, index expression (each subexpression), integer comparison and integer floor/mod
  of the kernel, and every shared/local tensor's cell count, lies in int64. Decided by
  interval arithmetic (sound: iterators range over their loops' bounds, guards ignored). When
  the intervals do not show it, a corner of the parameter box that satisfies the constraints
  and fails `check_concrete` is the counterexample (`vsched run` at those sizes refuses with
  the same message); none found is `unknown`. Flat offsets need no check of their own: an
  in-bounds access's row-major offset is below its tensor's cell count;
- `check_concrete(program, sizes)` (called by `verified_sched.analysis.sizes.check_sizes`, so `run`
  and `exec` refuse such sizes with a usage error): the same walk at the given sizes, plus the
  storage-size bound of every global tensor.
"""
from __future__ import annotations

import itertools
import math

from ..core import ir
from ..core.counterexample import Counterexample, Instance
from ..core.errors import UsageError
from ..core.expr_mapper import ExprMapper, register
from ..core.semantics import ROWS, integer_typed, row_of
from .linear_index import known_form

INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
I32 = (-(2 ** 31), 2 ** 31 - 1)
SIZE_BOUND = 2 ** 31 - 1
STATEMENT = (f"forall admitted sizes (constraints, every parameter |P| <= {SIZE_BOUND}): every loop bound, "
             "index expression, integer comparison and shared/local cell count fits int64")
_ITEMSIZE = {"f32": 4, "f64": 8, "i32": 4, "f16": 2, "bf16": 2}


class Overflow(Exception):
    def __init__(self, expr, lo: int, hi: int, where: str):
        super().__init__(where)
        self.expr, self.lo, self.hi, self.where = expr, lo, hi, where

    def text(self) -> str:
        from ..core.printer import expr_text

        value = self.hi if self.hi > INT64_MAX else self.lo
        return f"{self.where}: {expr_text(self.expr)} can reach {value}, outside int64"


def _fit(e, lo: int, hi: int, where: str) -> tuple:
    if lo < INT64_MIN or hi > INT64_MAX:
        raise Overflow(e, lo, hi, where)
    return lo, hi


@register
class Interval(ExprMapper):
    """(lo, hi) of an int64 expression by the semantics table's interval rules; Overflow if it
    or a subexpression leaves int64. A row without an interval rule (real division, fma,
    exp/log/sqrt, casts) has its int64 parts checked (`value`) and the whole int64 range."""

    DECLINED = {r.method: "no interval rule" for r in ROWS.values()
                if r.interval is None or r.kind in ("cast", "cmp")}

    def __init__(self, env: dict, where: str, prec: dict):
        self.env, self.where, self.prec = env, where, prec

    def __call__(self, e, *args):
        if isinstance(e, int) and not isinstance(e, bool):
            return _fit(e, e, e, self.where)
        return super().__call__(e, *args)

    def declined(self, e, reason: str, *args, **kwargs):
        value(e, self.env, self.where, self.prec)
        return INT64_MIN, INT64_MAX

    def unsupported(self, e, *args, **kwargs):
        return self.declined(e, "no interval")

    map_float = map_cmp = map_and = map_or = map_not = map_boolconst = unsupported

    def map_int(self, e):
        return _fit(e, e.value, e.value, self.where)

    def map_var(self, e):
        return self.env[e.name] if e.name in self.env else (INT64_MIN, INT64_MAX)

    def map_where(self, e):
        condition(e.cond, self.env, self.where, self.prec)
        x, y = self(e.a), self(e.b)
        return min(x[0], y[0]), max(x[1], y[1])

    def map_load(self, e):
        for x in e.index:
            self(x)
        return I32  # an i32 cell widened to int64

    def map_cast(self, e):
        value(e, self.env, self.where, self.prec)
        return I32

    def _rule(self, e, *operands):
        return _fit(e, *row_of(e).interval(*operands), self.where)

    def binop(self, e):
        return self._rule(e, self(e.a), self(e.b))

    binop_add = binop_sub = binop_mul = binop
    map_binop = map_call = map_floordiv = map_mod = ExprMapper.map_row

    def fn(self, e):
        return self._rule(e, *[self(x) for x in e.args])

    fn_min = fn_max = fn_neg = fn_abs = fn_relu = fn

    def node(self, e):
        return self._rule(e, self(e.a), e.divisor)

    node_floordiv = node_mod = node


def interval(e, env: dict, where: str, prec: dict) -> tuple:
    """(lo, hi) of an int64 expression; Overflow if it or a subexpression leaves int64."""
    if type(e) is ir.Int:  # (most loop bounds)
        return _fit(e, e.value, e.value, where)
    form = known_form(e)
    if form is not None:
        out = _sum_interval(form, env)
        if out is not None:
            return out
    return Interval(env, where, prec)(e)


def _sum_interval(form: tuple, env: dict):
    """The interval of a canonical sum of variables `c1*v1 + ... + k` (its recorded form,
    linear_index.known_form) when every subexpression of its render surely fits int64, else
    None (the tree walk decides and reports). Its render has only the literals |ci| (or -1, ci),
    the products ci*vi, partial sums and k: each is at most S = |k| + sum max(|ci|, |ci|*|vi|)
    in magnitude, so S <= INT64_MAX shows them all in int64. The interval is the one the walk
    computes: interval sums of the terms' intervals."""
    terms, const = form
    lo = hi = const
    bound = abs(const)
    for t, c in terms.items():
        iv = env.get(t.name)
        if iv is None:
            return None
        a, b = c * iv[0], c * iv[1]
        if a > b:
            a, b = b, a
        lo, hi = lo + a, hi + b
        bound += max(abs(c), abs(a), abs(b))
    return (lo, hi) if bound <= INT64_MAX else None


def _is_int(e, prec: dict) -> bool:
    """Integer-typed (the semantics table's one rule: the backends evaluate it in int64 where
    it is compared or floored)."""
    return integer_typed(e, prec.get)


def value(e, env: dict, where: str, prec: dict) -> None:
    """The int64 parts of a scalar expression: indices, integer floor/mod, integer comparisons."""
    match e:
        case ir.Load(index=index):
            for x in index:
                interval(x, env, where, prec)
        case ir.FloorDiv(a=a) | ir.Mod(a=a) if _is_int(a, prec):
            interval(e, env, where, prec)
        case ir.Where(cond=c, a=a, b=b):
            condition(c, env, where, prec)
            value(a, env, where, prec)
            value(b, env, where, prec)
        case ir.Node():
            for child in _children(e):
                value(child, env, where, prec)


def _children(e) -> list:
    import dataclasses

    out = []
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        for x in (v if isinstance(v, tuple) else (v,)):
            if isinstance(x, ir.Node):
                out.append(x)
    return out


def condition(c, env: dict, where: str, prec: dict) -> None:
    match c:
        case ir.Cmp(a=a, b=b):
            if _is_int(a, prec) and _is_int(b, prec):
                interval(a, env, where, prec)
                interval(b, env, where, prec)
            else:
                value(a, env, where, prec)
                value(b, env, where, prec)
        case ir.And(a=a, b=b) | ir.Or(a=a, b=b):
            condition(a, env, where, prec)
            condition(b, env, where, prec)
        case ir.Not(a=a):
            condition(a, env, where, prec)


def _walk(stmts, here: dict, kernel: str, prec: dict) -> None:
    """Every statement below `stmts` in pre-order (the order of `ir.walk_scoped`: a statement,
    then what is below it; an if's then branch before its else branch), `here` holding the
    intervals of the iterators enclosing them; the body of a loop that never runs is skipped.
    One call per statement list (a deep nest is walked once, no record per statement)."""
    for s in stmts:
        t = type(s)
        if t is ir.For:
            v, lo, hi = s.var, s.lo, s.hi
            where = f"kernel {kernel}: the bounds of loop {v}"
            a = (lo.value, lo.value) if type(lo) is ir.Int and INT64_MIN <= lo.value <= INT64_MAX \
                else interval(lo, here, where, prec)
            b = (hi.value, hi.value) if type(hi) is ir.Int and INT64_MIN <= hi.value <= INT64_MAX \
                else interval(hi, here, where, prec)
            if a[0] <= b[1] - 1:  # else the body never runs
                _walk(s.body, {**here, v: (a[0], b[1] - 1)}, kernel, prec)
        elif t is ir.If:
            condition(s.cond, here, f"kernel {kernel}: a condition", prec)
            _walk(s.then, here, kernel, prec)
            _walk(s.orelse, here, kernel, prec)
        elif t is ir.Assign:
            where = f"kernel {kernel}: an assignment to {s.tensor}"
            for i in s.index:
                interval(i, here, where, prec)
            value(s.value, here, where, prec)
        elif t is ir.TensorCore:
            _walk(s.fallback, here, kernel, prec)


def _tensors(program: ir.Program, env: dict, prec: dict) -> None:
    for t in program.tensors:
        where = f"the storage of tensor {t.name}"
        dims = t.storage_dims()
        for d in dims:
            interval(d, env, where, prec)
        if t.memory in ("shared", "local") and dims:
            count = dims[0]
            for d in dims[1:]:
                count = ir.BinOp("*", count, d)
            interval(count, env, f"the cell count of {t.memory} tensor {t.name}", prec)


def walk_program(program: ir.Program, kernel: str, env: dict) -> None:
    """Overflow at the first int64 expression that may leave int64 with parameters in `env`'s
    intervals."""
    prec = {t.name: t.prec for t in program.tensors}
    _tensors(program, env, prec)
    _walk(program.kernel(kernel).body, env, kernel, prec)


# ---------------------------------------------------------------- for all admitted sizes


def param_box(program: ir.Program) -> dict:
    """name -> (lo, hi): the admitted-size bound narrowed by `P op INT` constraints."""
    box = {p: [-SIZE_BOUND, SIZE_BOUND] for p in program.params}
    for c in program.constraints:
        if not isinstance(c, ir.Cmp):
            continue
        op, a, b = c.op, c.a, c.b
        if isinstance(a, ir.Int) and isinstance(b, ir.Var):
            op, a, b = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}[op], b, a
        if not (isinstance(a, ir.Var) and a.name in box and isinstance(b, ir.Int)):
            continue
        lo, hi = box[a.name]
        v = b.value
        lo = max(lo, {">=": v, ">": v + 1, "==": v}.get(op, lo))
        hi = min(hi, {"<=": v, "<": v - 1, "==": v}.get(op, hi))
        box[a.name] = [lo, hi]
    return {p: tuple(v) for p, v in box.items()}


def prove(program: ir.Program, kernel: str, corners: int = 1024):
    """(status, message, counterexample or None) of the int64 obligation of `kernel`."""
    box = param_box(program)
    if any(lo > hi for lo, hi in box.values()):
        return "proved", "no admitted size", None
    try:
        walk_program(program, kernel, box)
    except Overflow as exc:
        witness = _corner(program, kernel, box, corners)
        if witness is None:
            return "unknown", f"not shown for every admitted size: {exc.text()}", None
        params, why = witness
        sizes = ", ".join(f"{k}={v}" for k, v in params.items())
        return "refuted", f"index arithmetic overflows int64 at {sizes}: {why}", Counterexample(
            Instance(params), extra={"overflow": why})
    return "proved", f"index arithmetic stays within int64 (parameters |P| <= {SIZE_BOUND})", None


def _corner(program: ir.Program, kernel: str, box: dict, limit: int):
    """Parameters at corners of the box (constraints hold) where check_concrete refuses."""
    from verified_sched.core.dtypes import eval_cond  # the one evaluator (not via .sizes, which imports us)

    names = list(box)
    if 2 ** len(names) > limit:
        return None
    for combo in itertools.product(*[sorted({box[p][1], box[p][0]}, reverse=True) for p in names]):
        params = dict(zip(names, combo))
        try:
            if not all(eval_cond(c, params) for c in program.constraints):
                continue
        except UsageError:
            continue
        if _storage_problem(program, params) is not None:
            continue  # not an admitted size
        try:
            walk_program(program, kernel, {p: (v, v) for p, v in params.items()})
        except Overflow as exc:
            return params, exc.text()
    return None


# ---------------------------------------------------------------- at concrete sizes


def _storage_problem(program: ir.Program, sizes: dict):
    """Why a global tensor cannot exist at these sizes (2^63 bytes or more), else None."""
    env = {p: (int(v), int(v)) for p, v in sizes.items()}
    for t in program.tensors:
        if t.memory not in ("global", "constant"):
            continue
        try:
            shape = [interval(d, env, "", {})[0] for d in t.storage_dims()]
        except Overflow:
            return f"a dimension of tensor {t.name} leaves int64"
        cells = math.prod(max(d, 0) for d in shape)
        if cells * _ITEMSIZE[t.prec] > INT64_MAX:
            return f"tensor {t.name} would need {cells * _ITEMSIZE[t.prec]} bytes, beyond 2^63"
    return None


def check_concrete(program: ir.Program, sizes: dict) -> None:
    """UsageError when, at these sizes, some kernel's index arithmetic may leave int64 or a
    global tensor's storage reaches 2^63 bytes (`vsched run` and `exec` refuse such sizes)."""
    env = {p: (int(v), int(v)) for p, v in sizes.items()}
    given = ", ".join(f"{k}={v}" for k, v in sizes.items())
    problem = _storage_problem(program, sizes)
    if problem is not None:
        raise UsageError(f"sizes {given}: {problem}")
    for k in program.kernels:
        try:
            walk_program(program, k.name, env)
        except Overflow as exc:
            raise UsageError(f"sizes {given}: index arithmetic would overflow int64 in {exc.text()}") from None
