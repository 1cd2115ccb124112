"""The region of a linalg.generic as one DSL expression per yielded value.

`translate(v)` returns an expression whose DSL meaning, computed in the compute type of v's
MLIR type (f32 for f32/f16/bf16, f64, i32), is v's value. The DSL computes a whole statement
in its target's compute type, so the only casts needed are where MLIR rounds: every f16/bf16
arithmetic result (each op rounds in MLIR; double rounding through f32 is innocuous for
+ - * / sqrt since 24 >= 2*11 + 2) and the conversions between compute types (extf, truncf,
sitofp, fptosi). Index arithmetic (linalg.index, arith on `index`) is exact integer arithmetic
in the DSL. Reads (block arguments, tensor.extract) are `Load`s through the operand's view.
"""
from __future__ import annotations

import math

from verified_sched.core import ir

from .ximport import MlirImportError, elem_of, int_value, prop

COMPUTE = {"f32": "f32", "f16": "f32", "bf16": "f32", "f64": "f64", "i32": "i32"}
_FBIN = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/"}
_IBIN = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*"}
_FCMP = {"oeq": "==", "ogt": ">", "oge": ">=", "olt": "<", "ole": "<=", "une": "!="}
_FCMP_NEG = {"ult": ">=", "ule": ">", "ugt": "<=", "uge": "<"}  # unordered: not the ordered opposite
_ICMP = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
         "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
_FCMP_NAMES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
               "ule", "une", "uno", "true")
_ICMP_NAMES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def add(a, b):
    if isinstance(a, ir.Int) and isinstance(b, ir.Int):
        return ir.Int(a.value + b.value)
    if isinstance(b, ir.Int) and b.value == 0:
        return a
    if isinstance(a, ir.Int) and a.value == 0:
        return b
    if isinstance(b, ir.Int) and b.value < 0:
        return ir.BinOp("-", a, ir.Int(-b.value))
    return ir.BinOp("+", a, b)


def mul(a, b):
    if isinstance(a, ir.Int) and isinstance(b, ir.Int):
        return ir.Int(a.value * b.value)
    for x, y in ((a, b), (b, a)):
        if isinstance(x, ir.Int) and x.value == 1:
            return y
        if isinstance(x, ir.Int) and x.value == 0:
            return ir.Int(0)
    return ir.BinOp("*", a, b)


def sub(a, b):
    if isinstance(b, ir.Int):
        return add(a, ir.Int(-b.value))
    return ir.BinOp("-", a, b)


