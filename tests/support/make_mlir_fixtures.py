"""Generate the MLIR fixtures of the import tests (tests/fixtures/mlir/), with torch-mlir.

    python tests/support/make_mlir_fixtures.py      # needs '.[iree]' (torch, torch-mlir)

Writes, for each convolution of CONVS and each gradient, `conv_<name>_<grad>.mlir`: the
torch-mlir LINALG_ON_TENSORS lowering of aten.convolution_backward restricted to that gradient
(function @conv_backward(dy, x, w) in the layout of `vsched conv-backward`) by torch-mlir's
direct lowering (`--against torch-mlir`, backend_legal_ops), or `conv_<name>_<grad>.error`
holding the frontend's refusal; `turbine_<name>_<grad>.mlir` the same through iree-turbine and
IREE's torch input pipeline (`--against iree-turbine`); and for the grouped configurations
`conv_<name>_<grad>.decomposed.mlir` (or `.error`), torch-mlir's default path through
DecomposeComplexOps (`--against torch-mlir-decomposed`), which mis-lowers grouped weight
gradients. `convs.json` records the options.
`models.npz`-style fixtures: `<model>.mlir` plus `<model>.npz` (inputs in0.. and the PyTorch
output out0) for a few small torch modules exercising other linalg/arith ops. The import tests
read only these files (and xdsl); they never run torch.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "mlir"

# the seed family (NHWC and NCHW, stride 2, padding 1, groups 3, 3x3, scaled down) and others
CONVS = {
    "seed_nhwc": dict(x=(2, 7, 7, 6), w=(6, 3, 3, 2), layout="nhwc", stride=2, padding=1, groups=3),
    "seed_nchw": dict(x=(2, 7, 7, 6), w=(6, 3, 3, 2), layout="nchw", stride=2, padding=1, groups=3),
    "dilation": dict(x=(1, 8, 8, 3), w=(4, 3, 3, 3), layout="nchw", stride=1, padding=2, dilation=2),
    "stride3": dict(x=(1, 10, 9, 2), w=(3, 3, 3, 2), layout="nhwc", stride=3, padding=1),
    "groups1": dict(x=(2, 6, 6, 3), w=(4, 3, 3, 3), layout="nchw", stride=2, padding=1),
    "depthwise": dict(x=(1, 6, 6, 4), w=(4, 3, 3, 1), layout="nhwc", stride=1, padding=1, groups=4),
    # depthwise with channel multiplier 2 (groups = C, F = 2C): torch-mlir lowers its input gradient
    "depthwise_m2": dict(x=(1, 6, 6, 4), w=(8, 3, 3, 1), layout="nchw", stride=1, padding=1, groups=4),
    "1x1": dict(x=(2, 5, 5, 4), w=(3, 1, 1, 4), layout="nchw"),
    "pad0": dict(x=(1, 7, 7, 2), w=(3, 3, 3, 2), layout="nhwc", stride=2, padding=0),
}


def models():
    import torch

    class Mlp(torch.nn.Module):
        def forward(self, x, w, b):
            return torch.relu(x @ w.t() + b)

    class ExpSum(torch.nn.Module):  # a reduction over math.exp, a division, a broadcast
        def forward(self, x, w):
            return torch.sum(torch.exp(x) * w, dim=-1) / 7

    class Mixed(torch.nn.Module):  # bf16 and f16 arithmetic with casts, a reshape, a slice
        def forward(self, x, y):
            a = (x.to(torch.bfloat16) * 3).to(torch.float32)
            b = (y.to(torch.float16) - 1).to(torch.float32)
            return (a.reshape(4, 6) + b.reshape(4, 6))[1:3, :] * 0.5

    g = torch.Generator().manual_seed(0)
    return {
        "mlp": (Mlp(), [torch.randn(3, 5, generator=g), torch.randn(4, 5, generator=g), torch.randn(4, generator=g)]),
        "expsum": (ExpSum(), [torch.randn(3, 7, generator=g), torch.randn(7, generator=g)]),
        "mixed": (Mixed(), [torch.randn(2, 12, generator=g), torch.randn(24, generator=g)]),
    }


FRONTEND_STEM = {"torch-mlir": "conv_{name}_{grad}", "iree-turbine": "turbine_{name}_{grad}",
                 "torch-mlir-decomposed": "conv_{name}_{grad}.decomposed"}


def frontends(name: str) -> list:
    """The frontends whose lowering of configuration `name` is recorded."""
    grouped = CONVS[name].get("groups", 1) > 1
    return ["torch-mlir", "iree-turbine"] + (["torch-mlir-decomposed"] if grouped else [])


def conv_fixture(name: str, grad: str, frontend: str) -> tuple:
    """(file stem, text, suffix '.mlir' or '.error') of one lowering."""
    from verified_sched.core.errors import VschedError
    from verified_sched.generators.conv_backward import make_conv
    from verified_sched.mlir.torch_export import export_mlir

    cv = make_conv(**CONVS[name], grads=("input", "weight"))
    stem = FRONTEND_STEM[frontend].format(name=name, grad=grad)
    try:
        return stem, export_mlir(cv, grads=(grad,), frontend=frontend), ".mlir"
    except VschedError as e:
        return stem, str(e) + "\n", ".error"


def generalize(src: Path, dst: Path) -> None:
    """The README's recipe for named ops: `iree-opt --linalg-generalize-named-ops` (a linalg.fill
    becomes a linalg.generic with a scalar input)."""
    import subprocess

    from iree.compiler.tools.binaries import find_tool

    subprocess.run([find_tool("iree-opt"), "--linalg-generalize-named-ops", str(src), "-o", str(dst)], check=True)


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from torch_mlir import fx

    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "convs.json").write_text(json.dumps(CONVS, indent=1) + "\n")
    for name in CONVS:
        for grad in ("input", "weight"):
            for frontend in frontends(name):
                stem, text, suffix = conv_fixture(name, grad, frontend)
                for old in (".mlir", ".error"):
                    (OUT / f"{stem}{old}").unlink(missing_ok=True)
                (OUT / f"{stem}{suffix}").write_text(text)
    for name, (module, args) in models().items():
        text = str(fx.export_and_import(module, *args, output_type=fx.OutputType.LINALG_ON_TENSORS,
                                        func_name=name))
        (OUT / f"{name}.mlir").write_text(text)
        out = module(*args)
        np.savez(OUT / f"{name}.npz", **{f"in{k}": a.numpy() for k, a in enumerate(args)}, out0=out.detach().numpy())
    generalize(OUT / "mlp.mlir", OUT / "mlp_generalized.mlir")
    print(f"wrote {len(list(OUT.iterdir()))} files to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
