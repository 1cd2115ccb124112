"""The cells of the conflicting tensor at a counterexample's sizes, for the HTML report: the
cells the instances A and B write and read and the conflicting cell, in a 2-D window of the
tensor's storage (cells outside the storage included, so an out-of-bounds access shows)."""
from __future__ import annotations

from dataclasses import dataclass

from ..core import ir
from .geometry import MAX_X, MAX_Y, choose_dims, window


@dataclass
class CellGrid:
    """A 2-D window on a tensor's cells (rows: dim y, columns: dim x; None: absent)."""

    tensor: str
    shape: tuple
    x: int | None
    y: int | None
    fixed: dict  # dim -> index
    xs: range
    ys: range
    marks: dict  # (xv, yv) -> set of tags: conflict, A-write, A-read, B-write, B-read


def _tags(cex: dict, insts: dict, name: str, rank: int) -> dict:
    tags = {}

    def tag(index, t):
        if index is not None and len(index) == rank:
            tags.setdefault(tuple(index), set()).add(t)
    for c in cex.get("cells") or []:
        if isinstance(c, dict) and c.get("tensor") == name:
            tag(c.get("index"), "conflict")
    for label, inst in insts.items():
        w = inst.get("writes") or {}
        if w.get("tensor") == name:
            tag(w.get("index"), f"{label}-write")
        for r in inst.get("reads") or []:
            if r.get("tensor") == name:
                tag(r.get("index"), f"{label}-read")
    return tags


def cell_grid(program: ir.Program, cex: dict, insts: dict) -> CellGrid | None:
    """The grid of the counterexample's (first) cell's tensor, else of what A writes; None
    when no cell is known."""
    from ..analysis.sizes import tensor_shape

    cells = [c for c in cex.get("cells") or [] if isinstance(c, dict) and c.get("index") is not None]
    name = cells[0]["tensor"] if cells else next(
        (i["writes"]["tensor"] for i in insts.values() if (i.get("writes") or {}).get("index") is not None), None)
    if name is None:
        return None
    shape = tensor_shape(program, name, cex.get("params") or {})
    tags = _tags(cex, insts, name, len(shape))
    if not tags:
        return None
    marked = list(tags)
    extents = [max(shape[k] - 1, *[c[k] for c in marked]) - min(0, *[c[k] for c in marked]) + 1
               for k in range(len(shape))]
    x, y = choose_dims(len(shape), marked, extents)
    anchor = next((c for c, t in tags.items() if "conflict" in t), marked[0])
    keep = {c: t for c, t in tags.items() if all(c[k] == anchor[k] for k in range(len(shape)) if k not in (x, y))}

    def axis(k, size):
        if k is None:
            return range(0, 1)
        vals = [c[k] for c in keep]
        return window(min(0, *vals), max(shape[k] - 1, *vals), vals, size)
    marks = {(c[x] if x is not None else 0, c[y] if y is not None else 0): t for c, t in keep.items()}
    return CellGrid(name, shape, x, y, {k: anchor[k] for k in range(len(shape)) if k not in (x, y)},
                    axis(x, MAX_X if y is None else MAX_Y), axis(y, MAX_Y // 2 + 4), marks)
