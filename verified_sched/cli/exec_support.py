"""What `vsched exec` needs besides argument parsing: turning user-given .npy files into
storage arrays (size inference, logical or storage shapes, exact dtypes). `vsched run`
compares kernels through the one oracle, `verified_sched.oracle.compare.compare_kernels`.
"""
from __future__ import annotations

import numpy as np

from ..core import ir
from ..core.errors import UsageError


def read_npy(spec: str) -> tuple:
    name, sep, path = spec.partition("=")
    if not sep or not name or not path:
        raise UsageError(f"expected NAME=FILE.npy, got {spec!r}")
    try:
        with open(path, "rb") as f:
            if f.read(6) != b"\x93NUMPY":
                raise UsageError(f"--in {name}: cannot read {path}: not a .npy file (save arrays with numpy.save)")
        return name, np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise UsageError(f"--in {name}: cannot read {path}: {e}") from None


def read_inputs(specs, tensors) -> dict:
    """The `--in NAME=FILE.npy` arrays by tensor name: each a global tensor, given once."""
    given: dict = {}
    for spec in specs:
        name, arr = read_npy(spec)
        if name in given:
            raise UsageError(f"--in {name} is given twice")
        _global(name, "--in", tensors)
        given[name] = arr
    return given


def beside_inputs(program_file: str, tensors, given: dict) -> dict:
    """The arrays `FILE.NAME.npy` beside the program `FILE.vs` for global tensors not given with
    --in: the parameters (non-splat constants) `vsched import -o FILE.vs` writes there."""
    from pathlib import Path

    p = Path(program_file)
    out = {}
    for name in sorted(set(tensors) - set(given)):
        path = p.with_name(f"{p.stem}.{name}.npy")
        if path.is_file():
            out[name] = read_npy(f"{name}={path}")[1]
    return out


def output_paths(specs, tensors) -> list:
    """The `--out NAME=FILE.npy` pairs, checked before anything runs: a global tensor each,
    given once, written to a path that is not a folder, in a folder that exists and is
    writable."""
    import os

    outs, seen = [], set()
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"expected --out NAME=FILE.npy, got {spec!r}")
        if name in seen:
            raise UsageError(f"--out {name} is given twice")
        seen.add(name)
        _global(name, "--out", tensors)
        folder = os.path.dirname(path) or "."
        if os.path.isdir(path) or path.endswith(("/", os.sep)):
            raise UsageError(f"--out {name}={path}: is a folder; give a file name such as {name}.npy")
        if not os.path.isdir(folder):
            raise UsageError(f"--out {name}={path}: the folder {folder} does not exist")
        if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
            raise UsageError(f"--out {name}={path}: not writable")
        outs.append((name, path))
    if not outs:
        raise UsageError("give at least one --out NAME=FILE.npy")
    return outs


def write_npy(path: str, arr: np.ndarray) -> None:
    """Save to exactly `path` (numpy.save would append `.npy` to a name without it)."""
    with open(path, "wb") as f:
        np.save(f, arr, allow_pickle=False)


def _global(name: str, flag: str, tensors) -> None:
    if name not in tensors:
        raise UsageError(f"{flag} {name}: {name!r} is not a global tensor of the program "
                         f"(global tensors: {', '.join(sorted(tensors))})")


def infer_sizes(program: ir.Program, given: dict, arrays: dict) -> dict:
    """Size parameters solved from the arrays' shapes: a dim affine in one unknown parameter
    (`N`, `N + M` once M is known, `16 * T`) fixes it; repeated until nothing changes. Every
    array is checked against the result afterwards (`fit_array`)."""
    from ..analysis.sizes import eval_int

    sizes, ambiguous, source = dict(given), {}, {}
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
                    source[p] = (name, d)
                    progress = True
                elif len(values) > 1:
                    ambiguous[p] = name
    _check_agree(program, sizes, arrays, source)
    missing = [p for p in program.params if p not in sizes]
    if missing:
        why = "".join(f" ({p}: tensor {ambiguous[p]}'s padded dim fits both its storage and its logical shape)"
                      for p in missing if p in ambiguous)
        raise UsageError(f"cannot infer {', '.join(missing)} from the arrays' shapes{why}; pass --size")
    return sizes


