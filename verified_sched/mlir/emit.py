"""`vsched emit --target mlir`: a kernel as written, as MLIR on tensors built from linalg ops.

One `func.func @KERNEL` per kernel, at fixed sizes (every shape static). Its arguments are the
global tensors the kernel uses (program order, storage shape: dims plus padding; bf16 travels
as i16 bit patterns and is bitcast at entry and exit), its results the global tensors it writes
(program order). Each top-level statement becomes, in order:

- `zero T`: `linalg.fill` of 0 into a `tensor.empty`;
- a loop nest: one `linalg.generic` per assignment (a nest holding several assignments is
  distributed when they touch disjoint tensors), with one iteration dimension per enclosing
  loop (dimension = iterator - lower bound), the written cells as the output (an
  `extract_slice`/`insert_slice` pair, strided for `a * i + c`, when the loops cover part of
  the tensor), every read as
  an input with the affine map of its index (sliced so that an `i + c` component is a plain
  dimension) when every component increases with the iterators, else a `tensor.extract` in
  the region (IREE's tiling mis-sizes decreasing maps such as `2 - d0`), and the region computing the value (emit_body.py). A loop is `reduction`
  exactly when it does not index the written cell and the assignment is an accumulation
  (`t[I] = t[I] op e`, op in + * min max): the verifier's notion of a reduction.

Refused, with a UsageError naming the statement: guards (`if`), barriers, tensor-core blocks,
min/max or dynamic (non-affine) indices, loop bounds that depend on iterators, a written index
that is not a positive multiple of an iterator plus a constant, an assignment that reads the tensor it writes at
another cell (a loop-carried dependence; linalg's operands are values), a loop that does not
index the written cell of a non-accumulation, reads outside a tensor's storage.
"""
from __future__ import annotations

from verified_sched.core.dtypes import eval_int, global_tensors
from verified_sched.core import ir
from verified_sched.core.printer import expr_text, stmt_text
from verified_sched.core.errors import UsageError

from .affine import NotAffine, affine_text, interval, iterator_plus_const, linear
from .emit_body import COMPUTE, ELEM, Body, const_text


def tensor_type(t: ir.Tensor, sizes: dict, elem: str | None = None) -> str:
    shape = [eval_int(d, sizes) for d in t.storage_dims()]
    return shape_type(shape, elem or ELEM[t.prec])


def shape_type(shape, elem: str) -> str:
    return "tensor<" + "".join(f"{n}x" for n in shape) + elem + ">"


def arg_elem(prec: str) -> str:
    """Element type at the function boundary (bf16 as its i16 bit pattern)."""
    return "i16" if prec == "bf16" else ELEM[prec]


class Inexpressible(UsageError):
    """A kernel that linalg on tensors cannot express (the message says what)."""


def _refuse(kernel: str, node, why: str) -> UsageError:
    what = stmt_text(node).strip().splitlines()[0] if isinstance(node, ir.Node) else ""
    return Inexpressible(f"kernel {kernel}: linalg cannot express {why}" + (f" (in `{what}`)" if what else ""),
                      getattr(node, "loc", None))


def _top_loads(e) -> list:
    """The loads of a value expression, not descending into their indices."""
    out = []

    def visit(n):
        if isinstance(n, ir.Load):
            out.append(n)
            return
        if isinstance(n, ir.Node):
            for f in n.__dataclass_fields__:
                if f != "loc":
                    v = getattr(n, f)
                    for x in (v if isinstance(v, tuple) else (v,)):
                        if isinstance(x, (ir.Node, tuple)):
                            visit(x)
        elif isinstance(n, tuple):
            for x in n:
                visit(x)

    visit(e)
    return out


def _accessed(stmt: ir.Assign) -> set:
    return {stmt.tensor} | {n.tensor for n in ir.walk(stmt.value) if isinstance(n, ir.Load)} \
        | {n.tensor for x in stmt.index for n in ir.walk(x) if isinstance(n, ir.Load)}


