"""The oracle: run two kernels on the same random inputs and compare every cell.

`compare_kernels` is the one entry point: `vsched run`, the tests and other backends all come
through it. A runner is any callable(kernel_name, sizes, arrays) that mutates `arrays` in
place: a `CModule.run`, the interpreter (`lambda k, s, a: run_kernel(program, k, s, a)`), a
foreign shared library symbol (`load_shared(...).run`) or any Python function.

Inputs are random (never all zeros); tensors named by an `inputs` directive draw from their
declared value set instead. The logical cells of global tensors that a kernel writes before it
reads them are poisoned identically before both runs (NaN with a recognisable payload;
0xDEADBEEF for i32), so a cell that one kernel forgets to write shows up; a tensor updated in
place (a stencil's, read first) keeps its random values, and padding keeps random values too
(NaN there could hide a kernel that depends on it). The default runners are the bounds-checked
C build (codegen/checked.py): any access outside storage, read or write, is OutOfStorage.
Every array also sits inside a larger buffer of guard cells, so a compiled kernel of another
runner that writes just outside a tensor's storage is reported (OutOfStorage) instead of
corrupting the heap. Padding is don't-care and never
compared. Comparison is bitwise (two NaNs count as equal whatever their payloads), or within
`rtol` (and `atol`) where reassociation is licensed. A comparison in which every output cell
is zero or still poison in both runs is reported as vacuous: the caller must fail on it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from verified_sched.core import ir
from verified_sched.core.errors import UsageError

from verified_sched.core.dtypes import (NP_DTYPE, bf16_to_f32, check_sizes, eval_int, f32_to_bf16, global_tensors,
                     logical_shape, storage_shape)
from codegen import special_inputs
from codegen.storage_error import OutOfStorage  # re-exported: importers take it from here
from ..interp.node_memo import NodeMemo

Runner = Callable[[str, dict, dict], None]
MODES = ("random", "small-int", "special", "special-finite")
_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
POISON_BITS = {  # by numpy dtype; bf16 arrays are uint16
    np.dtype(np.float32): 0x7FC0DEAD,
    np.dtype(np.float64): 0x7FF8DEADBEEFDEAD,
    np.dtype(np.float16): 0x7E5D,
    np.dtype(np.uint16): 0x7FDA,
    np.dtype(np.int32): 0xDEADBEEF,
}


def _kernels(program: ir.Program, names) -> list:
    return list(program.kernels) if names is None else [program.kernel(n) for n in names]


def _names(kernel_names):
    return None if kernel_names is None else tuple(kernel_names)


def index_extents(program: ir.Program, kernel_names=None) -> dict:
    """i32 tensors read inside an index -> the smallest extent they index (values stay in bounds)."""
    return {k: list(v) for k, v in _INDEX_EXTENTS(program, _names(kernel_names)).items()}


def _index_extents(program: ir.Program, kernel_names) -> dict:
    out: dict = {}
    for k in _kernels(program, kernel_names):
        for node in ir.walk(k.body):
            if not isinstance(node, (ir.Load, ir.Assign)):
                continue
            dims = program.tensor(node.tensor).dims
            for dim, e in zip(dims, node.index):
                for inner in ir.walk(e):
                    if isinstance(inner, ir.Load):
                        out.setdefault(inner.tensor, []).append(dim)
    return {k: tuple(v) for k, v in out.items()}


def written(program: ir.Program, kernel_names=None) -> list:
    """Global tensors that the kernels assign or zero (program order)."""
    return list(_WRITTEN(program, _names(kernel_names)))


def _written(program: ir.Program, kernel_names) -> tuple:
    names = set()
    for k in _kernels(program, kernel_names):
        names |= {n.tensor for n in ir.nodes_of(k.body, (ir.Assign, ir.Zero))}
    return tuple(t.name for t in global_tensors(program) if t.name in names)


def read_before_written(program: ir.Program, kernel_names=None) -> set:
    """Tensors whose first access in some kernel (execution order) is a read: in/out tensors.

    Their values are inputs, so the oracle keeps them random instead of poisoning them.
    """
    return set(_READ_FIRST(program, _names(kernel_names)))


def _read_before_written(program: ir.Program, kernel_names) -> frozenset:
    found = set()
    for k in _kernels(program, kernel_names):
        decided = set()
        for node in ir.nodes_of(k.body, (ir.Assign, ir.Zero, ir.Load)):
            if isinstance(node, ir.Assign):
                for load in ir.reads(node.value) + ir.reads(node.index):
                    if load.tensor not in decided:
                        decided.add(load.tensor)
                        found.add(load.tensor)
                decided.add(node.tensor)
            elif isinstance(node, ir.Zero):
                decided.add(node.tensor)
            elif isinstance(node, ir.Load) and node.tensor not in decided:
                decided.add(node.tensor)
                found.add(node.tensor)
    return frozenset(found)


# each asked once per program object and kernel names: a fuzz example compares the same two
# programs at two size sets, a replay at up to 4 sizes and 4 seeds (interp/node_memo.py)
_INDEX_EXTENTS = NodeMemo(_index_extents)
_WRITTEN = NodeMemo(_written)
_READ_FIRST = NodeMemo(_read_before_written)


def random_inputs(program: ir.Program, kernel_names, sizes: dict, seed: int = 0,
                  mode: str = "random") -> dict:
    """An array (storage shape and dtype) for every global tensor; never all zeros.

    random: floats uniform in [-1, 1), i32 in [-100, 100]; small-int: integers in [-8, 8];
    special: the seed's pattern of special values (codegen/special_inputs.py).
    i32 tensors read inside an index draw from [0, extent) of the dimension they index.
    Tensors named by an `inputs` directive (program.inputs) are then redrawn from their
    declared value set, whatever the mode.
    """
    if mode not in MODES:
        raise UsageError(f"unknown input mode {mode!r} (use one of {', '.join(MODES)})")
    env = check_sizes(program, sizes)
    rng = np.random.default_rng(seed)
    index_dims = index_extents(program, kernel_names)
    if mode.startswith("special"):  # special values (codegen/special_inputs.py) over a random draw
        arrays = random_inputs(program, kernel_names, sizes, seed, "random")
        special_inputs.fill(arrays, {t.name: t.prec for t in global_tensors(program)},
                            set(index_dims) | {n for r in program.inputs for n in r.tensors}, seed,
                            finite=mode == "special-finite")
        return arrays
    arrays = {}
    for t in global_tensors(program):
        shape, dtype = storage_shape(t, env), NP_DTYPE[t.prec]
        if t.name in index_dims:
            hi = min(eval_int(d, env) for d in index_dims[t.name])
            arrays[t.name] = rng.integers(0, max(hi, 1), size=shape).astype(np.int32)
            continue
        if mode == "small-int" or t.prec == "i32":
            bound = 100 if (t.prec == "i32" and mode == "random") else 8
            values = rng.integers(-bound, bound + 1, size=shape).astype(np.float64)
        else:
            values = rng.uniform(-1.0, 1.0, size=shape)
        if values.size and not values.any():
            values.flat[0] = 1.0
        if t.prec == "bf16":
            arrays[t.name] = f32_to_bf16(values.astype(np.float32))
        else:
            arrays[t.name] = values.astype(dtype)
    declared_ranges(program, arrays, seed)
    return arrays


def declared_ranges(program: ir.Program, arrays: dict, seed: int) -> None:
    """Redraw the tensors named by `inputs NAME ... in [LO, HI]` lines from their declared
    value set (multiples of 2^-grid in the range; never all zero where the range allows)."""
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


def _bits(arr: np.ndarray) -> np.ndarray:
    return arr.view(_UINT[arr.dtype.itemsize])


def _poison_value(arr: np.ndarray):
    return _UINT[arr.dtype.itemsize](POISON_BITS[arr.dtype])


def poison(arrays: dict, names, program: Optional[ir.Program] = None) -> None:
    """Fill the named arrays entirely, and (given the program) every padding cell, with poison."""
    for name in names:
        _bits(arrays[name])[...] = _poison_value(arrays[name])
    if program is None:
        return
    for t in global_tensors(program):
        arr = arrays.get(t.name)
        if arr is None:
            continue
        for d, p in enumerate(t.pad):
            if p:
                sl = [slice(None)] * arr.ndim
                sl[d] = slice(arr.shape[d] - p, None)
                _bits(arr)[tuple(sl)] = _poison_value(arr)


def random_padding(program: ir.Program, arrays: dict, drawn: dict) -> None:
    """Padding cells get the random values drawn for them (never poison): a kernel whose
    result depends on what it reads from padding then differs, where NaN would hide it
    (a comparison, a select or min/max against NaN can drop it). Padding is never compared."""
    for t in global_tensors(program):
        arr = arrays.get(t.name)
        if arr is None or t.name not in drawn:
            continue
        for d, p in enumerate(t.pad):
            if p:
                sl = [slice(None)] * arr.ndim
                sl[d] = slice(arr.shape[d] - p, None)
                arr[tuple(sl)] = drawn[t.name][tuple(sl)]


def guarded(arrays: dict) -> tuple:
    """(views, guards): copies of the arrays placed inside larger buffers of guard cells, so a
    compiled kernel that writes just outside a tensor's storage hits the guard cells instead
    of the heap (a crash), and `check_guards` can report it."""
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


def check_guards(kernel: str, guards: dict) -> None:
    """OutOfStorage when a run changed a guard cell of some tensor."""
    for name, (buf, pad, before) in guards.items():
        lo = np.flatnonzero(buf[:pad].view(np.uint8) != before[:pad].view(np.uint8))
        hi = np.flatnonzero(buf[-pad:].view(np.uint8) != before[-pad:].view(np.uint8))
        if lo.size or hi.size:
            where = (f"{-(-(pad * buf.itemsize - lo[0]) // buf.itemsize)} element(s) before its start" if lo.size
                     else f"{hi[-1] // buf.itemsize + 1} element(s) past its end")
            raise OutOfStorage(kernel, name, f"kernel {kernel} wrote outside the storage of tensor {name}, "
                                             f"up to {where}")


def _values(arr: np.ndarray, prec: str) -> np.ndarray:
    if prec == "bf16":
        return bf16_to_f32(arr).astype(np.float64)
    return arr.astype(np.float64)


@dataclass
class FirstDiff:
    tensor: str
    index: tuple
    ref: float
    cand: float
    bits: str = ""  # the two cells' storage bits, "0x80000000 vs 0x00000000"


@dataclass
class CompareReport:
    ref: str
    cand: str
    sizes: dict
    seed: int
    rtol: Optional[float]
    equal: bool = True
    vacuous: bool = False
    max_abs: float = 0.0
    max_rel: float = 0.0
    first_diff: Optional[FirstDiff] = None
    n_compared: int = 0
    n_diff: int = 0
    tensors: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Equal on a comparison that was not vacuous: what a caller should require."""
        return self.equal and not self.vacuous

    def text(self) -> str:
        how = "bitwise" if self.rtol is None else f"rtol={self.rtol}"
        sizes = ",".join(f"{k}={v}" for k, v in self.sizes.items())
        head = f"{self.ref} vs {self.cand} at {sizes} seed {self.seed} ({how}): "
        if self.equal:
            head += f"equal on {self.n_compared} cells of {', '.join(self.tensors)}"
        else:
            d = self.first_diff
            head += (f"{self.n_diff} of {self.n_compared} cells differ; first {d.tensor}"
                     f"[{', '.join(map(str, d.index))}]: {d.ref!r} vs {d.cand!r}"
                     + (f" (bits {d.bits})" if d.bits else ""))
        lines = [head, f"  max abs error {self.max_abs:.6g}, max rel error {self.max_rel:.6g}"]
        if self.vacuous:
            lines.append("  VACUOUS: every output cell is zero or poison in both runs")
        return "\n".join(lines)


