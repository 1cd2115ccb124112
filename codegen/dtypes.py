"""Precision tables, bf16 bit conversions and size evaluation shared by the C backend and the oracle.

Storage: f32 float32, f64 float64, i32 int32, f16 float16, bf16 uint16 (the upper 16 bits of
the f32 pattern, round-to-nearest-even on store, NaN stays NaN). Arithmetic of an assignment
happens in the compute type of its target (f64 double, f32/f16/bf16 float, i32 int32).

Codegen depends on `verified_sched.ir` only (DESIGN section 1), so the little evaluator of
size expressions here is its own rather than `verified_sched.sizes`.
"""
from __future__ import annotations

import numpy as np

from verified_sched import ir
from verified_sched.errors import UsageError

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


def eval_int(e, env: dict) -> int:
    """Evaluate an integer (size) expression with floor semantics."""
    match e:
        case int():
            return e
        case ir.Int(value=v):
            return v
        case ir.Var(name=n):
            if n not in env:
                raise UsageError(f"missing size for parameter {n}")
            return env[n]
        case ir.BinOp(op="+", a=a, b=b):
            return eval_int(a, env) + eval_int(b, env)
        case ir.BinOp(op="-", a=a, b=b):
            return eval_int(a, env) - eval_int(b, env)
        case ir.BinOp(op="*", a=a, b=b):
            return eval_int(a, env) * eval_int(b, env)
        case ir.FloorDiv(a=a, divisor=c):
            return eval_int(a, env) // c
        case ir.Mod(a=a, divisor=c):
            return eval_int(a, env) % c
        case ir.Call(fn="min", args=(a, b)):
            return min(eval_int(a, env), eval_int(b, env))
        case ir.Call(fn="max", args=(a, b)):
            return max(eval_int(a, env), eval_int(b, env))
    raise UsageError(f"not a size expression: {e!r}")


def eval_cond(c, env: dict) -> bool:
    match c:
        case ir.BoolConst(value=v):
            return v
        case ir.Not(a=a):
            return not eval_cond(a, env)
        case ir.And(a=a, b=b):
            return eval_cond(a, env) and eval_cond(b, env)
        case ir.Or(a=a, b=b):
            return eval_cond(a, env) or eval_cond(b, env)
        case ir.Cmp(op=op, a=a, b=b):
            x, y = eval_int(a, env), eval_int(b, env)
            return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]
    raise UsageError(f"not a size constraint: {c!r}")


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
