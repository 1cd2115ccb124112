"""What `vsched exec` needs besides argument parsing: turning user-given .npy files into
storage arrays (size inference, logical or storage shapes, exact dtypes). `vsched run`
compares kernels through the one oracle, `codegen.oracle.compare_kernels`.
"""
from __future__ import annotations

import numpy as np

from . import ir
from .errors import UsageError


def read_npy(spec: str) -> tuple:
    name, sep, path = spec.partition("=")
    if not sep or not name or not path:
        raise UsageError(f"expected NAME=FILE.npy, got {spec!r}")
    try:
        with open(path, "rb") as f:
            if f.read(6) != b"\x93NUMPY":
                raise UsageError(f"cannot read {path}: not a .npy file (save arrays with numpy.save)")
        return name, np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read {path}: {e}") from None


def infer_sizes(program: ir.Program, given: dict, arrays: dict) -> dict:
    """Size parameters solved from the arrays' shapes: a dim affine in one unknown parameter
    (`N`, `N + M` once M is known, `16 * T`) fixes it; repeated until nothing changes. Every
    array is checked against the result afterwards (`fit_array`)."""
    from .sizes import eval_int

    sizes, ambiguous = dict(given), {}
    progress = True
    while progress:
        progress = False
        for name, arr in arrays.items():
            t = program.tensor(name)
            for d, (dim, pad) in enumerate(zip(t.dims, t.pad)):
                unknown = [p for p in ir.free_vars(dim) if p not in sizes]
                if len(unknown) != 1 or d >= arr.ndim:
                    continue
                p = unknown[0]
                f = [eval_int(dim, {**sizes, p: v}) for v in (0, 1, 2)]
                coef = f[1] - f[0]
                if coef == 0 or f[2] - f[1] != coef:
                    continue
                # the array may hold the storage or the logical shape: a padded dim whose two
                # readings both make sense is ambiguous and fixes nothing
                values = {(e - f[0]) // coef for e in {arr.shape[d] - pad, arr.shape[d]}
                          if (e - f[0]) % coef == 0 and (e - f[0]) // coef >= 0}
                if len(values) == 1:
                    sizes[p] = values.pop()
                    progress = True
                elif len(values) > 1:
                    ambiguous[p] = name
    missing = [p for p in program.params if p not in sizes]
    if missing:
        why = "".join(f" ({p}: tensor {ambiguous[p]}'s padded dim fits both its storage and its logical shape)"
                      for p in missing if p in ambiguous)
        raise UsageError(f"cannot infer {', '.join(missing)} from the arrays' shapes{why}; pass --size")
    return sizes


def fit_array(program: ir.Program, name: str, arr: np.ndarray, sizes: dict) -> np.ndarray:
    """The given array as the tensor's storage: its storage shape, or its logical shape (the
    padding then starts at zero); its dtype, or values that convert to it exactly."""
    from codegen.dtypes import NP_DTYPE, bf16_to_f32, f32_to_bf16, logical_shape, storage_shape

    t = program.tensor(name)
    store, logical = storage_shape(t, sizes), logical_shape(t, sizes)
    if arr.shape not in (store, logical):
        raise UsageError(f"--in {name}: array shape {arr.shape} does not match tensor {name}: "
                         f"{logical} at {', '.join(f'{k}={v}' for k, v in sizes.items())}"
                         + (f" (storage with padding {store})" if store != logical else ""))
    want = NP_DTYPE[t.prec]
    if arr.dtype != want:
        if t.prec == "bf16" and arr.dtype.kind == "f":
            conv = f32_to_bf16(arr.astype(np.float32))
            back = bf16_to_f32(conv)
        else:
            with np.errstate(all="ignore"):
                conv = arr.astype(want)
                back = conv
        same = np.array_equal(back.astype(np.float64), arr.astype(np.float64), equal_nan=True)
        if arr.dtype.kind not in "fiu" or not same:
            raise UsageError(f"--in {name}: dtype {arr.dtype} does not convert exactly to {t.prec} "
                             f"({want}); convert the array first")
        arr = conv
    out = np.zeros(store, dtype=want)
    out[tuple(slice(0, n) for n in arr.shape)] = arr
    return out
