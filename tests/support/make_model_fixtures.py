"""Generate the fixtures of the real-module import tests (tests/fixtures/models/), with torch-mlir.

    python tests/support/make_model_fixtures.py [NAME ...]     # needs '.[iree]' (torch, torch-mlir)

For each module of MODELS: `<name>.mlir`, torch-mlir's LINALG_ON_TENSORS export (parameters
frozen into the module as `dense_resource` constants; `allow_non_finites=False`, so a max
reduction starts from the lowest finite float instead of -inf, which the DSL has no literal
for), and `<name>.npz` with the inputs `in0`, ... and PyTorch's output `out0`. The tests read
only these files; `tests/test_models_import.py` regenerates one to check this script.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "models"


def models() -> dict:
    import torch

    nn = torch.nn
    torch.manual_seed(0)

    class LinearRelu(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(5, 4)

        def forward(self, x):
            return torch.relu(self.fc(x))

    class MlpGelu(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(6, 8), nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(nn.functional.gelu(self.fc1(x)))

    class Softmax(nn.Module):
        def forward(self, x):
            return torch.softmax(x, dim=-1)

    class LayerNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(6)

        def forward(self, x):
            return self.norm(x)

    class RmsNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(6))

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight

    class BmmBiasRelu(nn.Module):
        def __init__(self):
            super().__init__()
            self.bias = nn.Parameter(torch.randn(4))

        def forward(self, a, b):
            return torch.relu(torch.bmm(a, b) + self.bias)

    class Attention(nn.Module):  # one head: softmax(q k^T / sqrt(d)) v
        def forward(self, q, k, v):
            s = torch.bmm(q, k.transpose(1, 2)) * (1.0 / 2.0)
            return torch.bmm(torch.softmax(s, dim=-1), v)

    class MaxPool(nn.Module):
        def forward(self, x):
            return nn.functional.max_pool2d(x, 2)

    class Depthwise(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 3, 3, padding=1, groups=3)

        def forward(self, x):
            return self.conv(x)

    class Residual(nn.Module):  # conv + batchnorm (eval: folded by the export) + relu + add
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 2, 3, padding=1)
            self.bn = nn.BatchNorm2d(2)
            with torch.no_grad():
                self.bn.running_mean.copy_(torch.randn(2))
                self.bn.running_var.copy_(torch.rand(2) + 0.5)

        def forward(self, x):
            return torch.relu(self.bn(self.conv(x))) + x

    r = torch.randn
    return {
        "linear_relu": (LinearRelu(), [r(3, 5)]),
        "mlp_gelu": (MlpGelu(), [r(2, 6)]),
        "softmax": (Softmax(), [r(3, 6)]),
        "layer_norm": (LayerNorm(), [r(3, 6)]),
        "rms_norm": (RmsNorm(), [r(3, 6)]),
        "bmm_bias_relu": (BmmBiasRelu(), [r(2, 3, 5), r(2, 5, 4)]),
        "attention": (Attention(), [r(1, 4, 4), r(1, 4, 4), r(1, 4, 4)]),
        "max_pool": (MaxPool(), [r(1, 2, 4, 4)]),
        "depthwise": (Depthwise(), [r(1, 3, 5, 5)]),
        "residual": (Residual(), [r(1, 2, 4, 4)]),
    }


def export(name: str) -> tuple:
    """(MLIR text, inputs, PyTorch's output) of model `name`."""
    from torch_mlir import fx

    module, args = models()[name]
    module.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        text = str(fx.export_and_import(module, *args, output_type=fx.OutputType.LINALG_ON_TENSORS,
                                        func_name=name, allow_non_finites=False))
    return text, [a.numpy() for a in args], module(*args).detach().numpy()


def main(names) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names or models():
        text, ins, out = export(name)
        (OUT / f"{name}.mlir").write_text(text)
        np.savez(OUT / f"{name}.npz", **{f"in{k}": a for k, a in enumerate(ins)}, out0=out)
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
