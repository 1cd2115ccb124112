"""Precision tables, bf16 bit conversions and size evaluation shared by the C backend and the oracle.

Storage: f32 float32, f64 float64, i32 int32, f16 float16, bf16 uint16 (the upper 16 bits of
the f32 pattern, round-to-nearest-even on store, NaN stays NaN). Arithmetic of an assignment
happens in the compute type of its target (f64 double, f32/f16/bf16 float, i32 int32).

Codegen depends on `verified_sched.core.ir` only, so the one evaluator of
integer (size and index) expressions lives here; `verified_sched.analysis.sizes` re-exports it.
Integer semantics are mathematical: floor(a / c) rounds toward minus infinity and a % c lies
in [0, c), as in Python (C truncates; the C backend compensates).
"""
from __future__ import annotations

import numpy as np

from verified_sched.core import ir
from verified_sched.core.errors import UsageError

NP_DTYPE = {
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i32": np.dtype(np.int32),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(np.uint16),
}
C_STORAGE = {"f32": "float", "f64": "double", "i32": "int32_t", "f16": "uint16_t", "bf16": "uint16_t"}
C_COMPUTE = {"f32": "float", "f64": "double", "i32": "int32_t", "f16": "float", "bf16": "float"}


def f32_to_bf16(x) -> np.ndarray:
    """float32 values -> bf16 bit patterns (uint16), round to nearest even; NaN stays a quiet NaN."""
    values = np.array(x, dtype=np.float32)  # a copy; keeps 0-d inputs 0-d
    bits = values.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(values)
    out = np.where(nan, (bits >> 16) | 0x40, rounded)
    return out.astype(np.uint16)


def bf16_to_f32(b) -> np.ndarray:
    """bf16 bit patterns (uint16) -> float32 values (exact)."""
    return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def param_names(program: ir.Program) -> list:
    """Parameter names in program order (params may be strings or nodes with a name)."""
    return [p if isinstance(p, str) else p.name for p in program.params]


def global_tensors(program: ir.Program) -> list:
    """Tensors passed to a kernel as pointers: global and constant memory, program order."""
    return [t for t in program.tensors if t.memory in ("global", "constant")]


from .int_eval import IntEval, eval_cond, eval_int  # noqa: F401,E402 - re-exported


def check_sizes(program: ir.Program, sizes: dict) -> dict:
    """Every parameter given as an int and every constraint holds; returns the env."""
    env = {}
    for name in param_names(program):
        if name not in sizes:
            raise UsageError(f"missing size for parameter {name}")
        value = sizes[name]
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise UsageError(f"size {name}={value!r} is not an integer")
        env[name] = int(value)
    for c in program.constraints:
        if not eval_cond(c, env):
            raise UsageError(f"sizes {env} violate a constraint of the program")
    return env


def storage_shape(tensor: ir.Tensor, env: dict) -> tuple:
    """The array shape of a tensor: dims plus trailing padding."""
    shape = tuple(eval_int(d, env) + p for d, p in zip(tensor.dims, tensor.pad))
    if any(s < 0 for s in shape):
        raise UsageError(f"tensor {tensor.name} has a negative extent {shape} at sizes {env}")
    return shape


def logical_shape(tensor: ir.Tensor, env: dict) -> tuple:
    return tuple(eval_int(d, env) for d in tensor.dims)


def check_array(t: ir.Tensor, arrays: dict, env: dict, contiguous: bool = False) -> np.ndarray:
    """The array given for global tensor `t`, checked against the runner contract (a numpy
    array of the tensor's storage shape and exact dtype; C-contiguous and writeable where a
    pointer to it is passed): one check for every backend, so all report the same errors."""
    if t.name not in arrays:
        raise UsageError(f"missing array for tensor {t.name}")
    arr = arrays[t.name]
    want_dtype, want_shape = NP_DTYPE[t.prec], storage_shape(t, env)
    if not isinstance(arr, np.ndarray):
        raise UsageError(f"tensor {t.name}: expected a numpy array, got {type(arr).__name__}")
    if arr.dtype != want_dtype:
        raise UsageError(f"tensor {t.name} is {t.prec}: expected dtype {want_dtype}, got {arr.dtype}")
    if arr.shape != want_shape:
        raise UsageError(f"tensor {t.name}: expected shape {want_shape} (dims + pad at sizes "
                         f"{env}), got {arr.shape}")
    if contiguous and (not arr.flags.c_contiguous or not arr.flags.writeable):
        raise UsageError(f"tensor {t.name}: the array must be C-contiguous and writeable")
    return arr
