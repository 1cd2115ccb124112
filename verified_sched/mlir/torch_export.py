"""`aten.convolution_backward` for one convolution, through torch-mlir to linalg on tensors.

The exported function is `conv_backward(dy, x, w) -> (dx, dw)` in the layout of the DSL file
(`verified_sched/generators/conv_backward.py`): for NHWC, the module permutes its arguments to
PyTorch's NCHW, calls the backward, and permutes the gradients back, so the lowering holds
the transposes a real NHWC pipeline has. Needs torch==2.13.0 and torch-mlir==20261001.
"""
from __future__ import annotations

import functools
import warnings

from verified_sched.errors import VschedError


class TorchMlirError(VschedError):
    """torch-mlir could not lower the module (a finding about torch-mlir, not a usage error)."""
from verified_sched.generators.conv_backward import Conv

from .optional import require


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


@functools.lru_cache(maxsize=64)
def export_mlir(cv: Conv, dtype: str = "f32", grads=("input", "weight")) -> str:
    """The torch-mlir LINALG_ON_TENSORS module of the backward (function @conv_backward);
    memoized per process (an export takes a second or two)."""
    torch, fx = torch_modules()
    fn = backward_fn(cv, grads)

    class Backward(torch.nn.Module):
        def forward(self, dy, x, w):
            return fn(dy, x, w)

    tdtype = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    args = [torch.zeros(s, dtype=tdtype) for s in (shapes(cv)[k] for k in ("dy", "x", "w"))]
    try:
        with warnings.catch_warnings():  # torch's pytree deprecation notes, not ours to show
            warnings.simplefilter("ignore", FutureWarning)
            module = fx.export_and_import(Backward(), *args, output_type=fx.OutputType.LINALG_ON_TENSORS,
                                          func_name="conv_backward")
    except Exception as e:  # noqa: BLE001 - torch-mlir raises its own compiler errors
        first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
        raise TorchMlirError(f"torch-mlir failed to lower aten.convolution_backward ({first[:200]}; "
                             "its diagnostic is printed above)") from None
    return str(module)
