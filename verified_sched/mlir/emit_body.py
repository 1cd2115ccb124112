"""The region of one linalg.generic: an assignment's value as arith/math ops.

The typing rules are the semantics table's (verified_sched/core/semantics.py), as the C backend's,
so IREE computes the same bits: the value is computed in the compute type of its target (f64
for f64, f32 for f32/f16/bf16, i32 for i32); loads, iterators and constants are converted to
it leaf by leaf; integer-typed subtrees (iterators, floor, mod, i32 reads where compared) are
exact integer arithmetic (`index`); a cast p(e) evaluates e in p's compute type, rounds to p
and converts back (f32 -> bf16 in integer ops, round to nearest even); float min/max/relu are
arith.minimumf/maximumf (IEEE 754-2019), abs is compare-and-select; i32 `/` truncates and
x/0 is 0. Two translators, `IndexMlir` and `ScalarMlir`, one method per table row.
"""
from __future__ import annotations

import numpy as np

from codegen.c import is_int_expr
from codegen.c_expr import CONDITION_KINDS
from verified_sched.core import ir
from verified_sched.core.errors import InternalError
from verified_sched.core.expr_mapper import ExprMapper, IndexMapper, register
from verified_sched.core.semantics import ROWS, compare_type

ELEM = {"f32": "f32", "f64": "f64", "f16": "f16", "bf16": "bf16", "i32": "i32"}
COMPUTE = {"f32": "f32", "f64": "f64", "f16": "f32", "bf16": "f32", "i32": "i32"}
_FLOAT_CMP = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}
_INT_CMP = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
_FBIN = {"+": "arith.addf", "-": "arith.subf", "*": "arith.mulf", "/": "arith.divf"}
_IBIN = {"+": "arith.addi", "-": "arith.subi", "*": "arith.muli"}


def const_text(value, ty: str) -> str:
    """An arith.constant attribute of type ty: floats as exact bit patterns."""
    if ty == "f32":
        return f"0x{int(np.float32(value).view(np.uint32)):08X} : f32"
    if ty == "f64":
        return f"0x{int(np.float64(value).view(np.uint64)):016X} : f64"
    if ty == "i32":
        return f"{int(np.int64(int(value)).astype(np.int32))} : i32"
    if ty in ("index", "i64"):
        return f"{int(value)} : {ty}"
    raise InternalError(f"constant of type {ty}")


