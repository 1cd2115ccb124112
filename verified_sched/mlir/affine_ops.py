"""The statement ops of the affine import, one handler each: `HANDLERS[name](imp, op, out)` appends
the op's pending statements to `out` (imp: affine_import.AffineImporter)."""
from __future__ import annotations

from verified_sched.core import ir

from .affine_maps import fold, map_results, set_cond
from .affine_values import Guard, Loop, MemView
from .import_body import add, mul
from .ximport import array_values, elem_of, prop

_DYNAMIC = -9223372036854775808


def _segments(op) -> list:
    return list(array_values(op, "operandSegmentSizes"))


def _split(seq, sizes) -> list:
    out, pos = [], 0
    for n in sizes:
        out.append(list(seq[pos:pos + n]))
        pos += n
    return out


def _step(imp, op, value) -> int:
    e = imp.values.index(value) if not isinstance(value, int) else ir.Int(value)
    if not isinstance(e, ir.Int) or e.value <= 0:
        raise imp.error(op, "a loop step that is not a positive constant")
    return e.value


def affine_for(imp, op, out) -> None:
    nl, nu, ni = _segments(op)
    lbo, ubo, inits = _split(op.operands, (nl, nu, ni))
    idx = imp.values.index
    lo = fold(map_results(prop(op, "lowerBoundMap"), [idx(x) for x in lbo]), "max")
    hi = fold(map_results(prop(op, "upperBoundMap"), [idx(x) for x in ubo]), "min")
    step = int(prop(op, "step").value.data)
    if step <= 0:
        raise imp.error(op, "a loop step that is not positive")
    block = op.regions[0].blocks[0]
    imp.loop(op, out, [block.args[0]], [(lo, hi, step)], block, inits, op.results)


def scf_for(imp, op, out) -> None:
    lb, ub, step, *inits = op.operands
    block = op.regions[0].blocks[0]
    bounds = [(imp.values.index(lb), imp.values.index(ub), _step(imp, op, step))]
    imp.loop(op, out, [block.args[0]], bounds, block, inits, op.results)


def affine_parallel(imp, op, out) -> None:
    if prop(op, "reductions") is not None and len(prop(op, "reductions").data) or op.results:
        raise imp.error(op, "an affine.parallel with reductions (not supported)")
    block = op.regions[0].blocks[0]
    n = len(block.args)
    lgroups = _group_sizes(prop(op, "lowerBoundsGroups"), n)
    ugroups = _group_sizes(prop(op, "upperBoundsGroups"), n)
    lmap = prop(op, "lowerBoundsMap")
    nld = lmap.data.num_dims + lmap.data.num_symbols
    ops = [imp.values.index(x) for x in op.operands]
    lows = _split(map_results(lmap, ops[:nld]), lgroups)
    highs = _split(map_results(prop(op, "upperBoundsMap"), ops[nld:]), ugroups)
    steps = [int(getattr(s, "value", s).data) if hasattr(s, "value") else int(s) for s in prop(op, "steps").data]
    bounds = [(fold(lo, "max"), fold(hi, "min"), s) for lo, hi, s in zip(lows, highs, steps)]
    imp.loop(op, out, list(block.args), bounds, block, axis="vectorized")


def _group_sizes(attr, n) -> list:
    if attr is None:
        return [1] * n
    if hasattr(attr, "get_values"):
        return [int(v) for v in attr.get_values()]
    return [int(getattr(getattr(v, "value", v), "data", v)) for v in attr.data]


def scf_parallel(imp, op, out) -> None:
    nl, nu, ns, ni = _segments(op)
    lbs, ubs, steps, inits = _split(op.operands, (nl, nu, ns, ni))
    if inits or op.results:
        raise imp.error(op, "an scf.parallel with reductions (not supported)")
    block = op.regions[0].blocks[0]
    bounds = [(imp.values.index(lo), imp.values.index(hi), _step(imp, op, s)) for lo, hi, s in zip(lbs, ubs, steps)]
    imp.loop(op, out, list(block.args), bounds, block, axis="vectorized")


def _branches(imp, op, out, cond) -> None:
    if op.results:
        raise imp.error(op, "an if with results (not supported)")
    g = Guard(cond)
    out.append(g)
    for region, body in zip(op.regions, (g.then, g.orelse)):
        if region.blocks:
            imp.block(region.blocks[0], body)


def affine_if(imp, op, out) -> None:
    cond = set_cond(prop(op, "condition"), [imp.values.index(x) for x in op.operands])
    _branches(imp, op, out, cond)


def scf_if(imp, op, out) -> None:
    _branches(imp, op, out, imp.values.cond(op.operands[0]))


def store(imp, op, out) -> None:
    imp.store(op, out)


def alloc(imp, op, out) -> None:
    ty = op.results[0].type
    prec = elem_of(ty.element_type)
    if prec not in ("f32", "f16", "bf16", "f64", "i32"):
        raise imp.error(op, f"an allocation of {prec}")
    if imp.stack:
        raise imp.error(op, "an allocation inside a loop (allocate it before the loops)")
    dyn = iter(op.operands)
    dims = []
    for n in ty.get_shape():
        dims.append(imp.values.index(next(dyn)) if n < 0 else ir.Int(int(n)))
    name = imp.fresh_name(op.results[0].name_hint or "buf")
    imp.tensors.append(ir.Tensor(name, tuple(dims) or (ir.Int(1),), prec, "global", scratch=True))
    rank = len(dims)
    imp.views[op.results[0]] = MemView(name, dims, [ir.Int(0)] * rank, [ir.Int(1)] * rank, op.results[0], prec)


