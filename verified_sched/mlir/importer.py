"""`vsched import FILE.mlir`: linalg on tensors to a .vs program.

Each `func.func` becomes a kernel; its tensor arguments become global tensors named after them
and its results tensors `NAME_result0`, ... (written by a final copy). Every tensor value the
function computes is a *view* of a global tensor: ops that create data get a tensor of their own
(named after the SSA value), ops that only re-index are index arithmetic on their source:

- linalg.generic (and the named ops of generalize.py): one nest over its iteration domain
  (dimension order kept, so reductions sum in the same order), assigning each output cell the
  region's value (import_body.py); the output starts as the `outs` operand, written in place
  when nothing else reads that tensor afterwards, else copied first;
- linalg.fill: `zero T` (0) or a nest storing the constant; tensor.empty: a tensor, no code;
- tensor.pad: the pad value everywhere, then the source copied at the low offsets;
- tensor.insert_slice: the destination (in place or copied), then the source at offsets/strides;
- tensor.extract_slice, tensor.expand_shape, tensor.collapse_shape, tensor.cast: views
  (offset + stride * i; mixed-radix products and floor/mod); a cast between static shapes that
  differ is refused.

Static shapes become params, one per distinct extent (`D7 == 7`), so the shapes stay symbols
the provers see; index arithmetic keeps numbers. Anything else is an error naming the op and
its position (FILE:LINE:COL).
"""
from __future__ import annotations

import math
import re

from verified_sched.core import ir
from verified_sched.dsl.exprs import RESERVED
from verified_sched.dsl.parser import parse_text
from verified_sched.core.printer import print_program

from .generalize import NAMED, REGION_OPS, Spec, named_spec, region_spec
from .import_body import BodyTranslator, add, float_literal, mul, scalar_constant
from .import_tensor import TensorOps, View
from .ximport import (MlirImportError, elem_of, locate, parse_module, prop, shape_of,
                      split_results, take_resources, util_as_func)

PRECS = ("f32", "f16", "bf16", "f64", "i32")
VIEW_OPS = ("tensor.extract_slice", "tensor.expand_shape", "tensor.collapse_shape", "tensor.cast")


