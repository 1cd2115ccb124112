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
