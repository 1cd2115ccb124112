"""Standalone reproducers of the torch-mlir 20261001 convolution-backward findings (needs only
torch==2.13.0, torch-mlir==20261001, iree-base-compiler/runtime==3.13.0; not vsched):

    python tests/support/torch_mlir_conv_bugs.py

1. grouped weight gradient (groups 3, x 2x6x7x7, w 6x2x3x3, stride 2, padding 1): the lowering
   computes a 6x6x3x3 cross-group product (every input channel against every output channel,
   with the batch dimension used as the group dimension of linalg.conv_2d_ngchw_gfchw) and
   `tensor.cast`s it through tensor<?x?x?x?xf32> to the 6x2x3x3 weight shape. The IR verifies;
   IREE compiles it and returns wrong values (max |error| in the tens, PyTorch's own ~ 1e-6).
2. depthwise (groups = C = 4, one filter per channel): neither gradient lowers (a
   tensor.collapse_shape / tensor.expand_shape verifier error inside torch-mlir); with two
   filters per channel the input gradient lowers, the weight gradient still does not.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch_mlir import fx


def export(groups, x_shape, w_shape, stride, padding, mask):
    class Backward(torch.nn.Module):
        def forward(self, dy, x, w):
            out = torch.ops.aten.convolution_backward(dy, x, w, [0], [stride] * 2, [padding] * 2, [1, 1], False,
                                                      [0, 0], groups, mask)
            return tuple(g for g, m in zip(out, mask) if m)

    x, w = torch.randn(x_shape), torch.randn(w_shape)
    dy = torch.randn(torch.nn.functional.conv2d(x, w, stride=stride, padding=padding, groups=groups).shape)
    module = fx.export_and_import(Backward(), dy, x, w, output_type=fx.OutputType.LINALG_ON_TENSORS,
                                  func_name="bwd")
    return str(module), (dy, x, w), Backward()(dy, x, w)


def run_iree(text, args):
    import iree.runtime as rt

    with tempfile.TemporaryDirectory() as tmp:
        src, vmfb = Path(tmp) / "m.mlir", Path(tmp) / "m.vmfb"
        src.write_text(text)
        subprocess.run([sys.executable, "-m", "iree.compiler.tools.scripts.iree_compile", str(src),
                        "--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
                        "--iree-llvmcpu-target-cpu=generic",
                        "-o", str(vmfb)], check=True)
        ctx = rt.SystemContext(config=rt.Config("local-sync"))
        ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb.read_bytes()))
        return np.asarray(ctx.modules.module["bwd"](*(a.numpy() for a in args)).to_host())


def main() -> int:
    print("1. grouped weight gradient, groups 3")
    text, args, eager = export(3, (2, 6, 7, 7), (6, 2, 3, 3), 2, 1, [False, True, False])
    for line in text.splitlines():
        if "tensor.cast" in line or "conv_2d_ngchw_gfchw" in line:
            print("   ", re.sub(r"\s+", " ", line.strip())[:160])
    got = run_iree(text, args)
    ref = eager[0].double().numpy()
    print(f"   IREE result shape {got.shape}; max |IREE - PyTorch| = {np.max(np.abs(got - ref)):.3g}")
    print("2. depthwise")
    for f in (4, 8):
        for mask, grad in (([True, False, False], "input"), ([False, True, False], "weight")):
            try:
                export(4, (1, 4, 6, 6), (f, 1, 3, 3), 1, 1, mask)
                status = "lowers"
            except Exception as e:  # noqa: BLE001 - torch-mlir's own compiler error
                status = f"fails: {str(e).splitlines()[0][:100]}"
            print(f"    {f // 4} filter(s) per channel, {grad} gradient: {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