def _check_agree(program: ir.Program, sizes: dict, arrays: dict, source: dict) -> None:
    """UsageError naming both arrays when one array's shape contradicts a size inferred from
    another (rather than blaming whichever array is checked last)."""
    from ..analysis.sizes import eval_int

    for name, arr in arrays.items():
        t = program.tensor(name)
        if arr.ndim != t.rank:
            raise UsageError(f"--in {name}: the array has {arr.ndim} dimension(s), tensor {name} has {t.rank}")
        for d, (dim, pad) in enumerate(zip(t.dims, t.pad)):
            used = ir.free_vars(dim)
            if any(p not in sizes for p in used):
                continue
            want = eval_int(dim, sizes)
            if arr.shape[d] in (want, want + pad):
                continue
            others = [(p, source[p]) for p in used if p in source and source[p][0] != name]
            if others:
                p, (other, od) = others[0]
                raise UsageError(f"--in {name} and --in {other} disagree: {other}'s dim {od} "
                                 f"({arrays[other].shape[od]}) gives {p}={sizes[p]}, so {name}'s dim {d} "
                                 f"should be {want}{f' (or {want + pad} with padding)' if pad else ''}, "
                                 f"but it is {arr.shape[d]}")


def fit_array(program: ir.Program, name: str, arr: np.ndarray, sizes: dict) -> np.ndarray:
    """The given array as the tensor's storage: its storage shape, or its logical shape (the
    padding then starts at zero); its dtype, or values that convert to it exactly."""
    from verified_sched.core.dtypes import NP_DTYPE, bf16_to_f32, f32_to_bf16, logical_shape, storage_shape

    t = program.tensor(name)
    store, logical = storage_shape(t, sizes), logical_shape(t, sizes)
    if arr.shape not in (store, logical):
        raise UsageError(f"--in {name}: array shape {arr.shape} does not match tensor {name}: "
                         f"{logical} at {', '.join(f'{k}={v}' for k, v in sizes.items())}"
                         + (f" (storage with padding {store})" if store != logical else ""))
    want = NP_DTYPE[t.prec]
    if arr.dtype != want and arr.dtype.kind not in "fiu":
        raise UsageError(f"--in {name}: dtype {arr.dtype} cannot hold {t.prec} values ({want}); "
                         "give a real-valued array")
    if arr.dtype != want:
        if t.prec == "bf16" and arr.dtype.kind == "f":
            conv = f32_to_bf16(arr.astype(np.float32))
            back = bf16_to_f32(conv)
        else:
            with np.errstate(all="ignore"):
                conv = arr.astype(want)
                back = conv
        with np.errstate(all="ignore"):
            same = np.array_equal(back.astype(np.float64), arr.astype(np.float64), equal_nan=True)
        if not same:
            raise UsageError(f"--in {name}: dtype {arr.dtype} does not convert exactly to {t.prec} "
                             f"({want}); convert the array first")
        arr = conv
    out = np.zeros(store, dtype=want)
    out[tuple(slice(0, n) for n in arr.shape)] = arr
    return out


def parse_set(specs) -> list:
    """The `--set 'NAME[i, j]=VALUE'` cells (a counterexample's input values): [{tensor, index,
    value}]; VALUE a float literal such as -0.0, inf, nan, 1e300, or a hex float."""
    import re

    out = []
    for spec in specs:
        m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[([-0-9,\s]*)\]\s*=\s*(\S+)\s*", spec)
        if not m:
            raise UsageError(f"expected --set 'NAME[i, j]=VALUE', got {spec!r}")
        try:
            index = [int(x) for x in m.group(2).split(",") if x.strip()]
        except ValueError:
            raise UsageError(f"--set {spec!r}: the index is not a list of integers") from None
        out.append({"tensor": m.group(1), "index": index, "value": m.group(3)})
    return out