class Body:
    """Emits the ops of one region; `leaves` maps each Load (keyed by itself) to (block
    argument, storage precision); `dims` maps an iterator to (linalg dim number, lower bound)."""

    def __init__(self, program: ir.Program, dims: dict, leaves: dict, prefix: str = "%v",
                 tensor_types: dict | None = None):
        self.program = program
        self.tensor_types = tensor_types or {}
        self.dims = dims
        self.leaves = leaves
        self.lines: list[str] = []
        self.prefix = prefix
        self.count = 0
        self.consts: dict = {}

    def op(self, text: str) -> str:
        name = f"{self.prefix}{self.count}"
        self.count += 1
        self.lines.append(f"{name} = {text}")
        return name

    def const(self, value, ty: str) -> str:
        key = (const_text(value, ty),)
        if key not in self.consts:
            self.consts[key] = self.op(f"arith.constant {key[0]}")
        return self.consts[key]

    # ------------------------------------------------------------ conversions
    def convert(self, v: str, src: str, dst: str) -> str:
        """C's conversion between compute types (f32, f64, i32) and i64 (index values)."""
        if src == dst:
            return v
        floats = ("f32", "f64")
        if src in floats and dst in floats:
            return self.op(f"arith.{'extf' if dst == 'f64' else 'truncf'} {v} : {src} to {dst}")
        if src in floats:
            return self.op(f"arith.fptosi {v} : {src} to {dst}")
        if dst in floats:
            return self.op(f"arith.sitofp {v} : {src} to {dst}")
        if src == "i64" and dst == "i32":
            return self.op(f"arith.trunci {v} : i64 to i32")
        if src == "i32" and dst == "i64":
            return self.op(f"arith.extsi {v} : i32 to i64")
        raise InternalError(f"conversion {src} -> {dst}")

    def storage_to_compute(self, v: str, prec: str) -> str:
        if prec == "bf16":  # exact: the bits shifted into the upper half of an f32
            wide = self.op(f"arith.extui {self.op(f'arith.bitcast {v} : bf16 to i16')} : i16 to i32")
            return self.op(f"arith.bitcast {self.op(f'arith.shli {wide}, {self.i32(16)} : i32')} : i32 to f32")
        if prec == "f16":
            return self.op(f"arith.extf {v} : {prec} to f32")
        return v

    def compute_to_storage(self, v: str, prec: str) -> str:
        if prec == "bf16":
            return self.f32_to_bf16(v)
        if prec == "f16":
            return self.op(f"arith.truncf {v} : f32 to {prec}")
        return v

    def i32(self, k: int) -> str:
        return self.op(f"arith.constant {k} : i32")

    def f32_to_bf16(self, v: str) -> str:
        """The semantics table's f32 -> bf16 (round to nearest even, a NaN kept quiet) in integer
        ops, as C's vs_f2bf: IREE 3.13's arith.truncf to bf16 drops the rounding when an extf
        follows and needs a runtime symbol (__truncsfbf2) the llvm-cpu target lacks."""
        u = self.op(f"arith.bitcast {v} : f32 to i32")
        magnitude = self.op(f"arith.andi {u}, {self.i32(0x7FFFFFFF)} : i32")
        nan = self.op(f"arith.cmpi ugt, {magnitude}, {self.i32(0x7F800000)} : i32")
        high = self.op(f"arith.shrui {u}, {self.i32(16)} : i32")
        odd = self.op(f"arith.andi {high}, {self.i32(1)} : i32")
        up = self.op(f"arith.addi {self.op(f'arith.addi {u}, {self.i32(0x7FFF)} : i32')}, {odd} : i32")
        rounded = self.op(f"arith.shrui {up}, {self.i32(16)} : i32")
        quiet = self.op(f"arith.ori {high}, {self.i32(0x40)} : i32")
        bits = self.op(f"arith.select {nan}, {quiet}, {rounded} : i32")
        return self.op(f"arith.bitcast {self.op(f'arith.trunci {bits} : i32 to i16')} : i16 to bf16")

    def index_to(self, v: str, ct: str) -> str:
        i64 = self.op(f"arith.index_cast {v} : index to i64")
        return self.convert(i64, "i64", ct)

    # ------------------------------------------------------------ index arithmetic
    def index(self, e) -> str:
        """An `index` value (C: int64; IndexMlir)."""
        return IndexMlir(self)(e)

    def scalar(self, e, ct: str) -> str:
        """A value of compute type ct ('f32', 'f64' or 'i32'; ScalarMlir)."""
        if isinstance(e, CONDITION_KINDS):
            raise InternalError(f"not a scalar expression: {e!r}")
        return ScalarMlir(self)(e, ct)

    def minmax(self, fn: str, x: str, y: str, ct: str) -> str:
        """The semantics table's min/max: i32 `a < b ? a : b`; floats IEEE 754-2019
        minimum/maximum, which is arith.minimumf/maximumf (-0 < +0, a NaN operand gives a NaN;
        the NaN's bits are the target's)."""
        if ct == "i32":
            c = self.op(f"arith.cmpi {'slt' if fn == 'min' else 'sgt'}, {x}, {y} : i32")
            return self.op(f"arith.select {c}, {x}, {y} : i32")
        return self.op(f"arith.{fn}imumf {x}, {y} : {ct}")

    def widest(self, node) -> str:
        return compare_type(node, lambda t: self.program.tensor(t).prec)

    def cond(self, c, ct) -> str:
        """An i1 value (ScalarMlir)."""
        if not isinstance(c, CONDITION_KINDS):
            raise InternalError(f"not a condition: {c!r}")
        return ScalarMlir(self)(c, ct)


_NOT_INDEX = IndexMapper.NOT_INDEX