class KernelEmitter:
    def __init__(self, program: ir.Program, kernel: ir.Kernel, sizes: dict):
        self.program = program
        self.kernel = kernel
        self.sizes = dict(sizes)
        self.params = {p: ir.Int(v) for p, v in sizes.items()}
        self.lines: list[str] = []
        self.count = 0
        self.cur: dict = {}

    def fresh(self, stem: str = "%t") -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def out(self, text: str) -> None:
        self.lines.append("    " + text)

    def ttype(self, name: str, shape=None) -> str:
        t = self.program.tensor(name)
        return tensor_type(t, self.sizes) if shape is None else shape_type(shape, ELEM[t.prec])

    def shape(self, name: str) -> list:
        return [eval_int(d, self.sizes) for d in self.program.tensor(name).storage_dims()]

    def current(self, name: str) -> str:
        if name not in self.cur:  # a shared/local scratch tensor: undefined until written
            v = self.fresh()
            self.out(f"{v} = tensor.empty() : {self.ttype(name)}")
            self.cur[name] = v
        return self.cur[name]

    # ------------------------------------------------------------ the function
    def emit(self) -> str:
        k = self.kernel
        used = {n.tensor for n in ir.walk(k.body) if isinstance(n, (ir.Load, ir.Assign, ir.Zero))}
        written = {n.tensor for n in ir.walk(k.body) if isinstance(n, (ir.Assign, ir.Zero))}
        args = [t for t in global_tensors(self.program) if t.name in used]
        results = [t for t in args if t.name in written]
        head = []
        for i, t in enumerate(args):
            head.append(f"%arg{i}: {tensor_type(t, self.sizes, arg_elem(t.prec))}")
            self.cur[t.name] = f"%arg{i}"
            if t.prec == "bf16":
                v = self.fresh()
                self.out(f"{v} = arith.bitcast %arg{i} : {tensor_type(t, self.sizes, 'i16')} to "
                         f"{tensor_type(t, self.sizes)}")
                self.cur[t.name] = v
        for stmt in k.body:
            self.statement(stmt)
        rets, rtypes = [], []
        for t in results:
            v = self.cur[t.name]
            if t.prec == "bf16":
                w = self.fresh()
                self.out(f"{w} = arith.bitcast {v} : {tensor_type(t, self.sizes)} to "
                         f"{tensor_type(t, self.sizes, 'i16')}")
                v = w
            rets.append(v)
            rtypes.append(tensor_type(t, self.sizes, arg_elem(t.prec)))
        self.out(f"return {', '.join(rets)} : {', '.join(rtypes)}" if rets else "return")
        sig = f"  func.func @{k.name}({', '.join(head)})" + (f" -> ({', '.join(rtypes)})" if rets else "")
        return "\n".join([sig + " {", *self.lines, "  }"])

    def statement(self, stmt) -> None:
        match stmt:
            case ir.Zero(tensor=name):
                self.fill(name)
            case ir.For() | ir.Assign():
                leaves = self.flatten(stmt, [])
                for i, (_, a) in enumerate(leaves):
                    for _, b in leaves[i + 1:]:
                        if a.tensor in _accessed(b) or b.tensor in _accessed(a):
                            raise _refuse(self.kernel.name, stmt, "a nest whose assignments share tensors "
                                          f"({a.tensor}, {b.tensor}): it would have to be distributed")
                for loops, assign in leaves:
                    self.generic(loops, assign)
            case ir.If():
                raise _refuse(self.kernel.name, stmt, "a guard (if)")
            case ir.Barrier():
                raise _refuse(self.kernel.name, stmt, "a barrier")
            case _:
                raise _refuse(self.kernel.name, stmt, "a tensor-core block")

    def flatten(self, stmt, loops: list) -> list:
        match stmt:
            case ir.For(var=v, lo=lo, hi=hi, body=body):
                out = []
                for s in body:
                    out += self.flatten(s, loops + [(v, lo, hi, stmt)])
                return out
            case ir.Assign():
                return [(loops, stmt)]
            case ir.If():
                raise _refuse(self.kernel.name, stmt, f"a guard (if {stmt_text(stmt).split('if', 1)[1].split('{')[0].strip()})")
            case ir.Zero():
                raise _refuse(self.kernel.name, stmt, "a zero inside a loop")
            case ir.Barrier():
                raise _refuse(self.kernel.name, stmt, "a barrier")
        raise _refuse(self.kernel.name, stmt, "a tensor-core block")

    def fill(self, name: str) -> None:
        t = self.program.tensor(name)
        e, f = self.fresh(), self.fresh()
        zero = self.fresh("%cst")
        ty = self.ttype(name)
        self.out(f"{zero} = arith.constant {const_text(0, COMPUTE[t.prec]) if t.prec not in ('f16', 'bf16') else '0.0 : ' + t.prec}")
        self.out(f"{e} = tensor.empty() : {ty}")
        self.out(f"{f} = linalg.fill ins({zero} : {ELEM[t.prec]}) outs({e} : {ty}) -> {ty}")
        self.cur[name] = f

    # ------------------------------------------------------------ one assignment
    def generic(self, loops: list, stmt: ir.Assign) -> None:
        kn = self.kernel.name
        orig, stmt = stmt, ir.substitute(stmt, self.params)  # messages quote the statement as written
        dims, ranges, extents = {}, {}, []
        for k, (v, lo, hi, node) in enumerate(loops):
            bad = (ir.free_vars(lo) | ir.free_vars(hi)) - set(self.sizes)
            if bad:
                raise _refuse(kn, node, f"the loop bound of {v}, which depends on {', '.join(sorted(bad))}")
            lo_v, hi_v = eval_int(lo, self.sizes), eval_int(hi, self.sizes)
            if hi_v <= lo_v:
                return  # no iterations: nothing to emit
            dims[v] = (k, lo_v)
            ranges[v] = (lo_v, hi_v - 1)
            extents.append(hi_v - lo_v)
        mdims = {v: (f"d{k}", lo) for v, (k, lo) in dims.items()}
        domain = "(" + ", ".join(f"d{k}" for k in range(len(loops))) + ")"
        target = stmt.tensor
        tshape = self.shape(target)
        # ---- the written cells: a * iterator + constant (a strided slice) or constant, per dim
        offs, sizes_, strides, kept, written_vars = [], [], [], [], []
        for comp, n in zip(stmt.index, tshape):
            lin = linear(comp)
            if lin is not None and not lin[0]:
                offs.append(lin[1]); sizes_.append(1); strides.append(1)  # noqa: E702
            elif lin is not None and len(lin[0]) == 1 and min(lin[0].values()) > 0 and \
                    next(iter(lin[0])) in dims and next(iter(lin[0])) not in written_vars:
                (v, a), = lin[0].items()
                offs.append(a * ranges[v][0] + lin[1]); sizes_.append(extents[dims[v][0]])  # noqa: E702
                strides.append(a)
                kept.append(len(offs) - 1)
                written_vars.append(v)
            else:
                raise _refuse(kn, orig, f"the written index {expr_text(comp)} (an output must be "
                                        "indexed by distinct iterators times a positive constant plus a constant)")
            if offs[-1] < 0 or offs[-1] + strides[-1] * (sizes_[-1] - 1) >= n:
                raise _refuse(kn, orig, f"a write outside {target}'s storage at these sizes")
        acc = ir.accumulation(stmt)
        iters = []
        for v, _, _, node in loops:
            if v in written_vars:
                iters.append("parallel")
            elif acc is not None:
                iters.append("reduction")
            else:
                raise _refuse(kn, orig, f"loop {v}, which does not index the written cell of an "
                                        "assignment that is not an accumulation (the last write would win)")
        # ---- operands
        self_load = ir.Load(target, stmt.index)
        ins, maps, leaves, covered = [], [], {}, set(written_vars)
        for ld in _top_loads(stmt.value):
            if ld in leaves:
                continue
            if ld.tensor == target:
                if ld != self_load:
                    raise _refuse(kn, orig, f"the read {expr_text(ld)} of the tensor it writes at another "
                                            "cell (a loop-carried dependence; linalg operands are values)")
                leaves[ld] = ("%out", self.program.tensor(target).prec)
                continue
            operand = self.operand(ld, orig, dims, ranges, extents, mdims, domain, covered)
            if operand is None:  # read inside the region with tensor.extract
                leaves[ld] = ("extract", self.current(ld.tensor))
                continue
            value, amap = operand
            leaves[ld] = (f"%in{len(ins)}", self.program.tensor(ld.tensor).prec)
            ins.append(value)
            maps.append(amap)
        for k, ext in enumerate(extents):
            if not any(dims[v][0] == k for v in covered):  # loop range only from a dummy operand
                v = self.fresh()
                ty = shape_type([ext], "i8")
                self.out(f"{v} = tensor.empty() : {ty}")
                ins.append((v, ty, "i8"))
                maps.append(f"affine_map<{domain} -> (d{k})>")
        # ---- output
        full = self.current(target)
        out_shape = [sizes_[i] for i in kept]
        # the whole tensor only when every dimension is an iterator's (a constant index of an
        # extent-1 dimension, t[i, 0], is a rank-reducing slice: the output map has no such dim)
        whole = offs == [0] * len(offs) and sizes_ == tshape and set(strides) <= {1} and len(kept) == len(offs)
        out_ty = self.ttype(target) if whole else self.ttype(target, out_shape)
        if whole:
            dest = full
        else:
            dest = self.fresh()
            self.out(f"{dest} = tensor.extract_slice {full}{self.slice_text(offs, sizes_, strides)} : "
                     f"{self.ttype(target)} to {out_ty}")
        out_map = f"affine_map<{domain} -> (" + ", ".join(f"d{dims[v][0]}" for v in written_vars) + ")>"
        # ---- region
        prec = self.program.tensor(target).prec
        body = Body(self.program, dims, leaves,
                    tensor_types={ld.tensor: self.ttype(ld.tensor) for ld in leaves})
        value = body.compute_to_storage(body.scalar(stmt.value, COMPUTE[prec]), prec)
        res = self.fresh()
        in_types = [x[1] for x in ins]
        args = [f"%in{i}: {x[2]}" for i, x in enumerate(ins)]
        args.append(f"%out: {ELEM[prec]}")
        attrs = (f"{{indexing_maps = [{', '.join(maps + [out_map])}], iterator_types = "
                 f"[{', '.join(repr(i).replace(chr(39), chr(34)) for i in iters)}]}}")
        ins_text = (f" ins({', '.join(x[0] for x in ins)} : {', '.join(in_types)})" if ins else "")
        self.out(f"{res} = linalg.generic {attrs}{ins_text} outs({dest} : {out_ty}) {{")
        self.out(f"^bb0({', '.join(args)}):")
        for line in body.lines:
            self.out("  " + line)
        self.out(f"  linalg.yield {value} : {ELEM[prec]}")
        self.out(f"}} -> {out_ty}")
        if whole:
            self.cur[target] = res
        else:
            new = self.fresh()
            self.out(f"{new} = tensor.insert_slice {res} into {full}{self.slice_text(offs, sizes_, strides)} : "
                     f"{out_ty} into {self.ttype(target)}")
            self.cur[target] = new

    @staticmethod
    def slice_text(offs, sizes, strides=None) -> str:
        strides = strides or [1] * len(offs)
        return f"[{', '.join(map(str, offs))}] [{', '.join(map(str, sizes))}] [{', '.join(map(str, strides))}]"

    def operand(self, ld: ir.Load, stmt, dims, ranges, extents, mdims, domain, covered):
        """(value, affine map) of one read; `i + c` components are sliced to plain dimensions."""
        kn = self.kernel.name
        shape = self.shape(ld.tensor)
        if len(ld.index) != len(shape):
            raise _refuse(kn, stmt, f"the read {expr_text(ld)} (rank mismatch)")
        offs, sizes_, results, monotone, plain = [], [], [], True, set()
        for comp, n in zip(ld.index, shape):
            try:
                text = affine_text(comp, mdims)
                lo, hi = interval(comp, ranges)
            except (NotAffine, KeyError) as e:
                raise _refuse(kn, stmt, str(e) if isinstance(e, NotAffine) else
                              f"the index {expr_text(comp)}") from None
            if lo < 0 or hi >= n:
                raise _refuse(kn, stmt, f"the read {expr_text(ld)}, outside {ld.tensor}'s storage "
                                        f"(index {lo}..{hi}, extent {n}) at these sizes")
            lin = linear(comp)
            monotone = monotone and lin is not None and all(c > 0 for c in lin[0].values())
            ipc = iterator_plus_const(comp)
            if ipc is not None:
                v, c = ipc
                offs.append(ranges[v][0] + c)
                sizes_.append(extents[dims[v][0]])
                results.append(f"d{dims[v][0]}")
                plain.add(v)
            else:
                offs.append(0)
                sizes_.append(n)
                results.append(text)
        if not monotone:
            # IREE tiles an operand by the map's values at the tile's bounds, which is wrong for
            # decreasing maps (2 - d0) and mod: such reads are tensor.extract in the region
            return None
        covered |= plain
        value = self.current(ld.tensor)
        if offs != [0] * len(offs) or sizes_ != shape:
            sl = self.fresh()
            self.out(f"{sl} = tensor.extract_slice {value}{self.slice_text(offs, sizes_)} : "
                     f"{self.ttype(ld.tensor)} to {self.ttype(ld.tensor, sizes_)}")
            value = sl
        return (value, self.ttype(ld.tensor, sizes_), ELEM[self.program.tensor(ld.tensor).prec]), \
            f"affine_map<{domain} -> ({', '.join(results)})>"


def emit_mlir(program: ir.Program, sizes: dict, kernels=None) -> str:
    """The MLIR module of the program's kernels (all, or the named ones) as written, at `sizes`."""
    from verified_sched.analysis.sizes import check_sizes

    check_sizes(program, sizes)
    names = [k.name for k in program.kernels] if kernels is None else list(kernels)
    funcs = [KernelEmitter(program, program.kernel(n), sizes).emit() for n in names]
    return "module {\n" + "\n".join(funcs) + "\n}\n"


def emit_cli(program: ir.Program, args) -> str:
    """`vsched emit FILE --target mlir [--size N=..]`: every kernel as written."""
    from verified_sched.analysis.sizes import parse_size_arg

    if args.after:
        raise UsageError("--target mlir emits the kernels as written; --after does not apply")
    sizes = parse_size_arg(args.size) if args.size else {}
    missing = [p for p in program.params if p not in sizes]
    if missing:
        raise UsageError(f"--target mlir needs static sizes: give --size {','.join(f'{p}=..' for p in missing)}")
    return emit_mlir(program, sizes)
