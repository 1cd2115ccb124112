"""Small isl helpers shared by the checks: sampling, tensor boxes, text of parameters."""
from __future__ import annotations

from .lazy_isl import isl

from .affine import aff, join_and
from .memo import isl_set
from .model import KernelModel, safe_name


def point_of(u):
    """A point of a (union) set or wrapped (union) map, or None when empty."""
    if u.is_empty():
        return None
    if isinstance(u, (isl.UnionMap, isl.Map)):
        u = u.wrap()
    return u.sample_point()


def tensor_box(model: KernelModel, tensor: str, storage: bool) -> isl.Set:
    """The cells of a tensor (with padding when `storage`), cached per model."""
    cache = model.__dict__.setdefault("_boxes", {})
    if (tensor, storage) not in cache:
        cache[(tensor, storage)] = _make_box(model, tensor, storage)
    return cache[(tensor, storage)]


def _make_box(model: KernelModel, tensor: str, storage: bool) -> isl.Set:
    return isl_set(box_text(model, tensor, storage))


def box_text(model: KernelModel, tensor: str, storage: bool) -> str:
    """The text of `tensor_box`."""
    t = model.program.tensor(tensor)
    dims = t.storage_dims() if storage else t.dims
    cs = [f"c{d}" for d in range(len(dims))]
    cons = [f"0 <= c{d} < {aff(e, model.pnames)}" for d, e in enumerate(dims)]
    return model.space(f"T_{safe_name(tensor)}[{', '.join(cs)}] : {join_and(cons + [model.param_text])}")


def params_text(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def extent_text(t, params) -> str:
    from .evaluate import Dynamic, ev
    try:
        ext = [ev(d, params) for d in t.storage_dims()]
    except (Dynamic, KeyError):
        return ""
    return "[" + ", ".join(f"0..{e - 1}" for e in ext) + "]"

def kv_text(d: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items())


def images_minus(base, sets: list):
    """`base` (a UnionSet) minus the union of `sets` (isl Sets), one set at a time, coalesced
    after each and stopped once empty. The union at once can cost isl exponential time when
    the sets have integer divisions: the 16 copies of an `unroll ... materialize` after a
    `split_reduction` (each `(k - c) mod 16 = 0` within blocks of `48 floor(...)`) ran coverage
    out of its 5M-operation budget (fuzz s2026/slow09, 10 s); one at a time, 16 ms. The same
    set either way."""
    out = base
    for s in sets:
        out = out.subtract(isl.UnionSet.from_set(s)).coalesce()
        if out.is_empty():
            break
    return out


def minus_images(sets: list, base):
    """The union of `sets` (isl Sets) minus `base` (a UnionSet), set by set (see images_minus)."""
    parts = [isl.UnionSet.from_set(s).subtract(base) for s in sets]
    out = parts[0]
    for p in parts[1:]:
        out = out.union(p)
    return out.coalesce()