@register
class IndexMlir(IndexMapper):
    """`IndexMlir(body)(e)`: the ops of an integer-typed expression as an `index` value."""

    DECLINED = {r.method: _NOT_INDEX for r in ROWS.values()
                if r.kind in ("cmp", "cast") and r.symbol != "i32" or r.name in ("div", "fma", "exp", "log", "sqrt", "tanh", "erf", "rsqrt", "pow")}

    def __init__(self, body: Body):
        self.b = body

    def map_int(self, e):
        return self.b.const(e.value, "index")

    def map_var(self, e):
        k, lo = self.b.dims[e.name]
        v = self.b.op(f"linalg.index {k} : index")
        return v if lo == 0 else self.b.op(f"arith.addi {v}, {self.b.const(lo, 'index')} : index")

    def binop_add(self, e):
        return self.b.op(f"{_IBIN[e.op]} {self.b.index(e.a)}, {self.b.index(e.b)} : index")

    binop_sub = binop_mul = binop_add

    def node_floordiv(self, e):
        return self.b.op(f"arith.floordivsi {self.b.index(e.a)}, {self.b.const(e.divisor, 'index')} : index")

    def node_mod(self, e):
        x, k = self.b.index(e.a), self.b.const(e.divisor, "index")
        q = self.b.op(f"arith.floordivsi {x}, {k} : index")
        return self.b.op(f"arith.subi {x}, {self.b.op(f'arith.muli {q}, {k} : index')} : index")

    def fn_min(self, e):
        a, b = e.args
        return self.b.op(f"arith.{e.fn}si {self.b.index(a)}, {self.b.index(b)} : index")

    fn_max = fn_min

    def fn_neg(self, e):
        return self.b.op(f"arith.subi {self.b.const(0, 'index')}, {self.b.index(e.args[0])} : index")

    def fn_abs(self, e):
        x = self.b.index(e.args[0])
        neg = self.b.op(f"arith.subi {self.b.const(0, 'index')}, {x} : index")
        return self.b.op(f"arith.maxsi {x}, {neg} : index")

    def fn_relu(self, e):
        return self.b.op(f"arith.maxsi {self.b.index(e.args[0])}, {self.b.const(0, 'index')} : index")

    def map_load(self, e):
        return self.b.op(f"arith.index_cast {self.b.scalar(e, 'i32')} : i32 to index")

    def cast_i32(self, e):
        return self.b.op(f"arith.index_cast {self.b.scalar(e.a, 'i32')} : i32 to index")

    def map_where(self, e):
        return self.b.op(f"arith.select {self.b.cond(e.cond, None)}, {self.b.index(e.a)}, "
                         f"{self.b.index(e.b)} : index")


