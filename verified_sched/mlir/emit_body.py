"""The region of one linalg.generic: an assignment's value as arith/math ops.

The typing rules are the C backend's (codegen/c.py), so IREE computes the same bits: the value
is computed in the compute type of its target (f64 for f64, f32 for f32/f16/bf16, i32 for
i32); loads, iterators and constants are converted to it leaf by leaf; index subtrees
(iterators, floor, mod) are exact integer arithmetic (`index`); a cast p(e) evaluates e in p's
compute type, rounds to p and converts back; min/max/abs/relu are compare-and-select, so NaN
and -0 behave as in C; i32 `/` truncates and x/0 is 0.
"""
from __future__ import annotations

import numpy as np

from codegen.c import is_int_expr
from verified_sched import ir
from verified_sched.errors import InternalError

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
        if prec in ("f16", "bf16"):
            return self.op(f"arith.extf {v} : {prec} to f32")
        return v

    def compute_to_storage(self, v: str, prec: str) -> str:
        if prec in ("f16", "bf16"):
            return self.op(f"arith.truncf {v} : f32 to {prec}")
        return v

    def index_to(self, v: str, ct: str) -> str:
        i64 = self.op(f"arith.index_cast {v} : index to i64")
        return self.convert(i64, "i64", ct)

    # ------------------------------------------------------------ index arithmetic
    def index(self, e) -> str:
        """An `index` value (C: int64)."""
        match e:
            case ir.Int(value=v):
                return self.const(v, "index")
            case ir.Var(name=n):
                k, lo = self.dims[n]
                v = self.op(f"linalg.index {k} : index")
                return v if lo == 0 else self.op(f"arith.addi {v}, {self.const(lo, 'index')} : index")
            case ir.BinOp(op=("+" | "-" | "*") as op, a=a, b=b):
                return self.op(f"{_IBIN[op]} {self.index(a)}, {self.index(b)} : index")
            case ir.FloorDiv(a=a, divisor=c):
                return self.op(f"arith.floordivsi {self.index(a)}, {self.const(c, 'index')} : index")
            case ir.Mod(a=a, divisor=c):
                x, k = self.index(a), self.const(c, "index")
                q = self.op(f"arith.floordivsi {x}, {k} : index")
                return self.op(f"arith.subi {x}, {self.op(f'arith.muli {q}, {k} : index')} : index")
            case ir.Call(fn=("min" | "max") as fn, args=(a, b)):
                return self.op(f"arith.{fn}si {self.index(a)}, {self.index(b)} : index")
            case ir.Call(fn="neg", args=(a,)):
                return self.op(f"arith.subi {self.const(0, 'index')}, {self.index(a)} : index")
            case ir.Call(fn="abs", args=(a,)):
                x = self.index(a)
                neg = self.op(f"arith.subi {self.const(0, 'index')}, {x} : index")
                return self.op(f"arith.maxsi {x}, {neg} : index")
            case ir.Load() | ir.Cast(prec="i32"):
                v = self.scalar(e if isinstance(e, ir.Load) else e.a, "i32")
                return self.op(f"arith.index_cast {v} : i32 to index")
            case ir.Where(cond=c, a=a, b=b):
                return self.op(f"arith.select {self.cond(c, None)}, {self.index(a)}, {self.index(b)} : index")
        raise InternalError(f"not an index expression: {e!r}")

    # ------------------------------------------------------------ scalars
    def scalar(self, e, ct: str) -> str:
        """A value of compute type ct ('f32', 'f64' or 'i32')."""
        fl = ct != "i32"
        match e:
            case ir.Int(value=v):
                return self.const(float(v) if fl else v, ct)
            case ir.Float(value=v):
                return self.const(v if fl else (int(v) if np.isfinite(v) else 0), ct)
            case ir.Var():
                return self.index_to(self.index(e), ct)
            case ir.Load() if e in self.leaves:
                arg, prec = self.leaves[e]
                if arg == "extract":  # prec holds the SSA value of the whole tensor
                    t = self.program.tensor(e.tensor)
                    idx = ", ".join(self.index(i) for i in e.index)
                    arg = self.op(f"tensor.extract {prec}[{idx}] : {self.tensor_types[e.tensor]}")
                    prec = t.prec
                return self.convert(self.storage_to_compute(arg, prec), COMPUTE[prec], ct)
            case ir.BinOp(op="/", a=a, b=b) if not fl:
                x, y = self.scalar(a, ct), self.scalar(b, ct)
                zero, one = self.const(0, ct), self.const(1, ct)
                is0 = self.op(f"arith.cmpi eq, {y}, {zero} : i32")
                safe = self.op(f"arith.select {is0}, {one}, {y} : i32")
                q = self.op(f"arith.divsi {x}, {safe} : i32")
                return self.op(f"arith.select {is0}, {zero}, {q} : i32")
            case ir.BinOp(op=op, a=a, b=b):
                x, y = self.scalar(a, ct), self.scalar(b, ct)
                return self.op(f"{(_FBIN if fl else _IBIN)[op]} {x}, {y} : {ct}")
            case ir.FloorDiv() | ir.Mod() if is_int_expr(e, self.program):
                return self.index_to(self.index(e), ct)
            case ir.FloorDiv(a=a, divisor=c) | ir.Mod(a=a, divisor=c):
                x, k = self.scalar(a, ct), self.const(float(c) if fl else c, ct)
                if fl:
                    q = self.op(f"math.floor {self.op(f'arith.divf {x}, {k} : {ct}')} : {ct}")
                else:
                    q = self.scalar(ir.BinOp("/", a, ir.Int(c)), ct)
                if isinstance(e, ir.FloorDiv):
                    return q
                kq = self.op(f"{'arith.mulf' if fl else 'arith.muli'} {k}, {q} : {ct}")
                return self.op(f"{'arith.subf' if fl else 'arith.subi'} {x}, {kq} : {ct}")
            case ir.Call(fn=("min" | "max") as fn, args=(a, b)):
                return self.minmax(fn, self.scalar(a, ct), self.scalar(b, ct), ct)
            case ir.Call(fn="relu", args=(a,)):
                return self.minmax("max", self.scalar(a, ct), self.const(0, ct), ct)
            case ir.Call(fn="neg", args=(a,)):
                x = self.scalar(a, ct)
                return self.op(f"arith.negf {x} : {ct}") if fl else \
                    self.op(f"arith.subi {self.const(0, ct)}, {x} : {ct}")
            case ir.Call(fn="abs", args=(a,)):
                x = self.scalar(a, ct)
                neg = self.scalar(ir.Call("neg", (a,)), ct)
                lt = self.op(f"arith.cmp{'f olt' if fl else 'i slt'}, {x}, {self.const(0, ct)} : {ct}")
                return self.op(f"arith.select {lt}, {neg}, {x} : {ct}")
            case ir.Call(fn="fma", args=(a, b, c)):
                x, y, z = (self.scalar(v, ct) for v in (a, b, c))
                if fl:
                    return self.op(f"math.fma {x}, {y}, {z} : {ct}")
                return self.op(f"arith.addi {self.op(f'arith.muli {x}, {y} : i32')}, {z} : i32")
            case ir.Call(fn=("exp" | "log" | "sqrt" | "tanh" | "erf") as fn, args=(a,)):
                if fl:
                    return self.op(f"math.{fn} {self.scalar(a, ct)} : {ct}")
                return self.convert(self.op(f"math.{fn} {self.scalar(a, 'f64')} : f64"), "f64", ct)
            case ir.Call(fn="rsqrt", args=(a,)):  # 1 / sqrt(a), as C (math.rsqrt may approximate)
                ft = ct if fl else "f64"
                x = self.scalar(a, ft)
                r = self.op(f"arith.divf {self.const(1.0, ft)}, {self.op(f'math.sqrt {x} : {ft}')} : {ft}")
                return r if fl else self.convert(r, "f64", ct)
            case ir.Call(fn="pow", args=(a, b)):
                ft = ct if fl else "f64"
                r = self.op(f"math.powf {self.scalar(a, ft)}, {self.scalar(b, ft)} : {ft}")
                return r if fl else self.convert(r, "f64", ct)
            case ir.Where(cond=c, a=a, b=b):
                cv = self.cond(c, ct)
                return self.op(f"arith.select {cv}, {self.scalar(a, ct)}, {self.scalar(b, ct)} : {ct}")
            case ir.Cast(prec=p, a=a):
                inner = COMPUTE[p]
                v = self.scalar(a, inner)
                if p in ("f16", "bf16"):
                    v = self.storage_to_compute(self.compute_to_storage(v, p), p)
                return self.convert(v, inner, ct)
        raise InternalError(f"not a scalar expression: {e!r}")

    def minmax(self, fn: str, x: str, y: str, ct: str) -> str:
        """C's min(a, b) = a < b ? a : b and max(a, b) = a > b ? a : b."""
        pred = {"min": "olt", "max": "ogt"}[fn] if ct != "i32" else {"min": "slt", "max": "sgt"}[fn]
        c = self.op(f"arith.cmp{'f' if ct != 'i32' else 'i'} {pred}, {x}, {y} : {ct}")
        return self.op(f"arith.select {c}, {x}, {y} : {ct}")

    def widest(self, node) -> str:
        precs = {self.program.tensor(n.tensor).prec for n in ir.walk(node) if isinstance(n, ir.Load)}
        precs |= {n.prec for n in ir.walk(node) if isinstance(n, ir.Cast)}
        if "f64" in precs:
            return "f64"
        if precs & {"f32", "f16", "bf16"} or any(isinstance(n, ir.Float) for n in ir.walk(node)):
            return "f32"
        return "i32"

    def cond(self, c, ct) -> str:
        """An i1 value."""
        match c:
            case ir.BoolConst(value=v):
                return self.op(f"arith.constant {'true' if v else 'false'}")
            case ir.Not(a=a):
                return self.op(f"arith.xori {self.cond(a, ct)}, {self.op('arith.constant true')} : i1")
            case ir.And(a=a, b=b):
                return self.op(f"arith.andi {self.cond(a, ct)}, {self.cond(b, ct)} : i1")
            case ir.Or(a=a, b=b):
                return self.op(f"arith.ori {self.cond(a, ct)}, {self.cond(b, ct)} : i1")
            case ir.Cmp(op=op, a=a, b=b):
                if is_int_expr(a, self.program) and is_int_expr(b, self.program):
                    return self.op(f"arith.cmpi {_INT_CMP[op]}, {self.index(a)}, {self.index(b)} : index")
                t = ct if ct is not None else self.widest(c)
                x, y = self.scalar(a, t), self.scalar(b, t)
                if t == "i32":
                    return self.op(f"arith.cmpi {_INT_CMP[op]}, {x}, {y} : i32")
                return self.op(f"arith.cmpf {_FLOAT_CMP[op]}, {x}, {y} : {t}")
        raise InternalError(f"not a condition: {c!r}")