class Importer(TensorOps):
    def __init__(self, text: str, filename: str = "<mlir>", params: bool = True, bind: dict | None = None,
                 prefix: str = "", memory: str = "global", reserved=()):
        text, self.resources = take_resources(split_results(util_as_func(text)))
        self.text = text
        self.filename = filename
        self.use_params = params
        # {func: ([arg tensor names], [result tensor names], kernel name)}: bind a function to
        # tensors declared elsewhere (not declared again) and name its kernel
        self.bind = bind or {}
        self.prefix = prefix
        self.memory = memory
        self.external: set = set()
        self.module = parse_module(text, filename)
        self.locs = locate(self.module, text, filename)
        self.tensors: dict = {}  # name -> (shape, prec)
        self.kernels: list = []
        self.constants: dict = {}  # tensor name -> numpy array (non-splat constants: parameters)
        self.extents: set = set()
        self.reserved: set = set(RESERVED) | set(reserved)

    # ------------------------------------------------------------ helpers
    def error(self, op, message: str) -> MlirImportError:
        name = f"'{op.name}': " if op is not None and hasattr(op, "name") else ""
        return MlirImportError(name + message, self.locs.get(id(op)) if op is not None else None)

    def size(self, n: int):
        if not self.use_params:
            return ir.Int(n)
        self.extents.add(n)
        return ir.Var(f"D{n}")

    def new_tensor(self, hint, shape, prec, op) -> str:
        if prec not in PRECS:
            raise self.error(op, f"element type {prec} (supported: {', '.join(PRECS)})")
        stem = re.sub(r"\W", "_", hint or "t")
        stem = self.prefix + (stem if stem[:1].isalpha() else "t_" + stem)
        name, k = stem, 0
        while name in self.tensors or name in self.reserved or re.fullmatch(r"D\d+", name):
            k += 1
            name = f"{stem}_{k}"
        self.tensors[name] = (tuple(shape), prec)
        return name

    def scalar_constant(self, op):
        return scalar_constant(op, self)

    def scalar_operand(self, value, op):
        """A scalar (non-tensor) input of a linalg op, e.g. the fill value of a generalized
        linalg.fill: a constant, as an expression."""
        src = getattr(value, "op", None)
        if getattr(src, "name", None) != "arith.constant":
            raise self.error(op, f"a scalar input {value.name_hint or ''} that is not a constant")
        return self.scalar_constant(src)

    def view(self, value, op) -> View:
        if value not in self.values:
            raise self.error(op, f"the operand {value} is not a tensor this importer translated")
        return self.values[value]

    def nest(self, extents, make, kind: str) -> None:
        """Append `for K0_i0 .. for K0_iN: make(vars)` (a list of statements) to the kernel.
        Loops are named `<kind><n>_i<k>`, unique in the kernel, so a schedule can name them:
        kind `g` a linalg op (generic or named; `g3_i0` is the fourth one's first loop), `c`
        a copy, `f` a fill, `p` a pad, `s` an insert_slice; n counts that kind's nests."""
        n = self.counts.get(kind, 0)
        self.counts[kind] = n + 1
        names = [f"{kind}{n}_i{k}" for k in range(len(extents))]
        body = tuple(make([ir.Var(x) for x in names]))
        for k in reversed(range(len(extents))):
            body = (ir.For(names[k], ir.Int(0), self.size(extents[k]), "serial", body),)
        self.stmts.extend(body)

    def copy(self, dst: str, src: View) -> None:
        self.nest(list(src.shape), lambda v: [ir.Assign(dst, tuple(v), src.read(v))], "c")

    def fill(self, dst: str, value, shape) -> None:
        if isinstance(value, (ir.Float, ir.Int)) and value.value == 0:
            self.stmts.append(ir.Zero(dst))
        else:
            self.nest(list(shape), lambda v: [ir.Assign(dst, tuple(v), value)], "f")

    def writable(self, value, op, init: bool) -> str:
        """The tensor an op writing into `value` (its `outs`/destination) writes: the value's
        own tensor when nothing else reads that tensor at or after this op, else a copy."""
        src = self.view(value, op)
        here = self.order[id(op)]
        free = (src.identity and src.base not in self.args and
                all(self.last_use.get(v, -1) < here or (v is value and v.uses.get_length() == 1)
                    for v in self.by_base.get(src.base, [])))
        if free:
            return src.base
        shape, prec = src.shape, self.tensors[src.base][1]
        name = self.new_tensor(getattr(value, "name_hint", None) or "t", shape, prec, op)
        if init:
            self.copy(name, src)
        return name

    def define(self, value, view: View) -> None:
        self.values[value] = view
        self.by_base.setdefault(view.base, []).append(value)

    # ------------------------------------------------------------ functions
    def translate(self) -> None:
        for func in self.module.ops:
            if func.name != "func.func":
                raise self.error(func, "only func.func at the top level")
            self.function(func)

    def tensor_lines(self) -> list:
        lines = []
        for name, (shape, prec) in self.tensors.items():
            if name in self.external:
                continue
            dims = ", ".join(print_dim(self.size(n)) for n in shape)
            lines.append(f"tensor {name}[{dims}] {prec}" + (f" {self.memory}" if self.memory != "global" else ""))
        return lines

    def run(self) -> ir.Program:
        self.translate()
        lines = self.tensor_lines()
        params = sorted(self.extents)
        if params:
            lines.insert(0, "params " + ", ".join(f"D{n}" for n in params) + " where " +
                         ", ".join(f"D{n} == {n}" for n in params))
        program = ir.Program(tensors=(), kernels=tuple(self.kernels))
        text = "\n".join(lines) + "\n\n" + print_program(program)
        return parse_text(text, self.filename + ".vs")

    def function(self, func) -> None:
        fname = func.sym_name.data
        self.values, self.by_base, self.stmts, self.args, self.counts = {}, {}, [], set(), {}
        block = func.body.block
        arg_names, res_names, kname = self.bind.get(fname, (None, None, fname))
        for k, arg in enumerate(block.args):
            prec = elem_of(arg.type.get_element_type()) if hasattr(arg.type, "get_element_type") else None
            if prec is None:
                raise self.error(func, f"argument {k} is not a tensor")
            prec = "bf16" if prec == "i16" else prec  # bf16 bit patterns, as `emit --target mlir` passes them
            shape = shape_of(arg.type)
            if arg_names:
                name = arg_names[k]
                self.tensors[name] = (shape, prec)
                self.external.add(name)
            else:
                name = self.new_tensor(f"{fname}_{arg.name_hint or f'arg{k}'}", shape, prec, func)
            self.args.add(name)
            self.define(arg, View(name, shape, lambda i: i))
        ops = list(block.ops)
        self.order, self.last_use = {}, {}
        for n, op in enumerate(ops):
            self.order[id(op)] = n
            for inner in op.walk():
                for v in inner.operands:
                    self.last_use[v] = n
        for op in ops:
            self.operation(op, fname, res_names)
        self.kernels.append(ir.Kernel(kname, tuple(self.stmts)))

    def operation(self, op, fname, res_names) -> None:
        name = op.name
        if name == "arith.constant":
            ty = op.results[0].type
            if hasattr(ty, "get_shape"):
                self.dense_constant(op)
            return
        if name == "tensor.empty":
            r = op.results[0]
            if elem_of(r.type.get_element_type()) not in PRECS:  # a shape-only operand: never read
                self.define(r, View("", shape_of(r.type), lambda i: i))
                return
            t = self.new_tensor(r.name_hint or "empty", shape_of(r.type), elem_of(r.type.get_element_type()), op)
            self.define(r, View(t, shape_of(r.type), lambda i: i))
            return
        if name == "arith.bitcast" and hasattr(op.results[0].type, "get_shape"):
            pair = {elem_of(op.operands[0].type.get_element_type()), elem_of(op.results[0].type.get_element_type())}
            if pair != {"i16", "bf16"}:
                raise self.error(op, "a tensor bitcast other than i16 <-> bf16 bit patterns")
            self.define(op.results[0], self.view(op.operands[0], op))
            return
        if name == "linalg.fill" and elem_of(op.results[0].type.get_element_type()) not in PRECS:
            # e.g. the i64 index output of torch-mlir's max (softmax): kept only when unused
            self.define(op.results[0], View("", shape_of(op.results[0].type), lambda i: i))
            return
        if name == "linalg.fill":
            value = self.scalar_constant(op.inputs[0].op) if hasattr(op.inputs[0], "op") else None
            if value is None:
                raise self.error(op, "a fill value that is not a constant")
            dst = self.writable(op.outputs[0], op, init=False)
            shape = shape_of(op.results[0].type)
            self.fill(dst, value, shape)
            self.define(op.results[0], View(dst, shape, lambda i: i))
            return
        if name in REGION_OPS or name in NAMED:
            self.generic(op)
            return
        if name == "tensor.pad":
            self.pad(op)
            return
        if name == "tensor.concat":
            self.concat(op)
            return
        if name == "tensor.insert_slice":
            self.insert_slice(op)
            return
        if name in VIEW_OPS:
            self.define(op.results[0], self.reshape(op))
            return
        if name == "func.return":
            self.returns(op, fname, res_names)
            return
        raise self.error(op, "unsupported operation (the importer takes linalg.generic and named "
                             f"{', '.join(n.split('.')[1] for n in NAMED)}, linalg.fill, tensor.empty/pad/"
                             "insert_slice/extract_slice/expand_shape/collapse_shape/cast, arith "
                             "constants; generalize other named ops with `iree-opt "
                             "--linalg-generalize-named-ops`)")

    def dense_constant(self, op) -> None:
        """A splat constant: a tensor filled with its value. Any other (a model's parameters:
        `dense<[...]>` or `dense_resource<NAME>` with the blob in the file's dialect_resources)
        is an input tensor whose values are kept in `self.constants` (`vsched import -o OUT.vs`
        writes each beside OUT as OUT.NAME.npy, which `vsched exec` loads)."""
        attr = prop(op, "value")
        r = op.results[0]
        values = list(attr.get_values()) if hasattr(attr, "get_values") else []
        prec = elem_of(r.type.get_element_type())
        if not values or any(v != values[0] for v in values):
            if self.memory != "global":
                raise self.error(op, "a non-splat tensor constant in a bound import")
            t = self.new_tensor(r.name_hint or "cst", shape_of(r.type), prec, op)
            self.constants[t] = constant_values(attr, values, shape_of(r.type), prec, self.resources,
                                                lambda m: self.error(op, m))
            self.define(r, View(t, shape_of(r.type), lambda i: i))
            return
        t = self.new_tensor(r.name_hint or "cst", shape_of(r.type), prec, op)
        v = values[0]
        self.fill(t, float_literal(float(v), op, self) if prec != "i32" else ir.Int(int(v)), shape_of(r.type))
        self.define(r, View(t, shape_of(r.type), lambda i: i))

    # ------------------------------------------------------------ linalg
    def generic(self, op) -> None:
        spec = self.generic_spec(op) if op.name == "linalg.generic" else region_spec(op) or named_spec(op)
        if spec is None:
            raise self.error(op, "unsupported named op")
        views = [self.view(v, op) if hasattr(v.type, "get_shape") else self.scalar_operand(v, op) for v in spec.ins]
        region = op.name in REGION_OPS
        block = (op.body if hasattr(op, "body") else op.regions[0]).block if region else None
        # outputs nothing reads afterwards are not computed (torch-mlir's max yields the argmax
        # too, an i64 output a softmax never uses)
        keep = [k for k, r in enumerate(op.results) if r.uses.get_length() > 0] or list(range(len(spec.outs)))
        if len(spec.outs) == 1:
            keep = [0]
        nin = len(spec.ins)
        spec = Spec(spec.ins, [spec.outs[k] for k in keep], spec.extents, spec.iters,
                    spec.index[:nin] + [spec.index[nin + k] for k in keep], spec.body)
        uses_out = [True] * len(spec.outs)
        if region:  # (linalg.map's region has no argument for the output)
            outs_args = [block.args[nin + k] for k in keep if nin + k < len(block.args)]
            uses_out = [a.uses.get_length() > 0 for a in outs_args] + [False] * (len(keep) - len(outs_args))
        dsts = [self.writable(v, op, init=u) for v, u in zip(spec.outs, uses_out)]
        if len(dsts) > 1 and len(set(dsts)) != len(dsts):
            raise self.error(op, "two outputs written into one tensor")
        if len(spec.outs) > 1 and region and any(uses_out):
            raise self.error(op, "several outputs whose region reads the outputs")

        def make(vars_):
            ins = [vw if not isinstance(vw, View) else vw.read(spec.index[j](vars_)) if vw.base else None
                   for j, vw in enumerate(views)]
            out_idx = [tuple(spec.index[nin + j](vars_)) for j in range(len(dsts))]
            outs = [ir.Load(d, idx) for d, idx in zip(dsts, out_idx)]
            if region:
                reads = dict(zip(list(block.args[:nin]) + outs_args, ins + outs))
                tr = BodyTranslator(self, reads, [v.name for v in vars_])
                yields = [list(block.ops)[-1].operands[k] for k in keep]
                values = [self.top_value(tr, y, self.tensors[d][1]) for y, d in zip(yields, dsts)]
            else:
                values = spec.body(ins, outs)
            return [ir.Assign(d, idx, v) for d, idx, v in zip(dsts, out_idx, values)]

        self.nest(spec.extents, make, "g")
        for r, d in zip([op.results[k] for k in keep], dsts):
            self.define(r, View(d, shape_of(r.type), lambda i: i))

    @staticmethod
    def top_value(tr: BodyTranslator, y, prec: str):
        """The stored value: the outermost f16/bf16 rounding is the store's own."""
        e = tr.translate(y)
        return e.a if isinstance(e, ir.Cast) and e.prec == prec else e

    def generic_spec(self, op) -> Spec:
        ins, outs = list(op.inputs), list(op.outputs)
        maps = [m.data for m in op.indexing_maps.data]
        iters = [str(getattr(t, "data", t)).split(".")[-1].lower().split(":")[0] for t in op.iterator_types.data]
        iters = ["reduction" if "reduction" in t else "parallel" for t in iters]
        ndims = maps[0].num_dims
        extents = [None] * ndims
        for v, m in zip(ins + outs, maps):
            if not hasattr(v.type, "get_shape"):  # a scalar operand (map `-> ()`)
                continue
            for res, n in zip(m.results, shape_of(v.type)):
                if type(res).__name__ == "AffineDimExpr" and extents[res.position] is None:
                    extents[res.position] = n
        if any(e is None for e in extents):
            raise self.error(op, "a loop whose extent no operand shape gives")
        index = [self._affine_fn(m, op) for m in maps]
        return Spec(ins, outs, extents, iters, index, None)

    def _affine_fn(self, amap, op):
        if amap.num_symbols:
            raise self.error(op, "an indexing map with symbols")

        def conv(e, vars_):
            kind = type(e).__name__
            if kind == "AffineDimExpr":
                return vars_[e.position]
            if kind == "AffineConstantExpr":
                return ir.Int(e.value)
            if kind == "AffineBinaryOpExpr":
                a = conv(e.lhs, vars_)
                kname = e.kind.name
                if kname == "Add":
                    return add(a, conv(e.rhs, vars_))
                if kname == "Mul":
                    return mul(a, conv(e.rhs, vars_))
                if kname in ("Mod", "FloorDiv", "CeilDiv") and type(e.rhs).__name__ == "AffineConstantExpr":
                    c = e.rhs.value
                    if kname == "Mod":
                        return ir.Mod(a, c)
                    return ir.FloorDiv(a if kname == "FloorDiv" else add(a, ir.Int(c - 1)), c)
            raise self.error(op, f"the affine expression {e}")

        return lambda vars_: tuple(conv(r, vars_) for r in amap.results)


