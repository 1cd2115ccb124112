"""The C spelling of expressions (the C backend and its subclasses: CUDA, the emulator, the
checked oracle build): two translators over the semantics table, `IndexC` (an int64 C
expression: index arithmetic, integer comparisons) and `ScalarC` (a C expression of a compute
type, conditions included). Each returns (text, precedence level). They work for an emitter
(`codegen.c.KernelEmitter`) whose hooks they call: `raw_load` (the checked and emulated builds
check offsets there), `index`, `scalar`, `_cond` and `convert`.

Typing is the table's: `semantics.integer_typed` (exact integers in int64) and
`semantics.compare_type` (a statement-level comparison of other operands).
"""
from __future__ import annotations

import math

import numpy as np

from verified_sched.core import ir, semantics
from verified_sched.core.expr_mapper import ExprMapper, IndexMapper, register
from verified_sched.core.semantics import ROWS

from verified_sched.core.dtypes import C_COMPUTE

ATOM, UNARY, MUL, ADD, REL, EQ, AND, OR, COND = 100, 90, 80, 70, 60, 55, 40, 30, 20
BIN_LEVEL = {"+": ADD, "-": ADD, "*": MUL, "/": MUL}
CMP_LEVEL = {"<": REL, "<=": REL, ">": REL, ">=": REL, "==": EQ, "!=": EQ}
SUFFIX = {"float": "f32", "double": "f64", "int32_t": "i32"}