def compare_arrays(report: CompareReport, name: str, prec: str, ref: np.ndarray, cand: np.ndarray,
                   atol: float) -> None:
    """Fold one tensor's comparison (non-padding views) into the report."""
    if ref.dtype.kind == "i":
        same = ref == cand
        rv, cv = ref.astype(np.float64), cand.astype(np.float64)
        ok = same
    else:
        rv, cv = _values(ref, prec), _values(cand, prec)
        same = (_bits(ref) == _bits(cand)) | (np.isnan(rv) & np.isnan(cv))
        ok = same
        if report.rtol is not None:
            with np.errstate(all="ignore"):
                close = np.abs(rv - cv) <= report.rtol * np.maximum(np.abs(rv), np.abs(cv)) + atol
            ok = same | (np.isfinite(rv) & np.isfinite(cv) & close)
    with np.errstate(all="ignore"):
        absdiff = np.where(same, 0.0, np.abs(rv - cv))
        absdiff = np.where(np.isnan(absdiff), np.inf, absdiff)
        rel = np.where(absdiff == 0, 0.0, absdiff / np.abs(rv))
    report.n_compared += ref.size
    report.tensors.append(name)
    if ref.size:
        report.max_abs = max(report.max_abs, float(absdiff.max()))
        report.max_rel = max(report.max_rel, float(np.nan_to_num(rel, nan=np.inf).max()))
    bad = ~ok
    n_bad = int(bad.sum())
    report.n_diff += n_bad
    if n_bad and report.first_diff is None:
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        r, c = rv[idx], cv[idx]
        width = 2 * ref.dtype.itemsize
        bits = f"0x{int(_bits(ref)[idx]):0{width}x} vs 0x{int(_bits(cand)[idx]):0{width}x}"
        report.first_diff = FirstDiff(name, idx, int(r) if ref.dtype.kind == "i" else float(r),
                                      int(c) if ref.dtype.kind == "i" else float(c), bits)
    report.equal = report.equal and n_bad == 0


