"""`vsched import` of affine/scf/memref MLIR: a `func.func` over memrefs as a DSL kernel.

Each memref argument is a global tensor (named after the argument); each dynamic dimension of
it is a param `NAME_dK` (>= 1), each `index` argument a param (>= 0), each float argument a
one-cell input tensor, each scalar result a one-cell tensor `resultK`. Loops (`affine.for`,
`scf.for`, `affine.parallel`, `scf.parallel`, the parallel ones run serially) become DSL loops;
a step s > 1 becomes the normalized loop `for t in 0 .. floor((hi - lo + s - 1) / s)` with the
index `lo + s*t`. Bounds are affine maps (max of the lower, min of the upper results) or index
values; `affine.if` and `scf.if` become guards. Loads are values, stores assignments; `arith` and
`math` are translated as the linalg importer translates regions (import_body.BodyTranslator).

A loaded value is an expression that reads the tensor where it is used. Where a store to that
tensor may come between the load and a use (a store after it in program order, or in a loop
entered after it), the load is first copied into a one-cell local tensor at its own position,
so the use reads the value loaded. `iter_args` of a loop are one-cell local tensors: the init
value before the loop, the yielded value stored at the end of each iteration, the result read
after it. `memref.alloc`/`alloca` are `scratch` global tensors (never observable),
`memref.subview` a view (offsets and strides), `memref.copy` a copy nest. Anything else is
`FILE:LINE:COL: 'op.name': ...` (exit 2).

The pretty syntax of some ops (affine.if, affine.max, affine.parallel) has no parser in xdsl
0.74: such text is first printed in MLIR's generic form by `iree-opt` when it is installed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from verified_sched.core import ir
from verified_sched.dsl.exprs import RESERVED

from .affine_maps import NotAffineMap, map_results
from .affine_ops import HANDLERS
from .affine_values import LoadInfo, Loop, MemView, Slot, Values, final, locate_ops, memref_root, opname, parse_affine_module
from .import_body import add, mul, scalar_constant, sub
from .ximport import MlirImportError, elem_of, prop

PRECS = ("f32", "f16", "bf16", "f64", "i32")
_IGNORED = ("memref.dealloc", "memref.assume_alignment", "affine.yield", "scf.yield", "scf.reduce")
_PURE_PREFIX = ("arith.", "math.")
_PURE = ("affine.apply", "affine.min", "affine.max", "memref.dim", "affine.load", "memref.load")
SUPPORTED = ("affine.for/if/load/store/apply/min/max/parallel, scf.for/if/parallel, memref.load/store/"
             "alloc/alloca/dealloc/dim/subview/cast/copy, arith, math")


@dataclass
class Imported:
    """One function: its params and constraints, tensors (arguments first) and kernel body."""

    name: str
    params: list
    constraints: list
    tensors: list
    body: tuple
    args: list  # the argument names, in order


def _ident(hint, used: set, fallback: str) -> str:
    base = hint if hint and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", hint) else fallback
    if base in RESERVED:
        base = base + "_"
    name, k = base, 1
    while name in used:
        name, k = f"{base}_{k}", k + 1
    used.add(name)
    return name


class AffineImporter:
    def __init__(self, text: str, filename: str = "<mlir>", prefix: str = "", arg_names=None,
                 iree_opt: str | None = None):
        self.text, self.filename, self.prefix = text, filename, prefix
        self.arg_names = arg_names
        self.module = parse_affine_module(text, filename, iree_opt)
        self.locs = locate_ops(self.module, text, filename)
        self.values = Values(self)

    def error(self, op, message: str) -> MlirImportError:
        name = f"'{opname(op)}': " if op is not None and hasattr(op, "name") else ""
        return MlirImportError(name + message, self.locs.get(id(op)) if op is not None else None)

    def scalar_constant(self, op):
        return scalar_constant(op, self)

    def functions(self) -> list:
        return [op for op in self.module.walk() if op.name == "func.func"]

    # ------------------------------------------------------------ one function
    def function(self, func) -> Imported:
        self.used = set(RESERVED)
        self.params, self.constraints, self.tensors = [], [], []
        self.views: dict = {}
        self.loads: dict = {}
        self.epoch: dict = {}
        self.stack: list = []
        self.stored_in: dict = {}
        self.ntemp = 0
        v = self.values
        v.reads.clear()
        fname = func.properties["sym_name"].data
        block = func.regions[0].blocks[0]
        if not block.ops:
            raise self.error(func, "a function declaration without a body")
        args = []
        written = _signature_names(self.text, fname)
        for k, arg in enumerate(block.args):
            hint = self.arg_names[k] if self.arg_names and k < len(self.arg_names) else (
                written[k] if k < len(written) else arg.name_hint)
            name = _ident(hint, self.used, f"arg{k}")
            args.append(name)
            self.argument(func, arg, name)
        self.body: list = []
        self.block(block, self.body)
        return Imported(fname, self.params, self.constraints, self.tensors, final(self.body), args)

    def argument(self, func, arg, name: str) -> None:
        ty = arg.type
        t = str(ty)
        if t == "index":
            self.params.append(name)
            self.constraints.append(ir.Cmp(">=", ir.Var(name), ir.Int(0)))
            self.values.reads[arg] = ir.Var(name)
            return
        if t in PRECS:
            self.tensors.append(ir.Tensor(name, (ir.Int(1),), t))
            self.values.reads[arg] = ir.Load(name, (ir.Int(0),))
            return
        if not t.startswith("memref<"):
            raise self.error(func, f"an argument of type {t} (supported: memref, index, f32/f16/bf16/f64/i32)")
        prec = elem_of(ty.element_type)
        if prec not in PRECS:
            raise self.error(func, f"a memref of {prec} (supported element types: {', '.join(PRECS)})")
        if "strided" in t or "affine_map" in t:
            raise self.error(func, f"a memref argument with a layout ({t}): only identity layouts")
        dims = []
        for d, n in enumerate(ty.get_shape()):
            if n < 0:
                p = _ident(f"{name}_d{d}", self.used, f"{name}_d{d}")
                self.params.append(p)
                self.constraints.append(ir.Cmp(">=", ir.Var(p), ir.Int(1)))
                dims.append(ir.Var(p))
            else:
                dims.append(ir.Int(int(n)))
        if not dims:
            dims = [ir.Int(1)]
        self.tensors.append(ir.Tensor(name, tuple(dims), prec))
        rank = len(ty.get_shape())
        self.views[arg] = MemView(name, dims[:rank], [ir.Int(0)] * rank, [ir.Int(1)] * rank, arg, prec)

    # ------------------------------------------------------------ statements
    def block(self, block, out: list) -> None:
        for op in block.ops:
            self.op(op, out)

    def op(self, op, out: list) -> None:
        name = opname(op)
        if name in _IGNORED:
            return
        if name.startswith(_PURE_PREFIX) or name in _PURE:
            if name in ("affine.load", "memref.load"):
                self.load(op, out)
            return
        try:
            handler = HANDLERS.get(name)
            if handler is None:
                raise self.error(op, f"not supported by the affine import (supported: {SUPPORTED})")
            handler(self, op, out)
        except NotAffineMap as e:
            raise self.error(op, str(e)) from None

    def view(self, value, op) -> MemView:
        if value not in self.views:
            raise self.error(op, f"the memref operand {value.name_hint or value} is not one this import "
                                 "translated")
        return self.views[value]

    def indices(self, op, memref_pos: int, first_index: int) -> tuple:
        view = self.view(op.operands[memref_pos], op)
        idx = [self.values.index(x) for x in op.operands[first_index:]]
        if "map" in op.properties or "map" in op.attributes:
            idx = map_results(prop(op, "map"), idx)
        return view, view.cell(idx)

    def load(self, op, out: list) -> None:
        view, cell = self.indices(op, 0, 1)
        slot = Slot()
        out.append(slot)
        self.loads[op.results[0]] = LoadInfo(view.root, self.epoch.get(view.root, 0), tuple(self.stack), slot,
                                              ir.Load(view.base, cell), view.prec)

    def fresh(self, v):
        """The current expression of loaded value v (copied to a local first when stale)."""
        info = self.loads[v]
        if not info.copied:
            stale = self.epoch.get(info.root, 0) != info.epoch or any(
                info.root in self.stored_in.get(loop, ()) for loop in self.stack[len(info.stack):])
            if stale:
                tmp = self.temp(info.prec)
                info.slot.stmt = ir.Assign(tmp, (ir.Int(0),), info.expr)
                info.expr, info.copied = ir.Load(tmp, (ir.Int(0),)), True
        return info.expr

    def fresh_name(self, hint: str, prefixed: bool = True) -> str:
        hint = hint if hint and hint[0].isalpha() else "v" + (hint or "")
        return _ident((self.prefix if prefixed else "") + hint, self.used, "v")

    def temp(self, prec: str) -> str:
        name = self.fresh_name(f"tmp{self.ntemp}")
        self.ntemp += 1
        self.tensors.append(ir.Tensor(name, (ir.Int(1),), prec, "local"))
        return name

    def stored(self, root) -> None:
        self.epoch[root] = self.epoch.get(root, 0) + 1

    def store(self, op, out: list) -> None:
        view, cell = self.indices(op, 1, 2)
        value = self.values.translate(op.operands[0])
        out.append(ir.Assign(view.base, cell, value))
        self.stored(view.root)

    def loop_var(self, arg, hint: str) -> str:
        return _ident(arg.name_hint, self.used, hint)

    def loop(self, op, out: list, ivs, bounds, body_block, inits=(), results=(), axis: str = "serial") -> list:
        """Nested DSL loops for `ivs` over bounds [(lo, hi, step)], the body translated inside;
        iter_args (the block's arguments after the ivs) as one-cell locals."""
        self.stored_in[id(op)] = _stores_under(op)
        accs = []
        for k, init in enumerate(inits):
            arg = body_block.args[len(ivs) + k]
            prec = str(arg.type)
            if prec not in PRECS:
                raise self.error(op, f"an iter_arg of type {prec}")
            acc = self.temp(prec)
            out.append(ir.Assign(acc, (ir.Int(0),), self.values.translate(init)))
            self.values.reads[arg] = ir.Load(acc, (ir.Int(0),))
            accs.append(acc)
        inner = out
        self.stack.append(id(op))
        for iv, (lo, hi, step) in zip(ivs, bounds):
            var = self.loop_var(iv, "i")
            if step == 1:
                node = Loop(var, lo, hi, axis=axis)
                self.values.reads[iv] = ir.Var(var)
            else:
                node = Loop(var, ir.Int(0), ir.FloorDiv(add(sub(hi, lo), ir.Int(step - 1)), step), axis=axis)
                self.values.reads[iv] = add(lo, mul(ir.Int(step), ir.Var(var)))
            inner.append(node)
            inner = node.body
        self.block(body_block, inner)
        term = body_block.last_op
        if accs:
            vals = [self.values.translate(x) for x in term.operands]
            if len(accs) > 1:  # update all at once: through temporaries
                temps = []
                for acc, val in zip(accs, vals):
                    t = self.temp(self.prec_of(acc))
                    inner.append(ir.Assign(t, (ir.Int(0),), val))
                    temps.append(t)
                vals = [ir.Load(t, (ir.Int(0),)) for t in temps]
            for acc, val in zip(accs, vals):
                inner.extend(accumulations(acc, val))
        self.stack.pop()
        for res, acc in zip(results, accs):
            self.values.reads[res] = ir.Load(acc, (ir.Int(0),))
        return accs

    def prec_of(self, tensor: str) -> str:
        return next(t.prec for t in self.tensors if t.name == tensor)


def accumulations(acc: str, value) -> list:
    """`acc[0] = value` as successive accumulations when value is a chain `((acc + a) + b) + c`
    (each step rounds to acc's type in MLIR as in the DSL), so the verifier sees one reduction."""
    cell = ir.Load(acc, (ir.Int(0),))
    terms = _chain(value, cell)
    if not terms:
        return [ir.Assign(acc, (ir.Int(0),), value)]
    return [ir.Assign(acc, (ir.Int(0),), ir.BinOp(op, cell, t)) for op, t in terms]


def _chain(e, cell):
    if e == cell:
        return []
    if isinstance(e, ir.BinOp) and e.op in ("+", "*"):
        for inner, term in ((e.a, e.b), (e.b, e.a)):
            sub = _chain(inner, cell)
            if sub is not None and not _reads(term, cell.tensor):
                return sub + [(e.op, term)]
    return None


def _reads(e, tensor: str) -> bool:
    from verified_sched.core.ir import walk
    return any(isinstance(n, ir.Load) and n.tensor == tensor for n in walk(e))


def _signature_names(text: str, fname: str) -> list:
    """The argument names as written in the text's `func.func @fname(%a: ..., %b: ...)`."""
    m = re.search(r"func\.func\s+(?:private\s+)?@" + re.escape(fname) + r"\s*\(([^)]*)\)", text)
    return re.findall(r"%([A-Za-z_][A-Za-z0-9_]*)\s*:", m.group(1)) if m else []


def _stores_under(op) -> set:
    """The roots of the memrefs stored anywhere under op."""
    return {memref_root(inner.operands[1]) for inner in op.walk()
            if opname(inner) in ("affine.store", "memref.store", "memref.copy")}


def import_affine_functions(text: str, filename: str = "<mlir>", prefix: str = "", arg_names=None,
                            iree_opt: str | None = None) -> list:
    """[Imported] of every func.func of the text."""
    imp = AffineImporter(text, filename, prefix, arg_names, iree_opt)
    funcs = imp.functions()
    if not funcs:
        raise MlirImportError("no func.func in the MLIR")
    return [imp.function(f) for f in funcs]


def program_of(functions: list, claim: tuple | None = None, profile: str | None = None) -> ir.Program:
    """One program: each function a kernel (named after it), tensors and params merged by name."""
    params, constraints, tensors, kernels, seen = [], [], [], [], set()
    for f in functions:
        for p in f.params:
            if p not in params:
                params.append(p)
        for c in f.constraints:
            if c not in constraints:
                constraints.append(c)
        for t in f.tensors:
            if t.name not in seen:
                seen.add(t.name)
                tensors.append(t)
        kernels.append(ir.Kernel(f.name, f.body))
    claims = (ir.Claim(*claim),) if claim else ()
    return ir.Program(params=tuple(params), constraints=tuple(constraints), profile=profile,
                      tensors=tuple(tensors), kernels=tuple(kernels), claims=claims)


def import_affine(text: str, filename: str = "<mlir>", iree_opt: str | None = None) -> ir.Program:
    """`vsched import` of affine/scf/memref MLIR: one kernel per function (printed, parsed back)."""
    from verified_sched.dsl.parser import parse_text
    from verified_sched.core.printer import print_program

    funcs = import_affine_functions(text, filename, iree_opt=iree_opt)
    return parse_text(print_program(program_of(funcs)), filename + ".vs")


def is_affine_text(text: str) -> bool:
    """Whether MLIR text is for this importer (memrefs) rather than the linalg-on-tensors one."""
    return "memref<" in text and "tensor<" not in text


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError as e:
        raise MlirImportError(f"cannot read {path}: {e.strerror}") from None


def is_affine_file(path: str) -> bool:
    return is_affine_text(_read(path))


def import_affine_file(path: str) -> ir.Program:
    return import_affine(_read(path), path)
