"""The tensor-dialect part of the importer (importer.py): `View`, a tensor value as a view of a
global tensor, and the ops that create or re-index one: tensor.pad, tensor.insert_slice, the
views (extract_slice, expand_shape, collapse_shape, cast) and func.return's final copies.
`TensorOps` is a base class of `Importer`, which provides `error`, `view`, `writable`,
`define`, `nest`, `fill`, `copy`, `new_tensor` and `scalar_constant`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from verified_sched.core import ir

from .import_body import add, mul
from .ximport import array_values, int_value, prop, shape_of


@dataclass
class View:
    """A tensor value: cell `idx` of it is cell `fn(idx)` of global tensor `base`."""

    base: str
    shape: tuple
    fn: Callable
    identity: bool = True

    def read(self, idx) -> ir.Load:
        return ir.Load(self.base, tuple(self.fn(tuple(idx))))


class TensorOps:
    def pad(self, op) -> None:
        src = self.view(op.operands[0], op)
        if len(op.operands) > 1:
            raise self.error(op, "dynamic padding amounts")
        low = array_values(op, "static_low")
        r = op.results[0]
        yields = list(op.region.block.ops)[-1].operands if hasattr(op, "region") else \
            list(op.regions[0].block.ops)[-1].operands
        value = yields[0]
        if not hasattr(value, "op") or value.op.name != "arith.constant":
            raise self.error(op, "a pad value that is not a constant")
        shape = shape_of(r.type)
        t = self.new_tensor(r.name_hint or "padded", shape, self.tensors[src.base][1], op)
        self.fill(t, self.scalar_constant(value.op), shape)
        self.nest(list(src.shape), lambda v: [ir.Assign(t, tuple(add(x, ir.Int(lo)) for x, lo in zip(v, low)),
                                                        src.read(v))], "p")
        self.define(r, View(t, shape, lambda i: i))

    def concat(self, op) -> None:
        """tensor.concat dim(D): a new tensor, each operand copied at its offset along D."""

        dim = int_value(op, "dim")
        r = op.results[0]
        srcs = [self.view(v, op) for v in op.operands]
        t = self.new_tensor(r.name_hint or "concat", shape_of(r.type), self.tensors[srcs[0].base][1], op)
        offset = 0
        for src in srcs:
            def make(v, src=src, offset=offset):
                idx = tuple(add(x, ir.Int(offset)) if k == dim else x for k, x in enumerate(v))
                return [ir.Assign(t, idx, src.read(v))]

            self.nest(list(src.shape), make, "s")
            offset += src.shape[dim]
        self.define(r, View(t, shape_of(r.type), lambda i: i))

    def slice_params(self, op):
        if len(op.operands) > 2 and op.name == "tensor.insert_slice" or \
                len(op.operands) > 1 and op.name == "tensor.extract_slice":
            raise self.error(op, "dynamic offsets, sizes or strides")
        return (array_values(op, "static_offsets"), array_values(op, "static_sizes"),
                array_values(op, "static_strides"))

    def insert_slice(self, op) -> None:
        src = self.view(op.operands[0], op)
        offs, sizes, strides = self.slice_params(op)
        dst = self.writable(op.operands[1], op, init=True)
        kept = kept_dims(sizes, src.shape, op, self)

        def make(v):
            full, it = [], iter(v)
            for k in range(len(sizes)):
                x = next(it) if k in kept else ir.Int(0)
                full.append(add(ir.Int(offs[k]), mul(ir.Int(strides[k]), x)))
            return [ir.Assign(dst, tuple(full), src.read(v))]

        self.nest(list(src.shape), make, "s")
        self.define(op.results[0], View(dst, shape_of(op.results[0].type), lambda i: i))

    def reshape(self, op) -> View:
        src = self.view(op.operands[0], op)
        r = op.results[0]
        out_shape = shape_of(r.type)
        name = op.name
        if name == "tensor.cast":
            static = [(a, b) for a, b in zip(src.shape, out_shape) if a >= 0 and b >= 0]
            if len(src.shape) != len(out_shape) or any(a != b for a, b in static):
                raise self.error(op, f"a cast from {shape_text(src.shape)} to {shape_text(out_shape)}: "
                                     "the static shapes differ, so the cast fails at run time (the "
                                     "producer of this MLIR computed the wrong shape)")
            return View(src.base, src.shape if any(n < 0 for n in out_shape) else out_shape, src.fn, src.identity)
        if name == "tensor.extract_slice":
            offs, sizes, strides = self.slice_params(op)
            kept = kept_dims(sizes, out_shape, op, self)

            def fn(i, src=src):
                full, it = [], iter(i)
                for k in range(len(sizes)):
                    x = next(it) if k in kept else ir.Int(0)
                    full.append(add(ir.Int(offs[k]), mul(ir.Int(strides[k]), x)))
                return src.fn(tuple(full))

            return View(src.base, out_shape, fn, False)
        groups = [[int(getattr(x, "value", x).data) if hasattr(getattr(x, "value", x), "data") else int(x)
                   for x in g.data] for g in (prop(op, "reassociation")).data]
        if name == "tensor.expand_shape":
            def fn(i, src=src):
                out = []
                for g in groups:  # mixed radix: ((i_a * S_b) + i_b) * S_c + i_c
                    acc = i[g[0]]
                    for d in g[1:]:
                        acc = add(mul(acc, ir.Int(out_shape[d])), i[d])
                    out.append(acc)
                return src.fn(tuple(out))
        else:
            def fn(i, src=src):
                out = []
                for k, g in enumerate(groups):
                    sizes = [src.shape[d] for d in g]
                    for m in range(len(g)):
                        below = math.prod(sizes[m + 1:])
                        e = i[k] if below == 1 else ir.FloorDiv(i[k], below)
                        out.append(e if m == 0 else ir.Int(0) if sizes[m] == 1 else ir.Mod(e, sizes[m]))
                return src.fn(tuple(out))
        return View(src.base, out_shape, fn, False)

    def returns(self, op, fname, res_names) -> None:
        for k, v in enumerate(op.operands):
            src = self.view(v, op)
            if res_names:
                name = res_names[k]
                if self.tensors.get(name, (src.shape,))[0] != src.shape:
                    raise self.error(op, f"result {k} has shape {shape_text(src.shape)}, not the shape "
                                         f"{shape_text(self.tensors[name][0])} of {name}")
                self.tensors.setdefault(name, (src.shape, self.tensors[src.base][1]))
                self.external.add(name)
            else:
                name = self.new_tensor(f"{fname}_result{k}", src.shape, self.tensors[src.base][1], op)
            self.copy(name, src)



def kept_dims(sizes, reduced_shape, op, imp) -> set:
    """Which dims of a slice survive a rank-reducing slice (unit dims dropped first to last)."""
    if len(sizes) == len(reduced_shape):
        return set(range(len(sizes)))
    kept, j = set(), 0
    for k, n in enumerate(sizes):
        if j < len(reduced_shape) and n == reduced_shape[j] and (n != 1 or len(sizes) - k <= len(reduced_shape) - j):
            kept.add(k)
            j += 1
        elif n != 1:
            raise imp.error(op, "a rank-reducing slice that drops a non-unit dimension")
    if j != len(reduced_shape):
        raise imp.error(op, "a rank-reducing slice whose shape does not match")
    return kept


def shape_text(shape) -> str:
    return "x".join("?" if n < 0 else str(n) for n in shape)
