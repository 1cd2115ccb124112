"""The interpreter's expression translators (`interpreter.Compiler` calls them): closures
`f(env, st)` built once per run, every operation the semantics table's evaluation.

- `IntClosure(cp)(e)`: exact integer evaluation (index and size positions, integer-typed
  comparisons and floor/mod: the table's `index` rows, Python ints);
- `ValueClosure(cp)(e, T)`: a value in compute type T (`interp_scalar.Num`, whose operations
  are the table's rows), operand by operand, or a condition compared in T (None: in the
  table's `compare_type` of its operands).

`cp` is the compiler: its `int`, `value`, `cond`, `load`, `is_int` and `widest` are the hooks.
"""
from __future__ import annotations

import operator

from ..core.errors import InternalError
from ..core.expr_mapper import ExprMapper, register
from .closures import binary, lazy_and, lazy_or, unary
from .scalar import COMPUTE, NUMS, KernelError, read_scalar, to_storage
from ..core.semantics import CMPS, ROWS, row_of

_NOT_INTEGER = "not an integer expression"


@register
class IntClosure(ExprMapper):
    DECLINED = {r.method: _NOT_INTEGER for r in ROWS.values()
                if r.kind in ("cmp", "cast") and r.symbol != "i32" or r.name in ("div", "fma", "exp", "log", "sqrt", "tanh", "erf", "rsqrt", "pow")}

    def __init__(self, cp):
        self.cp = cp

    def declined(self, e, reason: str, *args, **kwargs):
        raise KernelError(f"{reason}: {e!r}", getattr(e, "loc", None))

    def not_integer(self, e):
        return self.declined(e, _NOT_INTEGER)

    map_float = map_and = map_or = map_not = map_boolconst = not_integer
    map_binop = map_call = map_floordiv = map_mod = map_cast = map_cmp = ExprMapper.map_row

    def map_int(self, e):
        v = e.value
        return lambda env, st: v

    def map_var(self, e):
        n = e.name
        return lambda env, st: env[n]

    def binop_add(self, e):
        return binary(row_of(e).ev["index"], self.cp.int(e.a), self.cp.int(e.b))

    binop_sub = binop_mul = binop_add

    def node_floordiv(self, e):
        fa, c = self.cp.int(e.a), e.divisor
        return lambda env, st: fa(env, st) // c

    def node_mod(self, e):
        fa, c = self.cp.int(e.a), e.divisor
        return lambda env, st: fa(env, st) % c

    def fn_min(self, e):
        return binary(row_of(e).ev["index"], *[self.cp.int(x) for x in e.args])

    fn_max = fn_min

    def fn_neg(self, e):
        return unary(row_of(e).ev["index"], self.cp.int(e.args[0]))

    fn_abs = fn_relu = fn_neg

    def map_where(self, e):
        fc, fa, fb = self.cp.cond(e.cond, None), self.cp.int(e.a), self.cp.int(e.b)
        return lambda env, st: fa(env, st) if fc(env, st) else fb(env, st)

    def map_load(self, e):
        return self.cp.value(e, NUMS["i32"])  # a dynamic index: the cell as int32

    cast_i32 = map_load


@register
class ValueClosure(ExprMapper):
    def __init__(self, cp):
        self.cp = cp

    map_binop = map_call = map_cast = map_cmp = ExprMapper.map_row

    def map_int(self, e, T):
        c = T.const(e.value)
        return lambda env, st: c

    map_float = map_int

    def map_var(self, e, T):
        n, conv = e.name, T.conv
        return lambda env, st: conv(env[n])

    def binop_add(self, e, T):
        return binary(getattr(T, row_of(e).name), self.cp.value(e.a, T), self.cp.value(e.b, T))

    binop_sub = binop_mul = binop_div = binop_add

    def map_floordiv(self, e, T):
        if self.cp.is_int(e):  # integer first (int64 in C), then converted
            fi, conv = self.cp.int(e), T.conv
            return lambda env, st: conv(fi(env, st))
        return self.map_row(e, T)

    map_mod = map_floordiv

    def node_floordiv(self, e, T):  # in T (the table's row)
        fa, op, k = self.cp.value(e.a, T), row_of(e).ev[T.name], e.divisor
        return lambda env, st: op(fa(env, st), k)

    node_mod = node_floordiv

    def fn(self, e, T):
        fs = [self.cp.value(x, T) for x in e.args]
        op = getattr(T, e.fn)
        if len(fs) == 1:
            return unary(op, fs[0])
        if len(fs) == 2:
            return binary(op, *fs)
        f0, f1, f2 = fs
        return lambda env, st: op(f0(env, st), f1(env, st), f2(env, st))

    fn_min = fn_max = fn_fma = fn_neg = fn_exp = fn_log = fn_sqrt = fn_relu = fn_abs = fn
    fn_tanh = fn_erf = fn_rsqrt = fn_pow = fn

    def map_where(self, e, T):
        fc, fa, fb = self.cp.cond(e.cond, T), self.cp.value(e.a, T), self.cp.value(e.b, T)
        return lambda env, st: fa(env, st) if fc(env, st) else fb(env, st)

    def cast(self, e, T):
        p, conv = e.prec, T.conv
        fa, rnd, back = self.cp.value(e.a, NUMS[COMPUTE[p]]), to_storage(p), read_scalar(p)
        return lambda env, st: conv(back(rnd(fa(env, st))))

    cast_f16 = cast_bf16 = cast_f32 = cast_f64 = cast_i32 = cast

    def map_load(self, e, T):
        fl, conv = self.cp.load(e), T.conv
        return lambda env, st: conv(fl(env, st))

    # conditions
    def map_boolconst(self, c, T):
        v = c.value
        return lambda env, st: v

    def map_not(self, c, T):
        return unary(operator.not_, self.cp.cond(c.a, T))

    def map_and(self, c, T):
        return lazy_and(self.cp.cond(c.a, T), self.cp.cond(c.b, T))

    def map_or(self, c, T):
        return lazy_or(self.cp.cond(c.a, T), self.cp.cond(c.b, T))

    def cmp(self, c, T):
        """Comparisons of integer operands are exact, others compare in T (or, in a
        statement-level `if`, in the table's compare type of the operands)."""
        op = CMPS[c.op].ev["index"]
        if self.cp.is_int(c.a) and self.cp.is_int(c.b):
            fa, fb = self.cp.int(c.a), self.cp.int(c.b)
        else:
            U = T or NUMS[self.cp.widest(c)]
            fa, fb = self.cp.value(c.a, U), self.cp.value(c.b, U)
        return binary(op, fa, fb)

    cmp_lt = cmp_le = cmp_gt = cmp_ge = cmp_eq = cmp_ne = cmp


CONDITIONS = ("Cmp", "And", "Or", "Not", "BoolConst")


def check_value(e) -> None:
    if type(e).__name__ in CONDITIONS:
        raise InternalError(f"cannot evaluate {e!r}")


def check_condition(c) -> None:
    if type(c).__name__ not in CONDITIONS:
        raise InternalError(f"cannot evaluate condition {c!r}")