class BodyTranslator:
    """`reads` maps a block argument to its expression; `loop_vars[k]` is linalg.index k;
    `importer` resolves values defined above the region (constants, captured tensors)."""

    def __init__(self, importer, reads: dict, loop_vars: list):
        self.imp = importer
        self.reads = reads
        self.loop_vars = loop_vars

    def error(self, op, message: str) -> MlirImportError:
        return self.imp.error(op, message)

    def translate(self, v):
        if v in self.reads:
            return self.reads[v]
        op = getattr(v, "op", None)
        if op is None or not hasattr(op, "name"):
            raise self.imp.error(None, f"a value {v} that is not defined in the region")
        name = op.name
        ty = elem_of(v.type)
        if name == "arith.constant":
            return self.imp.scalar_constant(op)
        if name == "linalg.index":
            return ir.Var(self.loop_vars[int(op.properties["dim"].value.data)])
        if ty in ("index", "i64"):
            return self.index(v)
        if name in _FBIN:
            a, b = (self.translate(x) for x in op.operands)
            return self.rounded(ir.BinOp(_FBIN[name], a, b), ty)
        if name in _IBIN or name in ("arith.divsi",):
            a, b = (self.translate(x) for x in op.operands)
            return ir.BinOp(_IBIN.get(name, "/"), a, b)
        if name == "arith.remsi":
            a, b = (self.translate(x) for x in op.operands)
            return ir.BinOp("-", a, ir.BinOp("*", ir.BinOp("/", a, b), b))
        if name in ("arith.maximumf", "arith.maxnumf", "arith.minimumf", "arith.minnumf",
                    "arith.maxsi", "arith.minsi"):
            a, b = (self.translate(x) for x in op.operands)
            return self.rounded(ir.Call("max" if "max" in name else "min", (a, b)), ty)
        if name == "arith.negf":
            return ir.Call("neg", (self.translate(op.operands[0]),))
        if name in ("math.absf", "math.absi"):
            return ir.Call("abs", (self.translate(op.operands[0]),))
        if name in ("math.exp", "math.log", "math.sqrt", "math.tanh", "math.erf", "math.rsqrt"):
            return self.rounded(ir.Call(name.split(".")[1], (self.translate(op.operands[0]),)), ty)
        if name == "math.fpowi":  # x ** (integer n): pow(x, n), n converted to the float type
            a, b = op.operands
            return self.rounded(ir.Call("pow", (self.translate(a), ir.Cast("f32" if ty != "f64" else "f64",
                                                                          self.index(b)))), ty)
        if name == "math.powf":
            return self.rounded(ir.Call("pow", tuple(self.translate(x) for x in op.operands)), ty)
        if name == "math.fma":
            return self.rounded(ir.Call("fma", tuple(self.translate(x) for x in op.operands)), ty)
        if name == "arith.select":
            c, a, b = op.operands
            return ir.Where(self.cond(c), self.translate(a), self.translate(b))
        if name in ("arith.extf", "arith.truncf", "arith.sitofp", "arith.fptosi", "arith.extsi",
                    "arith.trunci", "arith.index_cast", "arith.uitofp"):
            return self.conversion(op, ty)
        if name == "arith.bitcast":
            return self.bf16_bits(op, ty)
        if name == "tensor.extract":
            src = self.imp.view(op.operands[0], op)
            return src.read(tuple(self.index(i) for i in op.operands[1:]))
        raise self.error(op, f"unsupported operation '{name}' in a linalg region (supported: arith on "
                             "f32/f16/bf16/i32 and index, math.exp/log/sqrt/tanh/erf/rsqrt/powf/absf/fma, "
                             "tensor.extract, linalg.index)")

    def bf16_bits(self, op, ty: str):
        """The emitter's f32 <-> bf16 conversions spelled in integer ops (emit_body.f32_to_bf16
        and storage_to_compute): bitcast(trunci(select(nan, ori(shrui(bitcast x, 16), 0x40),
        ...))) to bf16 is bf16(x); bitcast(shli(extui(bitcast y to i16), 16)) to f32 is y."""
        def defining(v, *names):
            d = getattr(v, "op", None)
            if getattr(d, "name", None) not in names:
                raise self.error(op, "arith.bitcast outside the emitter's bf16 conversions")
            return d
        if ty == "bf16":
            select = defining(defining(op.operands[0], "arith.trunci").operands[0], "arith.select")
            high = defining(defining(select.operands[1], "arith.ori").operands[0], "arith.shrui")
            x = defining(high.operands[0], "arith.bitcast").operands[0]
            return ir.Cast("bf16", self.translate(x))
        if ty == "f32":
            ext = defining(defining(op.operands[0], "arith.shli").operands[0], "arith.extui")
            return self.translate(defining(ext.operands[0], "arith.bitcast").operands[0])
        raise self.error(op, f"arith.bitcast to {ty}")

    def rounded(self, e, ty: str):
        """An f16/bf16 result rounds in MLIR: a cast makes the DSL round there too."""
        return ir.Cast(ty, e) if ty in ("f16", "bf16") else e

    def conversion(self, op, ty: str):
        x = op.operands[0]
        src = elem_of(x.type)
        inner = self.translate(x)
        if src in ("index", "i64") or ty in ("index", "i64"):  # exact integers, converted as C does
            if ty in ("f16", "bf16"):
                return ir.Cast(ty, inner)
            return inner
        if src not in COMPUTE or ty not in COMPUTE:
            raise self.error(op, f"'{op.name}' from {src} to {ty} (supported element types: f32, f16, "
                                 "bf16, f64, i32)")
        e = inner if COMPUTE[src] == COMPUTE[ty] else ir.Cast(src, inner)
        return ir.Cast(ty, e) if ty in ("f16", "bf16") and src != ty else e

    def index(self, v):
        """An index-typed value as an exact integer expression."""
        if v in self.reads:
            return self.reads[v]
        op = getattr(v, "op", None)
        name = getattr(op, "name", None)
        if name == "arith.constant":
            return ir.Int(int_value(op))
        if name == "linalg.index":
            return ir.Var(self.loop_vars[int(op.properties["dim"].value.data)])
        if name in ("arith.index_cast", "arith.extsi", "arith.trunci"):
            return self.translate(op.operands[0])
        if name in _IBIN:
            a, b = (self.index(x) for x in op.operands)
            return {"+": add, "-": sub, "*": mul}[_IBIN[name]](a, b)
        if name in ("arith.floordivsi", "arith.divsi", "arith.divui", "arith.remsi", "arith.remui"):
            a, b = (self.index(x) for x in op.operands)
            if not isinstance(b, ir.Int) or b.value <= 0:
                raise self.error(op, f"'{name}' by a non-constant or non-positive divisor")
            return ir.Mod(a, b.value) if "rem" in name else ir.FloorDiv(a, b.value)
        if name in ("arith.maxsi", "arith.minsi"):
            a, b = (self.index(x) for x in op.operands)
            return ir.Call("max" if "max" in name else "min", (a, b))
        if name == "arith.select":
            c, a, b = op.operands
            return ir.Where(self.cond(c), self.index(a), self.index(b))
        raise self.error(op, f"unsupported index computation '{name}'")

    def cond(self, v):
        op = getattr(v, "op", None)
        name = getattr(op, "name", None)
        if name == "arith.cmpf":
            pred = _FCMP_NAMES[int_value(op, "predicate")]
            a, b = (self.translate(x) for x in op.operands)
            if pred in _FCMP:
                return ir.Cmp(_FCMP[pred], a, b)
            if pred in _FCMP_NEG:  # unordered: true where the ordered opposite is false
                return ir.Not(ir.Cmp(_FCMP_NEG[pred], a, b))
            raise self.error(op, f"arith.cmpf predicate '{pred}'")
        if name == "arith.cmpi":
            pred = _ICMP_NAMES[int_value(op, "predicate")]
            a, b = (self.translate(x) if elem_of(x.type) != "index" else self.index(x) for x in op.operands)
            return ir.Cmp(_ICMP[pred], a, b)
        if name in ("arith.andi", "arith.ori"):
            a, b = (self.cond(x) for x in op.operands)
            return (ir.And if name == "arith.andi" else ir.Or)(a, b)
        if name == "arith.xori":
            a, b = op.operands
            if getattr(b.op, "name", None) == "arith.constant" and int_value(b.op) in (1, -1):
                return ir.Not(self.cond(a))
            raise self.error(op, "arith.xori of two conditions")
        if name == "arith.constant":
            return ir.BoolConst(bool(int_value(op)))
        raise self.error(op, f"unsupported condition '{name}'")


def scalar_constant(op, importer):
    """The expression of a scalar `arith.constant` (a float or an integer literal); `importer`
    names the errors (its `error(op, what)`)."""
    ty = elem_of(op.results[0].type)
    attr = prop(op, "value")
    if ty in ("f32", "f16", "bf16", "f64"):
        return float_literal(float(attr.value.data), op, importer)
    if ty in ("i32", "i64", "index", "i1"):
        return ir.Int(int_value(op))
    raise importer.error(op, f"a constant of type {ty}")


def float_literal(value: float, op, importer):
    if not math.isfinite(value):
        raise importer.error(op, f"the non-finite constant {value} (the DSL has no such literal)")
    return ir.Float(value)