def print_dim(e) -> str:
    return e.name if isinstance(e, ir.Var) else str(e.value)


def import_with_constants(path: str) -> tuple:
    """(program, {tensor: numpy array} of its parameters) of the MLIR file `path`."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as e:
        raise MlirImportError(f"cannot read {path}: {e.strerror}") from None
    try:
        imp = Importer(text, path)
    except MlirImportError as e:
        generalized = _generalized(path) if "cannot parse the MLIR" in str(e) else None
        if generalized is None:
            raise
        imp = Importer(generalized, f"{path} (as iree-opt --linalg-generalize-named-ops prints it)")
    return imp.run(), imp.constants


def _generalized(path: str):
    """The text of `iree-opt --linalg-generalize-named-ops FILE`, for a file xdsl 0.74 cannot
    parse because it holds a linalg op xdsl does not define (`linalg.map`'s short form, ...);
    None when iree-opt is not installed or refuses the file too."""
    import shutil
    import subprocess

    tool = shutil.which("iree-opt")
    if tool is None:
        return None
    try:
        p = subprocess.run([tool, "--linalg-generalize-named-ops", path], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout if p.returncode == 0 else None


_NP = {"f32": "<f4", "f64": "<f8", "i32": "<i4", "f16": "<f2"}


def constant_values(attr, values, shape, prec, resources: dict, error):
    """The values of a non-splat constant as a numpy array of `shape`: a `dense<[...]>`
    literal's list, or a `dense_resource<NAME>` blob of the file's `{-# dialect_resources #-}`
    (hex: a 4-byte alignment, then the little-endian elements)."""
    import numpy as np

    if prec not in _NP:
        raise error(f"a non-splat {prec} constant (supported: {', '.join(_NP)})")
    if not values:
        handle = getattr(getattr(attr, "resource_handle", None), "data", None)
        if handle is None or handle not in resources:
            raise error(f"a constant whose values are not in the file (resource {handle})")
        data = bytes.fromhex(resources[handle])[4:]
        arr = np.frombuffer(data, dtype=_NP[prec])
    else:
        arr = np.array([float(v) if prec != "i32" else int(v) for v in values], dtype=_NP[prec])
    if arr.size != math.prod(shape):
        raise error(f"a constant of {arr.size} values for shape {'x'.join(map(str, shape))}")
    return arr.reshape(shape).astype(arr.dtype.newbyteorder("="))
