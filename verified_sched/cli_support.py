"""What `vsched run` and `vsched exec` need besides argument parsing: the comparison of two
kernels on shared inputs (with guard zones around every array, so a compiled kernel that
writes past a tensor is reported instead of corrupting the heap), and turning user-given
.npy files into storage arrays (size inference, logical or storage shapes, exact dtypes).
"""
from __future__ import annotations

import numpy as np

from . import ir
from .errors import UsageError


def poisoned_outputs(program: ir.Program, kernel: str) -> list:
    """Global tensors the kernel writes and never reads before writing them: the ones whose
    input values cannot matter, so poisoning them shows a cell one kernel forgets to write.
    Tensors updated in place (a stencil's A) keep their random inputs."""
    from codegen.oracle import written

    out = []
    body = program.kernel(kernel).body
    for name in written(program, [kernel]):
        first = next((s for s in body if any(getattr(n, "tensor", None) == name for n in ir.walk(s))), None)
        reads = any(isinstance(n, ir.Load) and n.tensor == name for n in ir.walk(body))
        if not reads or isinstance(first, ir.Zero):
            out.append(name)
    return out


def _guarded(arrays: dict) -> tuple:
    """Copies of the arrays placed inside larger poisoned buffers, so that a compiled kernel
    that reads or writes just outside a tensor's storage hits our guard cells instead of the
    heap (a crash), and the write can be reported."""
    views, guards = {}, {}
    for name, arr in arrays.items():
        pad = min(max(arr.size, 256), 1 << 20)
        buf = np.empty(arr.size + 2 * pad, dtype=arr.dtype)
        buf.view(np.uint8)[...] = 0xA5
        view = buf[pad:pad + arr.size].reshape(arr.shape)
        view[...] = arr
        views[name] = view
        guards[name] = (buf, pad, buf.copy())
    return views, guards


def _check_guards(kernel: str, guards: dict) -> None:
    from .interp import KernelError

    for name, (buf, pad, before) in guards.items():
        lo = np.flatnonzero(buf[:pad].view(np.uint8) != before[:pad].view(np.uint8))
        hi = np.flatnonzero(buf[-pad:].view(np.uint8) != before[-pad:].view(np.uint8))
        if lo.size or hi.size:
            where = (f"{(pad * buf.itemsize - lo[0]) // buf.itemsize} element(s) before its start" if lo.size
                     else f"{hi[-1] // buf.itemsize + 1} element(s) past its end")
            raise KernelError(f"kernel {kernel} wrote outside the storage of tensor {name}, up to {where}")


def declared_ranges(program: ir.Program, arrays: dict, seed: int) -> None:
    """Redraw the tensors named by `inputs NAME ... in [LO, HI]` lines from their declared
    value set (multiples of 2^-grid in the range; never all zero where the range allows)."""
    import math

    from codegen.dtypes import f32_to_bf16

    rng = np.random.default_rng([seed, 0x1A5])
    for r in program.inputs:
        scale = 2 ** r.grid_exp
        lo, hi = math.ceil(r.lo * scale), math.floor(r.hi * scale)
        for name in r.tensors:
            if name not in arrays or lo > hi:
                continue
            arr = arrays[name]
            k = rng.integers(lo, hi + 1, size=arr.shape)
            if k.size and not k.any() and (lo or hi):
                k.flat[0] = hi or lo
            values = k / scale
            is_bf16 = program.tensor(name).prec == "bf16"
            arr[...] = f32_to_bf16(values.astype(np.float32)) if is_bf16 else values.astype(arr.dtype)


def compare(ref_prog, ref, cand_prog, cand, sizes, seed, inputs, run_ref, run_cand, rtol=None):
    """Run both kernels on copies of the same inputs and compare every non-padding cell."""
    from codegen.dtypes import global_tensors, logical_shape
    from codegen.oracle import CompareReport, _meaningless, compare_arrays, poison, random_inputs

    arrays = random_inputs(ref_prog, [ref], sizes, seed, inputs)
    declared_ranges(ref_prog, arrays, seed)
    outs = sorted(set(poisoned_outputs(ref_prog, ref)) | set(poisoned_outputs(cand_prog, cand)))
    poison(arrays, outs, ref_prog)
    a_ref, g_ref = _guarded(arrays)
    a_cand, g_cand = _guarded(arrays)
    run_ref(ref, dict(sizes), a_ref)
    _check_guards(ref, g_ref)
    run_cand(cand, dict(sizes), a_cand)
    _check_guards(cand, g_cand)
    report = CompareReport(ref, cand, dict(sizes), seed, rtol)
    report.vacuous = True
    from codegen.oracle import written

    changed = set(written(ref_prog, [ref])) | set(written(cand_prog, [cand]))
    for t in global_tensors(ref_prog):
        region = tuple(slice(0, n) for n in logical_shape(t, sizes))
        r, c = a_ref[t.name][region], a_cand[t.name][region]
        compare_arrays(report, t.name, t.prec, r, c, rtol or 0.0)
        if t.name in changed and not (_meaningless(r) and _meaningless(c)):
            report.vacuous = False
    return report


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