@register
class ScalarMlir(ExprMapper):
    """`ScalarMlir(body)(e, ct)`: the ops of a value of compute type ct, or of a condition (an
    i1) compared in ct (None: a statement-level condition)."""

    def __init__(self, body: Body):
        self.b = body

    map_binop = map_call = map_cmp = map_cast = ExprMapper.map_row

    def s(self, e, ct):
        return self.b.scalar(e, ct)

    def map_int(self, e, ct):
        return self.b.const(float(e.value) if ct != "i32" else e.value, ct)

    def map_float(self, e, ct):
        v = e.value
        return self.b.const(v if ct != "i32" else (int(v) if np.isfinite(v) else 0), ct)

    def map_var(self, e, ct):
        return self.b.index_to(self.b.index(e), ct)

    def map_load(self, e, ct):
        if e not in self.b.leaves:
            raise InternalError(f"not a scalar expression: {e!r}")
        arg, prec = self.b.leaves[e]
        if arg == "extract":  # prec holds the SSA value of the whole tensor
            t = self.b.program.tensor(e.tensor)
            idx = ", ".join(self.b.index(i) for i in e.index)
            arg = self.b.op(f"tensor.extract {prec}[{idx}] : {self.b.tensor_types[e.tensor]}")
            prec = t.prec
        return self.b.convert(self.b.storage_to_compute(arg, prec), COMPUTE[prec], ct)

    def binop_add(self, e, ct):
        x, y = self.s(e.a, ct), self.s(e.b, ct)
        return self.b.op(f"{(_FBIN if ct != 'i32' else _IBIN)[e.op]} {x}, {y} : {ct}")

    binop_sub = binop_mul = binop_add

    def binop_div(self, e, ct):
        if ct != "i32":
            return self.binop_add(e, ct)
        x, y = self.s(e.a, ct), self.s(e.b, ct)
        zero, one = self.b.const(0, ct), self.b.const(1, ct)
        is0 = self.b.op(f"arith.cmpi eq, {y}, {zero} : i32")
        safe = self.b.op(f"arith.select {is0}, {one}, {y} : i32")
        q = self.b.op(f"arith.divsi {x}, {safe} : i32")
        return self.b.op(f"arith.select {is0}, {zero}, {q} : i32")

    def map_floordiv(self, e, ct):
        if is_int_expr(e, self.b.program):
            return self.b.index_to(self.b.index(e), ct)
        return self.map_row(e, ct)

    map_mod = map_floordiv

    def node_floordiv(self, e, ct):
        fl = ct != "i32"
        x, k = self.s(e.a, ct), self.b.const(float(e.divisor) if fl else e.divisor, ct)
        if fl:
            q = self.b.op(f"math.floor {self.b.op(f'arith.divf {x}, {k} : {ct}')} : {ct}")
        else:  # the table's floor (not C's truncation)
            q = self.b.op(f"arith.floordivsi {x}, {k} : i32")
        if isinstance(e, ir.FloorDiv):
            return q
        kq = self.b.op(f"{'arith.mulf' if fl else 'arith.muli'} {k}, {q} : {ct}")
        return self.b.op(f"{'arith.subf' if fl else 'arith.subi'} {x}, {kq} : {ct}")

    node_mod = node_floordiv

    def fn_min(self, e, ct):
        a, b = e.args
        return self.b.minmax(e.fn, self.s(a, ct), self.s(b, ct), ct)

    fn_max = fn_min

    def fn_relu(self, e, ct):
        return self.b.minmax("max", self.s(e.args[0], ct), self.b.const(0, ct), ct)

    def fn_neg(self, e, ct):
        x = self.s(e.args[0], ct)
        return self.b.op(f"arith.negf {x} : {ct}") if ct != "i32" else \
            self.b.op(f"arith.subi {self.b.const(0, ct)}, {x} : {ct}")

    def fn_abs(self, e, ct):
        fl = ct != "i32"
        (a,) = e.args
        x = self.s(a, ct)
        neg = self.s(ir.Call("neg", (a,)), ct)
        lt = self.b.op(f"arith.cmp{'f olt' if fl else 'i slt'}, {x}, {self.b.const(0, ct)} : {ct}")
        return self.b.op(f"arith.select {lt}, {neg}, {x} : {ct}")

    def fn_fma(self, e, ct):
        x, y, z = (self.s(v, ct) for v in e.args)
        if ct != "i32":
            return self.b.op(f"math.fma {x}, {y}, {z} : {ct}")
        return self.b.op(f"arith.addi {self.b.op(f'arith.muli {x}, {y} : i32')}, {z} : i32")

    def fn_exp(self, e, ct):
        if ct != "i32":
            return self.b.op(f"math.{e.fn} {self.s(e.args[0], ct)} : {ct}")
        return self.b.convert(self.b.op(f"math.{e.fn} {self.s(e.args[0], 'f64')} : f64"), "f64", ct)

    fn_log = fn_sqrt = fn_tanh = fn_erf = fn_exp

    def fn_rsqrt(self, e, ct):  # 1 / sqrt(a): two roundings (not math.rsqrt, which may approximate)
        if ct != "i32":
            root = self.b.op(f"math.sqrt {self.s(e.args[0], ct)} : {ct}")
            return self.b.op(f"arith.divf {self.b.const(1.0, ct)}, {root} : {ct}")
        x = self.s(e.args[0], "f64")
        root = self.b.op(f"math.sqrt {x} : f64")
        return self.b.convert(self.b.op(f"arith.divf {self.b.const(1.0, 'f64')}, {root} : f64"), "f64", ct)

    def fn_pow(self, e, ct):
        if ct != "i32":
            return self.b.op(f"math.powf {self.s(e.args[0], ct)}, {self.s(e.args[1], ct)} : {ct}")
        x, y = self.s(e.args[0], "f64"), self.s(e.args[1], "f64")
        return self.b.convert(self.b.op(f"math.powf {x}, {y} : f64"), "f64", ct)

    def map_where(self, e, ct):
        cv = self.b.cond(e.cond, ct)
        return self.b.op(f"arith.select {cv}, {self.s(e.a, ct)}, {self.s(e.b, ct)} : {ct}")

    def cast(self, e, ct):
        inner = COMPUTE[e.prec]
        v = self.s(e.a, inner)
        if e.prec in ("f16", "bf16"):
            v = self.b.storage_to_compute(self.b.compute_to_storage(v, e.prec), e.prec)
        return self.b.convert(v, inner, ct)

    cast_f16 = cast_bf16 = cast_f32 = cast_f64 = cast_i32 = cast

    # conditions: i1 values
    def map_boolconst(self, c, ct):
        return self.b.op(f"arith.constant {'true' if c.value else 'false'}")

    def map_not(self, c, ct):
        return self.b.op(f"arith.xori {self.b.cond(c.a, ct)}, {self.b.op('arith.constant true')} : i1")

    def map_and(self, c, ct):
        return self.b.op(f"arith.andi {self.b.cond(c.a, ct)}, {self.b.cond(c.b, ct)} : i1")

    def map_or(self, c, ct):
        return self.b.op(f"arith.ori {self.b.cond(c.a, ct)}, {self.b.cond(c.b, ct)} : i1")

    def cmp(self, c, ct):
        op = c.op
        if is_int_expr(c.a, self.b.program) and is_int_expr(c.b, self.b.program):
            return self.b.op(f"arith.cmpi {_INT_CMP[op]}, {self.b.index(c.a)}, {self.b.index(c.b)} : index")
        t = ct if ct is not None else self.b.widest(c)
        x, y = self.s(c.a, t), self.s(c.b, t)
        if t == "i32":
            return self.b.op(f"arith.cmpi {_INT_CMP[op]}, {x}, {y} : i32")
        return self.b.op(f"arith.cmpf {_FLOAT_CMP[op]}, {x}, {y} : {t}")

    cmp_lt = cmp_le = cmp_gt = cmp_ge = cmp_eq = cmp_ne = cmp
