"""A DSL kernel as affine MLIR (for `vsched fuzz --mlir-passes`): one `func.func` whose
arguments are the params (`index`) and the global tensors (`memref<?x...xf32>`, every
dimension dynamic), loops `affine.for` with affine-map bounds (max/min of several results),
guards `affine.if`, indices `affine.apply` results, values `arith`/`math` on f32.

`emit_affine(program, kernel)` returns the text, or raises `Inexpressible` (the campaign counts
the kernel as declined): non-f32 tensors, padding, local/shared memory, hardware axes,
data-dependent guards, min/max or dynamic indices, iterators used as values, casts.
"""
from __future__ import annotations

import re

from verified_sched.core import ir


class Inexpressible(Exception):
    pass


_FBIN = {"+": "arith.addf", "-": "arith.subf", "*": "arith.mulf", "/": "arith.divf"}
_MATH = {"exp": "math.exp", "log": "math.log", "sqrt": "math.sqrt", "abs": "math.absf"}


class _Emitter:
    def __init__(self, program: ir.Program, kernel: str):
        self.p = program
        self.k = program.kernel(kernel)
        self.lines: list = []
        self.n = 0
        self.ivs: list = []  # (dsl name, ssa name)
        self.params = list(program.params)
        self.tensors = {}
        precs = {t.prec for t in program.tensors}
        self.ty = precs.pop() if len(precs) == 1 else None
        if self.ty not in ("f32", "f64"):
            raise Inexpressible("tensors of several precisions, or not f32/f64")
        for t in program.tensors:  # padding: storage cells the memref's dynamic size covers
            if t.memory != "global":
                raise Inexpressible(f"tensor {t.name} in {t.memory} memory")
            self.tensors[t.name] = t

    def fresh(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def mtype(self, t) -> str:
        return "memref<" + "x".join("?" for _ in t.dims) + f"x{self.ty}>"

    # ---------------------------------------------------------- affine expressions
    def aff(self, e) -> str:
        dims = [d for d, _ in self.ivs]
        match e:
            case ir.Int(value=v):
                return str(v)
            case ir.Var(name=n) if n in dims:
                return f"@D{dims.index(n)}@"
            case ir.Var(name=n) if n in self.params:
                return f"@S{self.params.index(n)}@"
            case ir.BinOp(op=("+" | "-") as op, a=a, b=b):
                return f"({self.aff(a)} {op} {self.aff(b)})"
            case ir.BinOp(op="*", a=a, b=b) if isinstance(a, ir.Int) or isinstance(b, ir.Int):
                return f"({self.aff(a)} * {self.aff(b)})"
            case ir.FloorDiv(a=a, divisor=c):
                return f"({self.aff(a)} floordiv {c})"
            case ir.Mod(a=a, divisor=c):
                return f"({self.aff(a)} mod {c})"
            case ir.Call(fn="neg", args=(a,)):
                return f"(-{self.aff(a)})"
        raise Inexpressible(f"index {e}")

    def mapped(self, texts: list, kind: str = "map") -> tuple:
        """(map or set text, operands) with only the dims and symbols the texts use."""
        joined = ", ".join(texts)
        dims = sorted({int(m) for m in re.findall(r"@D(\d+)@", joined)})
        syms = sorted({int(m) for m in re.findall(r"@S(\d+)@", joined)})
        for new, old in enumerate(dims):
            joined = joined.replace(f"@D{old}@", f"d{new}")
        for new, old in enumerate(syms):
            joined = joined.replace(f"@S{old}@", f"s{new}")
        head = f"({', '.join(f'd{k}' for k in range(len(dims)))})[{', '.join(f's{k}' for k in range(len(syms)))}]"
        operands = (f"({', '.join(self.ivs[d][1] for d in dims)})"
                    f"[{', '.join('%' + self.params[s] for s in syms)}]")
        if kind == "set":
            return f"affine_set<{head} : ({joined})>", operands
        return f"affine_map<{head} -> ({joined})>", operands

    def bound(self, e, fn: str) -> str:
        parts = _flatten(e, fn)
        m, operands = self.mapped([self.aff(x) for x in parts])
        return (("max " if fn == "max" else "min ") if len(parts) > 1 else "") + m + operands

    def index(self, e, ind: str) -> str:
        if isinstance(e, ir.Var) and e.name in [d for d, _ in self.ivs]:
            return dict(self.ivs)[e.name]
        v = self.fresh()
        m, operands = self.mapped([self.aff(e)])
        self.lines.append(f"{ind}{v} = affine.apply {m}{operands}")
        return v

    # ---------------------------------------------------------- values
    def value(self, e, ind: str) -> str:
        match e:
            case ir.Float(value=v) | ir.Int(value=v):
                r = self.fresh()
                self.lines.append(f"{ind}{r} = arith.constant {float(v)!r} : {self.ty}")
                return r
            case ir.Load(tensor=t, index=idx):
                if t not in self.tensors:
                    raise Inexpressible(f"read of {t}")
                ops = [self.index(i, ind) for i in idx]
                r = self.fresh()
                self.lines.append(f"{ind}{r} = affine.load %{t}[{', '.join(ops)}] : {self.mtype(self.tensors[t])}")
                return r
            case ir.BinOp(op=op, a=a, b=b) if op in _FBIN:
                x, y = self.value(a, ind), self.value(b, ind)
                r = self.fresh()
                self.lines.append(f"{ind}{r} = {_FBIN[op]} {x}, {y} : {self.ty}")
                return r
            case ir.Call(fn="neg", args=(a,)):
                x = self.value(a, ind)
                r = self.fresh()
                self.lines.append(f"{ind}{r} = arith.negf {x} : {self.ty}")
                return r
            case ir.Call(fn=fn, args=(a,)) if fn in _MATH:
                x = self.value(a, ind)
                r = self.fresh()
                self.lines.append(f"{ind}{r} = {_MATH[fn]} {x} : {self.ty}")
                return r
            case ir.Call(fn=("min" | "max") as fn, args=(a, b)):
                x, y = self.value(a, ind), self.value(b, ind)
                r = self.fresh()
                self.lines.append(f"{ind}{r} = arith.{'minimumf' if fn == 'min' else 'maximumf'} {x}, {y} : {self.ty}")
                return r
        raise Inexpressible(f"value {e}")

    # ---------------------------------------------------------- statements
    def cond(self, c) -> list:
        match c:
            case ir.And(a=a, b=b):
                return self.cond(a) + self.cond(b)
            case ir.Not(a=ir.Cmp(op=op, a=a, b=b)) if op in ("<", "<=", ">", ">="):
                return self.cond(ir.Cmp({"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op], a, b))
            case ir.Cmp(op=op, a=a, b=b) if op in ("<", "<=", ">", ">=", "=="):
                x, y = self.aff(a), self.aff(b)
                return [{"<": f"{y} - {x} - 1 >= 0", "<=": f"{y} - {x} >= 0", ">": f"{x} - {y} - 1 >= 0",
                         ">=": f"{x} - {y} >= 0", "==": f"{x} - {y} == 0"}[op]]
        raise Inexpressible(f"condition {c}")

    def stmts(self, body, ind: str) -> None:
        for s in body:
            self.stmt(s, ind)

    def stmt(self, s, ind: str) -> None:
        match s:
            case ir.For(var=v, lo=lo, hi=hi, axis=axis, body=body):
                if axis not in ("serial", "unrolled", "vectorized"):
                    raise Inexpressible(f"axis {axis}")
                lo_t, hi_t = self.bound(lo, "max"), self.bound(hi, "min")
                ssa = f"%{v}"
                self.lines.append(f"{ind}affine.for {ssa} = {lo_t} to {hi_t} {{")
                self.ivs.append((v, ssa))
                self.stmts(body, ind + "  ")
                self.ivs.pop()
                self.lines.append(f"{ind}}}")
            case ir.If(cond=c, then=then, orelse=orelse):
                aset, operands = self.mapped(self.cond(c), "set")
                self.lines.append(f"{ind}affine.if {aset}{operands} {{")
                self.stmts(then, ind + "  ")
                if orelse:
                    self.lines.append(f"{ind}}} else {{")
                    self.stmts(orelse, ind + "  ")
                self.lines.append(f"{ind}}}")
            case ir.Assign(tensor=t, index=idx, value=val):
                if t not in self.tensors:
                    raise Inexpressible(f"write of {t}")
                x = self.value(val, ind)
                ops = [self.index(i, ind) for i in idx]
                self.lines.append(f"{ind}affine.store {x}, %{t}[{', '.join(ops)}] : {self.mtype(self.tensors[t])}")
            case ir.Zero(tensor=t):
                tt = self.tensors.get(t)
                if tt is None:
                    raise Inexpressible(f"zero {t}")
                vars_ = [f"z{self.n}_{k}" for k in range(len(tt.dims))]
                self.n += 1
                node = ir.Assign(t, tuple(ir.Var(v) for v in vars_), ir.Float(0.0))
                for v, d in reversed(list(zip(vars_, tt.dims))):
                    node = ir.For(v, ir.Int(0), d, "serial", (node,))
                self.stmt(node, ind)
            case _:
                raise Inexpressible(f"statement {type(s).__name__}")

    def text(self) -> str:
        args = [f"%{p}: index" for p in self.params] + [f"%{t.name}: {self.mtype(t)}" for t in self.tensors.values()]
        self.lines = [f"func.func @{self.k.name}({', '.join(args)}) {{"]
        self.stmts(self.k.body, "  ")
        self.lines.append("  return")
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"


def _flatten(e, fn: str) -> list:
    if isinstance(e, ir.Call) and e.fn == fn:
        return [x for a in e.args for x in _flatten(a, fn)]
    return [e]


def emit_affine(program: ir.Program, kernel: str) -> str:
    return _Emitter(program, kernel).text()
