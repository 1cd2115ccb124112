"""Named linalg ops as generic ops: iteration domain, operand indices and the scalar body.

The definitions follow linalg's OpDSL (the meaning `mlir-opt --linalg-generalize-named-ops`
gives them), with the same order of iteration dimensions, so the imported nest sums in the
order the generic form does:

- linalg.matmul            (m, n, k):                C[m,n] += A[m,k] * B[k,n]
- linalg.batch_matmul      (b, m, n, k):             C[b,m,n] += A[b,m,k] * B[b,k,n]
- linalg.conv_2d_nchw_fchw (n, f, oh, ow, c, kh, kw): O[n,f,oh,ow] += I[n,c,s oh + d kh, s ow + d kw] * K[f,c,kh,kw]
- linalg.conv_2d_ngchw_gfchw (n, g, f, oh, ow, c, kh, kw): O[n,g,f,oh,ow] += I[n,g,c,..] * K[g,f,c,kh,kw]
- linalg.conv_2d_nhwc_hwcf (n, oh, ow, f, kh, kw, c): O[n,oh,ow,f] += I[n,..,..,c] * K[kh,kw,c,f]
- linalg.conv_2d_nhwc_fhwc (n, oh, ow, f, kh, kw, c): O[n,oh,ow,f] += I[n,..,..,c] * K[f,kh,kw,c]
- linalg.depthwise_conv_2d_nhwc_hwc (n, oh, ow, c, kh, kw): O[n,oh,ow,c] += I[n,..,..,c] * K[kh,kw,c]
- linalg.depthwise_conv_2d_nchw_chw (n, c, oh, ow, kh, kw): O[n,c,oh,ow] += I[n,c,..,..] * K[c,kh,kw]
- linalg.depthwise_conv_2d_nhwc_hwcm (n, oh, ow, c, m, kh, kw): O[n,oh,ow,c,m] += I[n,..,..,c] * K[kh,kw,c,m]
- linalg.pooling_{nhwc,nchw}_{max,min,sum} (n, oh, ow, c, kh, kw) / (n, c, oh, ow, kh, kw):
  O[..] = max(O[..], I[.. window ..]) (min, +); the second input only gives the window shape
- linalg.transpose, linalg.broadcast, linalg.copy: O[d] = I[permuted / projected d]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from verified_sched.core import ir

from .import_body import add, mul
from .ximport import array_values, shape_of


@dataclass
class Spec:
    """A generic op: `index[j](vars)` is operand j's index (inputs then outputs), `extents`
    the loop extents, `iters` parallel/reduction, `body(ins, outs)` the yielded expressions
    (None: translate the op's region)."""

    ins: list
    outs: list
    extents: list
    iters: list
    index: list
    body: Callable | None


def _window(o, k, s, d):
    return add(mul(ir.Int(s), o), mul(ir.Int(d), k))


def _mac(ins, outs):
    return [ir.BinOp("+", outs[0], ir.BinOp("*", ins[0], ins[1]))]


def _conv_attrs(op):
    s = array_values(op, "strides") or (1, 1)
    d = array_values(op, "dilations") or (1, 1)
    return s, d


POOL = {f"linalg.pooling_{lay}_{red}": (lay, red) for lay in ("nhwc", "nchw") for red in ("max", "min", "sum")}
NAMED = ("linalg.matmul", "linalg.batch_matmul", "linalg.conv_2d_nchw_fchw", "linalg.conv_2d_ngchw_gfchw",
         "linalg.conv_2d_nhwc_hwcf", "linalg.conv_2d_nhwc_fhwc", "linalg.depthwise_conv_2d_nhwc_hwc",
         "linalg.depthwise_conv_2d_nchw_chw", "linalg.depthwise_conv_2d_nhwc_hwcm", *POOL,
         "linalg.transpose", "linalg.broadcast", "linalg.copy")


def _pool_body(red):
    if red == "sum":
        return lambda ins, outs: [ir.BinOp("+", outs[0], ins[0])]
    return lambda ins, outs: [ir.Call(red, (outs[0], ins[0]))]


def _depthwise(op, name, shp, ins, outs):
    (s0, s1), (d0, d1) = _conv_attrs(op)
    par, red = ["parallel"], ["reduction"]
    if name.endswith("nhwc_hwc"):
        n, oh, ow, c = shp[2]
        kh, kw, _ = shp[1]
        return Spec(ins, outs, [n, oh, ow, c, kh, kw], par * 4 + red * 2,
                    [lambda v: (v[0], _window(v[1], v[4], s0, d0), _window(v[2], v[5], s1, d1), v[3]),
                     lambda v: (v[4], v[5], v[3]), lambda v: tuple(v[:4])], _mac)
    if name.endswith("nchw_chw"):
        n, c, oh, ow = shp[2]
        _, kh, kw = shp[1]
        return Spec(ins, outs, [n, c, oh, ow, kh, kw], par * 4 + red * 2,
                    [lambda v: (v[0], v[1], _window(v[2], v[4], s0, d0), _window(v[3], v[5], s1, d1)),
                     lambda v: (v[1], v[4], v[5]), lambda v: tuple(v[:4])], _mac)
    n, oh, ow, c, m = shp[2]
    kh, kw, _, _ = shp[1]
    return Spec(ins, outs, [n, oh, ow, c, m, kh, kw], par * 5 + red * 2,
                [lambda v: (v[0], _window(v[1], v[5], s0, d0), _window(v[2], v[6], s1, d1), v[3]),
                 lambda v: (v[5], v[6], v[3], v[4]), lambda v: tuple(v[:5])], _mac)


def _pool(op, name, shp, ins, outs):
    (s0, s1), (d0, d1) = _conv_attrs(op)
    lay, red = POOL[name]
    kh, kw = shp[1]
    iters = ["parallel"] * 4 + ["reduction"] * 2
    if lay == "nhwc":
        n, oh, ow, c = shp[2]
        return Spec(ins, outs, [n, oh, ow, c, kh, kw], iters,
                    [lambda v: (v[0], _window(v[1], v[4], s0, d0), _window(v[2], v[5], s1, d1), v[3]),
                     lambda v: (v[4], v[5]), lambda v: tuple(v[:4])], _pool_body(red))
    n, c, oh, ow = shp[2]
    return Spec(ins, outs, [n, c, oh, ow, kh, kw], iters,
                [lambda v: (v[0], v[1], _window(v[2], v[4], s0, d0), _window(v[3], v[5], s1, d1)),
                 lambda v: (v[4], v[5]), lambda v: tuple(v[:4])], _pool_body(red))


REGION_OPS = ("linalg.generic", "linalg.reduce", "linalg.map")


def region_spec(op) -> Spec | None:
    """linalg.reduce (iterate the input; the `dimensions` are reductions, the output indexed by
    the others) and linalg.map (elementwise): their own region gives the value (body None)."""
    if op.name not in ("linalg.reduce", "linalg.map"):
        return None
    ins, outs = ins_outs(op)
    if op.name == "linalg.map":
        shape = list(shape_of(outs[0].type))
        return Spec(ins, outs, shape, ["parallel"] * len(shape), [lambda v: tuple(v)] * (len(ins) + len(outs)), None)
    shape = list(shape_of(ins[0].type))
    red = set(array_values(op, "dimensions"))
    keep = [k for k in range(len(shape)) if k not in red]
    return Spec(ins, outs, shape, ["reduction" if k in red else "parallel" for k in range(len(shape))],
                [lambda v: tuple(v)] * len(ins) + [lambda v: tuple(v[k] for k in keep)] * len(outs), None)


def ins_outs(op) -> tuple:
    """([inputs], [outputs]) of a linalg op (xdsl's broadcast names them input/init)."""
    if hasattr(op, "inputs"):
        return list(op.inputs), list(getattr(op, "outputs", None) or op.inits)
    return _as_list(op.input), _as_list(op.init)


def _as_list(v) -> list:
    return list(v) if isinstance(v, (list, tuple)) or type(v).__name__ == "VarOperand" else [v]


def named_spec(op) -> Spec | None:
    """The Spec of a named op, or None when it is not one of NAMED."""
    name = op.name
    ins, outs = ins_outs(op)
    shp = [shape_of(v.type) for v in ins + outs]
    if name == "linalg.matmul":
        (m, k), (_, n) = shp[0], shp[1]
        return Spec(ins, outs, [m, n, k], ["parallel", "parallel", "reduction"],
                    [lambda v: (v[0], v[2]), lambda v: (v[2], v[1]), lambda v: (v[0], v[1])], _mac)
    if name == "linalg.batch_matmul":
        (b, m, k), (_, _, n) = shp[0], shp[1]
        return Spec(ins, outs, [b, m, n, k], ["parallel"] * 3 + ["reduction"],
                    [lambda v: (v[0], v[1], v[3]), lambda v: (v[0], v[3], v[2]),
                     lambda v: (v[0], v[1], v[2])], _mac)
    if name == "linalg.conv_2d_nchw_fchw":
        (s0, s1), (d0, d1) = _conv_attrs(op)
        n, f, oh, ow = shp[2]
        _, c, kh, kw = shp[1]
        return Spec(ins, outs, [n, f, oh, ow, c, kh, kw], ["parallel"] * 4 + ["reduction"] * 3,
                    [lambda v: (v[0], v[4], _window(v[2], v[5], s0, d0), _window(v[3], v[6], s1, d1)),
                     lambda v: (v[1], v[4], v[5], v[6]), lambda v: (v[0], v[1], v[2], v[3])], _mac)
    if name == "linalg.conv_2d_ngchw_gfchw":
        (s0, s1), (d0, d1) = _conv_attrs(op)
        n, g, f, oh, ow = shp[2]
        _, _, c, kh, kw = shp[1]
        return Spec(ins, outs, [n, g, f, oh, ow, c, kh, kw], ["parallel"] * 5 + ["reduction"] * 3,
                    [lambda v: (v[0], v[1], v[5], _window(v[3], v[6], s0, d0), _window(v[4], v[7], s1, d1)),
                     lambda v: (v[1], v[2], v[5], v[6], v[7]), lambda v: (v[0], v[1], v[2], v[3], v[4])], _mac)
    if name in ("linalg.conv_2d_nhwc_hwcf", "linalg.conv_2d_nhwc_fhwc"):
        (s0, s1), (d0, d1) = _conv_attrs(op)
        n, oh, ow, f = shp[2]
        kh, kw, c = (shp[1][0], shp[1][1], shp[1][2]) if name.endswith("hwcf") else shp[1][1:]
        kidx = ((lambda v: (v[4], v[5], v[6], v[3])) if name.endswith("hwcf")
                else (lambda v: (v[3], v[4], v[5], v[6])))
        return Spec(ins, outs, [n, oh, ow, f, kh, kw, c], ["parallel"] * 4 + ["reduction"] * 3,
                    [lambda v: (v[0], _window(v[1], v[4], s0, d0), _window(v[2], v[5], s1, d1), v[6]),
                     kidx, lambda v: tuple(v[:4])], _mac)
    if name.startswith("linalg.depthwise_conv_2d_"):
        return _depthwise(op, name, shp, ins, outs)
    if name in POOL:
        return _pool(op, name, shp, ins, outs)
    if name == "linalg.transpose":
        perm = array_values(op, "permutation")
        inv = [perm.index(j) for j in range(len(perm))]
        return Spec(ins, outs, list(shp[1]), ["parallel"] * len(perm),
                    [lambda v: tuple(v[inv[j]] for j in range(len(perm))), lambda v: tuple(v)],
                    lambda i, o: [i[0]])
    if name == "linalg.broadcast":
        added = set(array_values(op, "dimensions"))
        keep = [k for k in range(len(shp[1])) if k not in added]
        return Spec(ins, outs, list(shp[1]), ["parallel"] * len(shp[1]),
                    [lambda v: tuple(v[k] for k in keep), lambda v: tuple(v)], lambda i, o: [i[0]])
    if name == "linalg.copy":
        return Spec(ins, outs, list(shp[1]), ["parallel"] * len(shp[1]),
                    [lambda v: tuple(v), lambda v: tuple(v)], lambda i, o: [i[0]])
    return None
