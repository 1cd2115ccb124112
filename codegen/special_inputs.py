"""Inputs built from special values (`vsched run --inputs special`, and the refutation runs of
`verify`): differences that only -0.0, NaN, an infinity, a precision's largest finite value,
a value that overflows when narrowed, or an i32 extreme shows.

The seed picks a pattern (`PATTERNS[seed % len(PATTERNS)]`: "-0,1" and "1,-0" fill the
tensors, in name order, alternately with -0.0 and 1.0, so products of two inputs are -0.0; mode `special-finite`, for the
profiles that assume finite inputs: `FINITE_PATTERNS`, finite at the declared precision): every float input cell -0.0,
NaN, +inf, -inf, the largest finite value, a value that overflows when converted to a
narrower precision; or a mixture, each cell a special value or a random one in [-1, 1)
(drawn from the seed). i32 inputs take the matching extremes. Cells read as indices keep their
in-range random values; tensors with a declared `inputs` value set keep it (the oracle redraws
them afterwards). `set_values` writes given cells (a z3 model's counterexample): `--set`.
"""
from __future__ import annotations

import numpy as np

from verified_sched.core.errors import UsageError

from verified_sched.core.dtypes import f32_to_bf16

PATTERNS = ("-0", "mix", "nan", "inf", "max", "-inf", "narrow", "-0,1", "1,-0", "mix")
MAX_FINITE = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": 3.4028234663852886e38,
              "f64": 1.7976931348623157e308}
# finite in the precision, an infinity once converted to a narrower one
NARROW = {"f64": 1e300, "f32": 3.4028234663852886e38, "bf16": 7.0e4, "f16": 65504.0}
I32 = {"-0,1": 1, "1,-0": -1, "-0": 0, "nan": 2**31 - 1, "inf": 2**31 - 1, "max": 2**31 - 1, "-inf": -2**31, "narrow": 2**24 + 1}


def specials(prec: str) -> list:
    if prec == "i32":
        return [-2**31, 2**31 - 1, -1, 0, 1, 2**24 + 1]
    m = MAX_FINITE[prec]
    return [-0.0, 0.0, float("nan"), float("inf"), float("-inf"), m, -m, NARROW[prec], -NARROW[prec], 1.0, -1.0,
            5e-324 if prec == "f64" else 1e-45]


def _store(values: np.ndarray, prec: str, dtype) -> np.ndarray:
    with np.errstate(all="ignore"):
        if prec == "bf16":
            return f32_to_bf16(values.astype(np.float32))
        return values.astype(dtype)


FINITE_PATTERNS = ("-0", "mix", "max", "narrow", "-0,1", "1,-0")


def fill(arrays: dict, precs: dict, skip: set, seed: int, finite: bool = False) -> None:
    """Overwrite the arrays (name -> storage array, precs: name -> precision) not in `skip`
    with the seed's special pattern (`finite`: the finite ones only, FINITE_PATTERNS, for the
    profiles that assume finite inputs)."""
    pats = FINITE_PATTERNS if finite else PATTERNS
    pattern = pats[seed % len(pats)]
    rng = np.random.default_rng([seed, 0x5BEC])
    for n, name in enumerate(sorted(arrays)):
        if name in skip:
            continue
        arr, prec = arrays[name], precs[name]
        if pattern in ("-0,1", "1,-0") and prec != "i32":  # tensors alternately -0.0 and 1.0:
            first = pattern.split(",")[n % 2]  # products -0.0 * 1.0 = -0.0
            values = np.full(arr.shape, float(first), dtype=np.float64)
        elif pattern == "mix":
            pool = np.array([v for v in specials(prec) if not finite or np.isfinite(v)], dtype=np.float64)
            pick = rng.integers(0, len(pool), size=arr.shape)
            rand = rng.uniform(-1.0, 1.0, size=arr.shape)
            if prec == "i32":
                rand = np.round(rand * 100)
            values = np.where(rng.random(size=arr.shape) < 0.5, pool[pick], rand)
        elif prec == "i32":
            values = np.full(arr.shape, I32[pattern], dtype=np.float64)
        else:
            v = {"-0": -0.0, "nan": float("nan"), "inf": float("inf"), "-inf": float("-inf"),
                 "max": MAX_FINITE[prec], "narrow": NARROW[prec]}[pattern]
            values = np.full(arr.shape, v, dtype=np.float64)
        arrays[name] = _store(values, prec, arr.dtype)


def parse_value(text: str) -> float:
    """A cell value of `--set`: a float literal (`-0.0`, `inf`, `nan`, `1e300`) or a hex float."""
    try:
        return float.fromhex(text) if text.strip().lower().startswith(("0x", "-0x")) else float(text)
    except ValueError:
        raise UsageError(f"not a value: {text!r} (a float such as -0.0, inf, nan, 1e300 or 0x1p-3)") from None


def set_values(arrays: dict, precs: dict, values: list) -> None:
    """values: [{"tensor", "index", "value"}] written into the storage arrays."""
    for v in values:
        name, idx = v["tensor"], tuple(int(i) for i in v["index"])
        if name not in arrays:
            raise UsageError(f"--set: no global tensor {name}")
        arr = arrays[name]
        if len(idx) != arr.ndim or not all(0 <= i < n for i, n in zip(idx, arr.shape)):
            raise UsageError(f"--set: {name}[{', '.join(map(str, idx))}] is outside its storage {list(arr.shape)}")
        x = v["value"]
        x = parse_value(x) if isinstance(x, str) else float(x)
        arr[idx] = _store(np.array(x, dtype=np.float64), precs[name], arr.dtype)