def _meaningless(arr: np.ndarray) -> bool:
    """Every cell zero or poison."""
    bits = _bits(arr)
    zero = (arr == 0) if arr.dtype.kind == "f" else (bits & 0x7FFF) == 0 if arr.dtype == np.uint16 else bits == 0
    return bool(np.all(zero | (bits == _poison_value(arr))))


def scratch_arrays(program: ir.Program, program_cand: ir.Program, sizes: dict) -> dict:
    """Poisoned arrays for the global tensors only the scheduled program declares (scratch such
    as split_reduction's partials): the candidate needs storage for them, but they are not in
    the unscheduled program's observable state and are never compared."""
    have = {t.name for t in global_tensors(program)}
    extra = [t for t in global_tensors(program_cand) if t.name not in have]
    if not extra:
        return {}
    env = check_sizes(program_cand, sizes)
    out = {t.name: np.zeros(storage_shape(t, env), dtype=NP_DTYPE[t.prec]) for t in extra}
    poison(out, list(out), program_cand)
    return out


def compare_kernels(program: ir.Program, ref: str, cand: str, sizes: dict, seed: int = 0,
                    inputs: str = "random", runner_ref: Optional[Runner] = None,
                    runner_cand: Optional[Runner] = None, rtol: Optional[float] = None,
                    atol: float = 0.0, program_cand: Optional[ir.Program] = None,
                    values: Optional[list] = None, given: Optional[dict] = None) -> CompareReport:
    """Run `ref` and `cand` on copies of the same poisoned random inputs; compare every global tensor.

    `given`: arrays (tensor name -> its storage-shaped values) used instead of drawn ones, such
    as an imported model's parameters; `values`: single cells set after drawing.

    Default runners compile the program (and `program_cand`, when the candidate lives in a
    scheduled copy of the program) to C. Global tensors must agree between the two programs.
    Raises OutOfStorage when a kernel writes outside a tensor's storage.
    """
    program_cand = program_cand or program
    ref_names = {t.name for t in global_tensors(program)}
    if [(t.name, t.prec, t.dims, t.pad) for t in global_tensors(program)] != \
            [(t.name, t.prec, t.dims, t.pad) for t in global_tensors(program_cand) if t.name in ref_names]:
        raise UsageError("the two programs declare different global tensors")
    if runner_ref is None or runner_cand is None:
        from codegen.checked import load_checked  # the C toolchain only when a default runner is needed
        from ..analysis.full_tiles import full_tiles
        runner_ref = runner_ref or load_checked(program, split=full_tiles).run
        runner_cand = runner_cand or load_checked(program_cand, split=full_tiles).run
    env = check_sizes(program, sizes)
    ref_names = [ref] if any(k.name == ref for k in program.kernels) else None
    arrays = random_inputs(program, ref_names, sizes, seed, inputs)
    for name, arr in (given or {}).items():
        arrays[name] = np.array(arr, dtype=arrays[name].dtype) if name in arrays else np.array(arr)
    cand_names = [cand] if any(k.name == cand for k in program_cand.kernels) else None
    outputs = sorted(set(written(program, ref_names)) | set(written(program_cand, cand_names)))
    inout = read_before_written(program, ref_names) | read_before_written(program_cand, cand_names)
    drawn = {n: a.copy() for n, a in arrays.items()}
    poison(arrays, [n for n in outputs if n not in inout and n in arrays])
    random_padding(program, arrays, drawn)
    if values:  # given cells (a counterexample's inputs, `vsched run --set`)
        special_inputs.set_values(arrays, {t.name: t.prec for t in global_tensors(program)}, values)
    ref_arrays, ref_guards = guarded(arrays)
    cand_arrays, cand_guards = guarded({**arrays, **scratch_arrays(program, program_cand, sizes)})
    runner_ref(ref, dict(sizes), ref_arrays)
    check_guards(ref, ref_guards)
    runner_cand(cand, dict(sizes), cand_arrays)
    check_guards(cand, cand_guards)
    report = CompareReport(ref, cand, dict(sizes), seed, rtol)
    vacuous = True
    for t in global_tensors(program):
        if t.scratch:  # intermediate values only (split_reduction's partials): not observable
            continue
        region = tuple(slice(0, n) for n in logical_shape(t, env))
        r, c = ref_arrays[t.name][region], cand_arrays[t.name][region]
        compare_arrays(report, t.name, t.prec, r, c, atol)
        if t.name in outputs and not (_meaningless(r) and _meaningless(c)):
            vacuous = False
    report.vacuous = vacuous
    return report


# relative tolerance of a comparison licensed to reassociate, per precision
RTOL = {"f16": 1e-2, "bf16": 1e-2, "f32": 1e-4, "f64": 1e-10, "i32": 0.0}


def tolerance(program: ir.Program, kernels) -> float:
    """The loosest RTOL among the precisions the kernels store (1e-4 when none applies)."""
    precs = {program.tensor(n.tensor).prec for k in kernels for n in ir.walk(program.kernel(k).body)
             if isinstance(n, ir.Assign)}
    return max((RTOL[p] for p in precs), default=1e-4) or 1e-4