def _mixed(imp, op, static_name: str, dynamic: list) -> list:
    dyn = iter(dynamic)
    return [imp.values.index(next(dyn)) if v == _DYNAMIC else ir.Int(v) for v in array_values(op, static_name)]


def subview(imp, op, out) -> None:
    src = imp.view(op.operands[0], op)
    no, ns, nt = _segments(op)[1:]
    offs, sizes, strides = _split(op.operands[1:], (no, ns, nt))
    offsets = _mixed(imp, op, "static_offsets", offs)
    shape = _mixed(imp, op, "static_sizes", sizes)
    steps = _mixed(imp, op, "static_strides", strides)
    if len(shape) != len(src.shape) or len(op.results[0].type.get_shape()) != len(shape):
        raise imp.error(op, "a rank-reducing subview (not supported)")
    imp.views[op.results[0]] = MemView(
        src.base, shape, [add(o, mul(s, off)) for o, s, off in zip(src.offsets, src.strides, offsets)],
        [mul(s, t) for s, t in zip(src.strides, steps)], src.root, src.prec)


def cast(imp, op, out) -> None:
    imp.views[op.results[0]] = imp.view(op.operands[0], op)


def copy(imp, op, out) -> None:
    src, dst = imp.view(op.operands[0], op), imp.view(op.operands[1], op)
    if src.prec != dst.prec or len(src.shape) != len(dst.shape):
        raise imp.error(op, "a copy between memrefs of different element types or ranks")
    vars_ = [imp.fresh_name("c") for _ in dst.shape]
    body = ir.Assign(dst.base, dst.cell([ir.Var(v) for v in vars_]), src_read(src, vars_))
    node = body
    for v, extent in reversed(list(zip(vars_, dst.shape))):
        node = Loop(v, ir.Int(0), extent, [node])
    out.append(node)
    imp.stored(dst.root)


def src_read(src, vars_) -> ir.Load:
    return ir.Load(src.base, src.cell([ir.Var(v) for v in vars_]))


def ret(imp, op, out) -> None:
    for k, v in enumerate(op.operands):
        prec = str(v.type)
        if prec not in ("f32", "f16", "bf16", "f64", "i32"):
            raise imp.error(op, f"a result of type {prec} (only scalar results)")
        name = imp.fresh_name(f"result{k}", prefixed=False)
        imp.tensors.append(ir.Tensor(name, (ir.Int(1),), prec))
        out.append(ir.Assign(name, (ir.Int(0),), imp.values.translate(v)))


def linalg_generic(imp, op, out) -> None:
    """A linalg.generic on memrefs: loops d0..dn (the order convert-linalg-to-affine-loops
    keeps), each operand read through its indexing map, each yielded value stored."""
    from xdsl.ir.affine import AffineDimExpr

    maps = [m.data for m in prop(op, "indexing_maps").data]
    operands = list(op.operands)
    views = [imp.view(v, op) if str(v.type).startswith("memref<") else None for v in operands]
    n = maps[0].num_dims
    extents = [None] * n
    for m, v in zip(maps, views):
        for k, r in enumerate(m.results):
            if v is not None and isinstance(r, AffineDimExpr) and extents[r.position] is None:
                extents[r.position] = v.shape[k]
    if any(e is None for e in extents):
        raise imp.error(op, "a linalg.generic with a loop that no operand dimension bounds")
    block = op.regions[0].blocks[0]
    ninputs = _segments(op)[0]
    imp.stored_in[id(op)] = {imp.view(v, op).root for v in operands[ninputs:]}
    imp.stack.append(id(op))
    vars_ = [imp.fresh_name(f"d{k}") for k in range(n)]
    node = outer = None
    for v in vars_:
        loop = Loop(v, ir.Int(0), extents[vars_.index(v)])
        (outer.body if outer is not None else out).append(loop)
        node = outer = loop
    body = node.body if node is not None else out
    ivs = [ir.Var(v) for v in vars_]
    for arg, m, v, x in zip(block.args, maps, views, operands):
        imp.values.reads[arg] = (ir.Load(v.base, v.cell(map_results(m, ivs))) if v is not None
                                 else imp.values.translate(x))
    index_ops = [o for o in block.ops if o.name == "linalg.index"]
    for o in index_ops:
        imp.values.reads[o.results[0]] = ivs[int(o.properties["dim"].value.data)]
    for o in block.ops:
        if not (o.name.startswith(("arith.", "math.")) or o.name in ("linalg.index", "linalg.yield")):
            raise imp.error(o, "an op in a linalg.generic region (supported: arith, math, linalg.index)")
    yields = block.last_op.operands
    for val, m, v in zip(yields, maps[ninputs:], views[ninputs:]):
        body.append(ir.Assign(v.base, v.cell(map_results(m, ivs)), imp.values.translate(val)))
    for v in views[ninputs:]:
        imp.stored(v.root)
    imp.stack.pop()


HANDLERS = {
    "linalg.generic": linalg_generic,
    "affine.for": affine_for, "scf.for": scf_for, "affine.parallel": affine_parallel,
    "scf.parallel": scf_parallel, "affine.if": affine_if, "scf.if": scf_if,
    "affine.store": store, "memref.store": store, "memref.alloc": alloc, "memref.alloca": alloc,
    "memref.subview": subview, "memref.cast": cast, "memref.copy": copy, "func.return": ret,
}
