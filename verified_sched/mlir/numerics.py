"""The numerics report of a `conv-backward --against FRONTEND` file, in the manner of IREE's
verify-numerics: mean, standard deviation and largest magnitude of (result - float64 reference)
over every cell of a gradient, for f32 and bf16.

The float64 reference is the oracle: the file's DIRECT kernels (`input_grad`, `weight_grad`,
proved equal to the chain rule) with every tensor retyped to f64, run by the C backend on the
same inputs (normal random values, rounded to the dtype). The rows:

- `FRONTEND -> IREE` (`torch-mlir`, `torch-mlir-decomposed`, `iree-turbine`): the seed
  pipeline itself, the frontend's module exported at that dtype compiled by iree-compile
  (llvm-cpu) and run by the IREE runtime;
- `imported -> IREE`: the file's `torch_mlir_*_grad` (or `turbine_*_grad`) kernel emitted as linalg (emit.py) and run
  through IREE, its tensors retyped to the dtype (DSL semantics: f32 arithmetic, rounded on store);
- `PyTorch`: eager `aten.convolution_backward` at that dtype.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from verified_sched.core.dtypes import NP_DTYPE, bf16_to_f32, f32_to_bf16, global_tensors, storage_shape
from verified_sched.core import ir
from verified_sched.core.errors import VschedError

from .torch_export import STEM, STEMS
from .torch_pipeline import parse_against

GRAD_TENSOR = {"input": "dx", "weight": "dw"}


def retyped(program: ir.Program, prec: str) -> ir.Program:
    return dataclasses.replace(program, tensors=tuple(dataclasses.replace(t, prec=prec) for t in program.tensors))


def _inputs(cv, dtype: str, seed: int) -> dict:
    from .torch_export import shapes

    rng = np.random.default_rng(seed)
    out = {}
    for name in ("dy", "x", "w"):
        v = rng.standard_normal(shapes(cv)[name]).astype(np.float32)
        out[name] = bf16_to_f32(f32_to_bf16(v)) if dtype == "bf16" else v
    return out


def _run_dsl(program: ir.Program, kernel: str, prec: str, values: dict, runner) -> np.ndarray:
    """Run `kernel` of `program` retyped to prec on `values` (float32 arrays); the gradient as f64."""
    p = retyped(program, prec)
    arrays = {t.name: np.zeros(storage_shape(t, {}), dtype=NP_DTYPE[prec]) for t in global_tensors(p)}
    for name, v in values.items():
        arrays[name][...] = f32_to_bf16(v) if prec == "bf16" else v.astype(NP_DTYPE[prec])
    runner(p)(kernel, {}, arrays)
    stem = next((s for s in STEMS if kernel.startswith(s)), "")
    out = GRAD_TENSOR[kernel[len(stem):].split("_")[0]]
    res = arrays[out]
    return (bf16_to_f32(res) if prec == "bf16" else res).astype(np.float64)


def _c_runner(p):
    from codegen.build import load_c

    from ..analysis.full_tiles import full_tiles

    return load_c(p, split=full_tiles).run


def _iree_runner(p):
    from .iree_backend import load_iree

    return load_iree(p).run


def _stats(diff: np.ndarray) -> tuple:
    return float(np.mean(diff)), float(np.std(diff)), float(np.max(np.abs(diff)))


def numerics_rows(cv, program: ir.Program, seed: int = 0, dtypes=("f32", "bf16"), frontend: str = "torch-mlir") -> list:
    """[(grad, dtype, source, (mean, stddev, max_abs) or a reason string)]."""
    import ml_dtypes
    import torch

    from .iree_backend import IreeError, IreeModule
    from .torch_export import backward_fn, export_mlir

    names = {k.name for k in program.kernels}
    grads = [g for g in ("input", "weight") if f"{g}_grad" in names]
    rows = []
    for dtype in dtypes:
        values = _inputs(cv, dtype, seed)
        ref = {g: _run_dsl(program, f"{g}_grad", "f64", values, _c_runner) for g in grads}
        tdt = {"f32": torch.float32, "bf16": torch.bfloat16}[dtype]
        targs = [torch.from_numpy(values[k]).to(tdt) for k in ("dy", "x", "w")]
        eager = dict(zip(("input", "weight"), backward_fn(cv)(*targs)))
        npdt = ml_dtypes.bfloat16 if dtype == "bf16" else np.float32
        iree = {}
        for g in grads:  # one module per gradient, as the file imports them (exports are memoized)
            try:
                fn = IreeModule(export_mlir(cv, dtype, (g,), frontend)).function("conv_backward")
                out = fn(*(values[k].astype(npdt) for k in ("dy", "x", "w")))
                iree[g] = np.asarray(out.to_host()).astype(np.float64)
            except (VschedError, IreeError, RuntimeError, ValueError) as e:
                iree[g] = f"no result: {str(e).splitlines()[0][:200]}"
        for g in grads:
            r = ref[g]
            got = iree[g]
            rows.append((g, dtype, f"{frontend} -> IREE", got if isinstance(got, str) else
                         _stats(got.reshape(r.shape) - r) if got.size == r.size else
                         f"wrong shape {got.shape} (expected {r.shape})"))
            if f"{STEM[frontend]}_{g}_grad" in names:
                try:
                    imp = _run_dsl(program, f"{STEM[frontend]}_{g}_grad", dtype, values, _iree_runner)
                    rows.append((g, dtype, "imported -> IREE", _stats(imp - r)))
                except (VschedError, IreeError) as e:
                    rows.append((g, dtype, "imported -> IREE", f"no result: {str(e).splitlines()[0][:200]}"))
            rows.append((g, dtype, "PyTorch", _stats(eager[g].to(torch.float64).numpy() - r)))
    return rows


def numerics_text(rows) -> str:
    lines = ["numerics (as IREE's verify-numerics): result - float64 reference (the direct kernels in C, f64)",
             f"{'grad':8}{'dtype':7}{'source':22}{'mean':>13}{'stddev':>13}{'max_abs':>13}"]
    for g, dtype, source, st in rows:
        width = max(22, len(source) + 1)
        if isinstance(st, str):
            lines.append(f"{g:8}{dtype:7}{source:{width}}  {st}")
        else:
            lines.append(f"{g:8}{dtype:7}{source:{width}}{st[0]:13.3e}{st[1]:13.3e}{st[2]:13.3e}")
    return "\n".join(lines)


def report_for_file(path: str, program: ir.Program) -> None:
    """Print the report when `path` was written by `conv-backward --against FRONTEND`."""
    got = parse_against(Path(path).read_text(encoding="utf-8"))
    if got is not None:
        print(numerics_text(numerics_rows(got[0], program, frontend=got[1])))
