"""IREE's own torch frontend: `iree.turbine.aot.export` (torch.export, then turbine's FX importer
to the torch dialect) and IREE's torch input pipeline (`iree-opt
--torch-to-iree=emit-async-entry-points=false`: the torch backend contract, TorchToLinalg and
IREE's func conversion) to linalg on tensors in a `util.func` on tensors, which the importer
takes like a `func.func`. Needs iree-turbine==3.9.0 and iree-base-compiler==3.13.0 (the
`.[iree]` extra).
"""
from __future__ import annotations

import subprocess
import warnings

from verified_sched.core.errors import VschedError

from .optional import require

PIPELINE = "--torch-to-iree=emit-async-entry-points=false"


class TurbineError(VschedError):
    """iree-turbine or IREE's torch input pipeline could not lower the module."""


def turbine_modules():
    return require("--against iree-turbine needs the optional extra: pip install '.[iree]' "
                   "(iree-turbine==3.9.0, iree-base-compiler==3.13.0)", "iree.turbine.aot",
                   "iree.compiler.tools.binaries")


def turbine_linalg(module, args, func_name: str = "conv_backward") -> str:
    """The linalg-on-tensors text of `module(*args)` through iree-turbine and IREE's torch input
    pipeline (function @func_name, a util.func)."""
    aot, binaries = turbine_modules()
    try:
        with warnings.catch_warnings():  # torch's pytree deprecation notes, not ours to show
            warnings.simplefilter("ignore", FutureWarning)
            torch_ir = str(aot.export(module, args=tuple(args), function_name=func_name).mlir_module)
    except Exception as e:  # noqa: BLE001 - turbine raises torch's and MLIR's own errors
        first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
        raise TurbineError(f"iree-turbine failed to export the module ({first[:200]})") from None
    return torch_to_linalg(torch_ir, binaries.find_tool("iree-opt"))


def torch_to_linalg(torch_ir: str, iree_opt: str) -> str:
    proc = subprocess.run([iree_opt, PIPELINE, "-"], input=torch_ir, capture_output=True, text=True)
    if proc.returncode != 0:
        first = next((ln.strip() for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip())
        raise TurbineError(f"IREE's torch input pipeline failed to lower the module ({first[:300]})")
    return proc.stdout