C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern
float for goto if inline int long register restrict return short signed sizeof static struct
switch typedef union unsigned void volatile while _Bool _Complex _Imaginary _Alignas _Alignof
_Atomic _Generic _Noreturn _Static_assert _Thread_local _Float16 bool true false main
int32_t int64_t uint16_t uint32_t size_t memset memcpy malloc free NAN INFINITY""".split())


def cname(name: str) -> str:
    """A user identifier as a C identifier: C keywords and our own `vs_` prefix are mangled."""
    if name in C_KEYWORDS or name.startswith("vs_"):
        return "vs_u_" + name
    return name


def par(tp, need: int) -> str:
    text, level = tp
    return text if level >= need else f"({text})"


def neg(tp: tuple) -> tuple:
    inner = par(tp, UNARY)
    return (f"-({inner})" if inner.startswith("-") else f"-{inner}", UNARY)


def int_lit(v: int) -> tuple:
    text = str(v) if -(2**31) < v < 2**31 else f"INT64_C({v})"
    return (text, UNARY if v < 0 else ATOM)


def float_literal(v: float, ctype: str) -> tuple:
    """An exact C literal of the value v rounded to ctype (float literals via the double)."""
    if math.isnan(v):
        return ("NAN", ATOM) if ctype == "float" else ("(double)NAN", UNARY)
    if math.isinf(v):
        text = "INFINITY" if ctype == "float" else "(double)INFINITY"
        return ("-" + text, UNARY) if v < 0 else (text, ATOM if ctype == "float" else UNARY)
    text = repr(v)
    if ctype == "double":
        return (text, UNARY if v < 0 or text.startswith("-") else ATOM)
    with np.errstate(over="ignore"):
        exact = float(np.float32(v)) == v
    if exact:  # exactly representable: the decimal rounds straight to it
        text = text if ("." in text or "e" in text) else text + ".0"
        return (text + "f", UNARY if text.startswith("-") else ATOM)
    return (f"(float){v.hex()}", UNARY)


def is_int_expr(e, program: ir.Program) -> bool:
    """Integer-typed expressions (the semantics table's one rule) are exact, in int64."""
    return semantics.integer_typed(e, lambda t: program.tensor(t).prec)


CTYPE = {"f64": "double", "f32": "float", "i32": "int32_t"}


def widest(program: ir.Program, node) -> str:
    """The compute type of a statement-level data-dependent comparison (the table's rule)."""
    return CTYPE[semantics.compare_type(node, lambda t: program.tensor(t).prec)]



_NOT_INDEX = IndexMapper.NOT_INDEX
CONDITION_KINDS = (ir.Cmp, ir.And, ir.Or, ir.Not, ir.BoolConst)


@register
class IndexC(IndexMapper):
    """`IndexC(em)(e)`: an int64 C expression of an integer-typed expression."""

    DECLINED = {r.method: _NOT_INDEX for r in ROWS.values()
                if r.kind == "cast" and r.symbol != "i32" or r.name in ("div", "fma", "exp", "log", "sqrt", "tanh", "erf", "rsqrt", "pow")}
    DECLINED.update({r.method: "a condition is not an index expression" for r in ROWS.values() if r.kind == "cmp"})

    def __init__(self, em):
        self.em = em

    def map_int(self, e):
        return int_lit(e.value)

    def map_var(self, e):
        return (cname(e.name), ATOM)

    def map_load(self, e):
        return (f"(int64_t){par(self.em.scalar(e, 'int32_t'), UNARY)}", UNARY)

    def cast_i32(self, e):
        return (f"(int64_t){par(self.em.scalar(e.a, 'int32_t'), UNARY)}", UNARY)

    def map_where(self, e):
        return (f"{par(self.em._cond(e.cond, None), OR)} ? {self.em.index(e.a)[0]} : "
                f"{par(self.em.index(e.b), COND)}", COND)

    def binop_add(self, e):
        lv = BIN_LEVEL[e.op]  # integer + and * associate: no parentheses on the right
        return (f"{par(self.em.index(e.a), lv)} {e.op} {par(self.em.index(e.b), lv + (e.op == '-'))}", lv)

    binop_sub = binop_mul = binop_add

    def node_floordiv(self, e):
        return (f"vs_floordiv({self.em.index(e.a)[0]}, {e.divisor})", ATOM)

    def node_mod(self, e):
        return (f"vs_mod({self.em.index(e.a)[0]}, {e.divisor})", ATOM)

    def fn_min(self, e):
        a, b = e.args
        return (f"vs_{e.fn}_i64({self.em.index(a)[0]}, {self.em.index(b)[0]})", ATOM)

    fn_max = fn_min

    def fn_neg(self, e):
        return neg(self.em.index(e.args[0]))

    def fn_abs(self, e):
        return (f"vs_abs_i64({self.em.index(e.args[0])[0]})", ATOM)

    def fn_relu(self, e):
        return (f"vs_max_i64({self.em.index(e.args[0])[0]}, 0)", ATOM)


@register
class ScalarC(ExprMapper):
    """`ScalarC(em)(e, ct)`: a C expression of compute type ct ('float', 'double' or
    'int32_t'), or of a condition compared in ct (None: a statement-level condition)."""

    def __init__(self, em):
        self.em = em

    map_binop = map_call = map_cmp = map_cast = ExprMapper.map_row

    def s(self, e, ct):
        return self.em.scalar(e, ct)

    def map_int(self, e, ct):
        v = e.value
        if ct == "int32_t":
            return int_lit(int(np.int64(v).astype(np.int32)))
        return float_literal(float(v), ct) if abs(v) < 2**53 else self.em.convert(int_lit(v), "int64_t", ct)

    def map_float(self, e, ct):
        v = e.value
        if ct != "int32_t":
            return float_literal(v, ct)
        return int_lit(int(np.int64(int(v)).astype(np.int32)) if math.isfinite(v) else 0)

    def map_var(self, e, ct):
        return self.em.convert((cname(e.name), ATOM), "int64_t", ct)

    def binop_add(self, e, ct):
        lv = BIN_LEVEL[e.op]
        return (f"{par(self.s(e.a, ct), lv)} {e.op} {par(self.s(e.b, ct), lv + 1)}", lv)

    binop_sub = binop_mul = binop_add

    def binop_div(self, e, ct):
        if ct == "int32_t":
            return (f"vs_div_i32({self.s(e.a, ct)[0]}, {self.s(e.b, ct)[0]})", ATOM)
        return self.binop_add(e, ct)

    def map_floordiv(self, e, ct):
        if is_int_expr(e, self.em.program):
            return self.em.convert(self.em.index(e), "int64_t", ct)
        return self.map_row(e, ct)

    map_mod = map_floordiv

    def _floor(self, e, ct):
        x, k = par(self.s(e.a, ct), MUL), self.s(ir.Int(e.divisor), ct)[0]
        q = {"float": f"floorf({x} / {k})", "double": f"floor({x} / {k})",
             "int32_t": f"(int32_t)vs_floordiv({x}, {k})"}[ct]
        return x, k, q

    def node_floordiv(self, e, ct):
        return (self._floor(e, ct)[2], ATOM)

    def node_mod(self, e, ct):
        x, k, q = self._floor(e, ct)
        return (f"{x} - {k} * {q}", ADD)

    def fn_min(self, e, ct):
        a, b = e.args
        return (f"vs_{e.fn}_{SUFFIX[ct]}({self.s(a, ct)[0]}, {self.s(b, ct)[0]})", ATOM)

    fn_max = fn_min

    def fn_relu(self, e, ct):
        zero = self.s(ir.Int(0), ct)[0]
        return (f"vs_max_{SUFFIX[ct]}({self.s(e.args[0], ct)[0]}, {zero})", ATOM)

    def fn_neg(self, e, ct):
        return neg(self.s(e.args[0], ct))

    def fn_fma(self, e, ct):
        a, b, c = e.args
        if ct == "int32_t":
            return (f"{par(self.s(a, ct), MUL)} * {par(self.s(b, ct), MUL + 1)} + "
                    f"{par(self.s(c, ct), ADD + 1)}", ADD)
        fn = "fmaf" if ct == "float" else "fma"
        return (f"{fn}({self.s(a, ct)[0]}, {self.s(b, ct)[0]}, {self.s(c, ct)[0]})", ATOM)

    def fn_abs(self, e, ct):
        return (f"vs_abs_{SUFFIX[ct]}({self.s(e.args[0], ct)[0]})", ATOM)

    def fn_exp(self, e, ct):
        if ct == "int32_t":  # no integer transcendental: go through double
            return (f"(int32_t){e.fn}({self.s(e.args[0], 'double')[0]})", UNARY)
        return (f"{e.fn}{'f' if ct == 'float' else ''}({self.s(e.args[0], ct)[0]})", ATOM)

    fn_log = fn_sqrt = fn_tanh = fn_erf = fn_exp

    def fn_rsqrt(self, e, ct):  # 1 / sqrt(a): two roundings, as the semantics table says
        if ct == "int32_t":
            return (f"(int32_t)(1.0 / sqrt({self.s(e.args[0], 'double')[0]}))", UNARY)
        sfx = "f" if ct == "float" else ""
        one = "1.0f" if ct == "float" else "1.0"
        return (f"{one} / sqrt{sfx}({self.s(e.args[0], ct)[0]})", MUL)

    def fn_pow(self, e, ct):
        if ct == "int32_t":
            return (f"(int32_t)pow({self.s(e.args[0], 'double')[0]}, {self.s(e.args[1], 'double')[0]})", UNARY)
        sfx = "f" if ct == "float" else ""
        return (f"pow{sfx}({self.s(e.args[0], ct)[0]}, {self.s(e.args[1], ct)[0]})", ATOM)

    def map_where(self, e, ct):
        return (f"{par(self.em._cond(e.cond, ct), OR)} ? {self.s(e.a, ct)[0]} : "
                f"{par(self.s(e.b, ct), COND)}", COND)

    def cast(self, e, ct):
        p = e.prec
        inner_ct = C_COMPUTE[p]
        tp = self.s(e.a, inner_ct)
        if p == "f16":
            tp = (f"vs_h2f(vs_f2h({tp[0]}))", ATOM)
        elif p == "bf16":
            tp = (f"vs_bf2f(vs_f2bf({tp[0]}))", ATOM)
        return self.em.convert(tp, inner_ct, ct)

    cast_f16 = cast_bf16 = cast_f32 = cast_f64 = cast_i32 = cast

    def map_load(self, e, ct):
        prec = self.em.program.tensor(e.tensor).prec
        raw = self.em.raw_load(e)
        if prec == "f16":
            raw = (f"vs_h2f({raw[0]})", ATOM)
        elif prec == "bf16":
            raw = (f"vs_bf2f({raw[0]})", ATOM)
        return self.em.convert(raw, C_COMPUTE[prec], ct)

    # conditions (ct None: a statement-level condition)
    def map_boolconst(self, c, ct):
        return ("1" if c.value else "0", ATOM)

    def map_not(self, c, ct):
        return (f"!{par(self.em._cond(c.a, ct), UNARY)}", UNARY)

    def map_and(self, c, ct):
        return (f"{par(self.em._cond(c.a, ct), AND)} && {par(self.em._cond(c.b, ct), AND + 1)}", AND)

    def map_or(self, c, ct):
        return (f"{par(self.em._cond(c.a, ct), OR)} || {par(self.em._cond(c.b, ct), OR + 1)}", OR)

    def cmp(self, c, ct):
        lv = CMP_LEVEL[c.op]
        if is_int_expr(c.a, self.em.program) and is_int_expr(c.b, self.em.program):
            x, y = self.em.index(c.a), self.em.index(c.b)
        else:
            t = ct if ct is not None else widest(self.em.program, c)
            x, y = self.em.scalar(c.a, t), self.em.scalar(c.b, t)
        return (f"{par(x, lv)} {c.op} {par(y, lv + 1)}", lv)

    cmp_lt = cmp_le = cmp_gt = cmp_ge = cmp_eq = cmp_ne = cmp

