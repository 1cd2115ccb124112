"""The IR's precisions and the compute type each is evaluated in, shared by the semantics
table (`semantics.py`) and its columns (`semantics_ev.py`, `semantics_z3.py`)."""
from __future__ import annotations

PRECISIONS = ("f16", "bf16", "f32", "f64", "i32", "index")
COMPUTE = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64", "i32": "i32", "index": "index"}
I32_MIN, I32_MAX = -(2 ** 31), 2 ** 31 - 1
CMP_NAMES = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}  # comparison -> row name
