"""`aten.convolution_backward` for one convolution, through a torch frontend to linalg on tensors.

The exported function is `conv_backward(dy, x, w) -> (dx, dw)` in the layout of the DSL file
(`verified_sched/generators/conv_backward.py`): for NHWC, the module permutes its arguments to
PyTorch's NCHW, calls the backward, and permutes the gradients back, so the lowering holds
the transposes a real NHWC pipeline has. The frontends (FRONTENDS):

- `torch-mlir`: `torch_mlir.fx.export_and_import(..., LINALG_ON_TENSORS,
  backend_legal_ops=["aten.convolution_backward"])`, which keeps the op for torch-mlir's direct
  lowering (TorchToLinalg's ConvertAtenConvolutionBackwardOp, groups as a dimension of its own);
- `torch-mlir-decomposed`: the same without backend_legal_ops: DecomposeComplexOps rewrites
  the op first, and its decomposition ignores `groups` for the weight gradient (a cross-group
  product cast to the weight shape; docs/upstream-bugs.md);
- `iree-turbine`: `iree.turbine.aot.export` (IREE's own torch import) and then IREE's torch
  input pipeline, `iree-opt --torch-to-iree=emit-async-entry-points=false`, whose output is
  linalg on tensors in a `util.func` (turbine_export.py).

Needs torch==2.13.0 and torch-mlir==20261001 (iree-turbine==3.9.0 and iree-base-compiler for the last).
"""
from __future__ import annotations

import functools
import warnings

from verified_sched.core.errors import VschedError


from verified_sched.generators.conv_backward import Conv

from .optional import require

FRONTENDS = ("torch-mlir", "torch-mlir-decomposed", "iree-turbine")
# the kernel-name stem of each frontend's imported lowering (`torch_mlir_input_grad`, ...)
STEM = {"torch-mlir": "torch_mlir", "torch-mlir-decomposed": "torch_mlir", "iree-turbine": "turbine"}
STEMS = ("torch_mlir_", "turbine_")  # the prefixes of imported lowerings' kernel names


class TorchMlirError(VschedError):
    """torch-mlir could not lower the module (a finding about torch-mlir, not a usage error)."""


def torch_modules():
    return require("'--against torch-mlir' needs torch-mlir: pip install 'verified_sched[iree]' "
                   "(torch==2.13.0, torch-mlir==20261001)", "torch", "torch_mlir.fx")


def shapes(cv: Conv) -> dict:
    """Static logical shapes of x, w, dy in the file's layout."""
    h, w = cv.ah, cv.aw
    oh, ow = int(h.out_text()), int(w.out_text())
    if cv.layout == "nhwc":
        return {"x": (cv.n, h.size, w.size, cv.c), "w": (cv.f, h.k, w.k, cv.cg), "dy": (cv.n, oh, ow, cv.f)}
    return {"x": (cv.n, cv.c, h.size, w.size), "w": (cv.f, cv.cg, h.k, w.k), "dy": (cv.n, cv.f, oh, ow)}


def backward_fn(cv: Conv, grads=("input", "weight")):
    """A function (dy, x, w) -> the requested gradients (dx, dw) in the file's layout, calling
    aten.convolution_backward with the matching output mask."""
    torch, _ = torch_modules()
    nhwc = cv.layout == "nhwc"
    stride = [cv.ah.s, cv.aw.s]
    padding = [cv.ah.p, cv.aw.p]
    dilation = [cv.ah.d, cv.aw.d]

    def fn(dy, x, w):
        if nhwc:
            dy, x, w = (t.permute(0, 3, 1, 2) for t in (dy, x, w))
        mask = ["input" in grads, "weight" in grads, False]
        out = torch.ops.aten.convolution_backward(dy, x, w, [0], stride, padding, dilation, False,
                                                  [0, 0], cv.groups, mask)
        out = [g for g, m in zip(out, mask) if m]
        return tuple(g.permute(0, 2, 3, 1) if nhwc else g for g in out)

    return fn


def backward_module(cv: Conv, dtype: str, grads):
    """(torch.nn.Module computing backward_fn, its example arguments dy, x, w)."""
    torch, _ = torch_modules()
    fn = backward_fn(cv, grads)

    class Backward(torch.nn.Module):
        def forward(self, dy, x, w):
            return fn(dy, x, w)

    tdtype = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    args = [torch.zeros(s, dtype=tdtype) for s in (shapes(cv)[k] for k in ("dy", "x", "w"))]
    return Backward(), args


@functools.lru_cache(maxsize=64)
def export_mlir(cv: Conv, dtype: str = "f32", grads=("input", "weight"), frontend: str = "torch-mlir") -> str:
    """The linalg-on-tensors module of the backward (function @conv_backward) by `frontend`;
    memoized per process (an export takes a second or two)."""
    if frontend == "iree-turbine":
        from .turbine_export import turbine_linalg

        return turbine_linalg(*backward_module(cv, dtype, grads))
    _, fx = torch_modules()
    module, args = backward_module(cv, dtype, grads)
    legal = None if frontend == "torch-mlir-decomposed" else ["aten.convolution_backward"]
    try:
        with warnings.catch_warnings():  # torch's pytree deprecation notes, not ours to show
            warnings.simplefilter("ignore", FutureWarning)
            out = fx.export_and_import(module, *args, output_type=fx.OutputType.LINALG_ON_TENSORS,
                                       func_name="conv_backward", backend_legal_ops=legal)
    except Exception as e:  # noqa: BLE001 - torch-mlir raises its own compiler errors
        first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
        raise TorchMlirError(f"torch-mlir failed to lower aten.convolution_backward ({first[:200]}; "
                             "its diagnostic is printed above)") from None
    return str(out)
