"""Which two dims of a point set to draw, and which window of values along each: shared by
the iteration slices (iterspace.py) and the tensor cells (cells.py) of the HTML report."""
from __future__ import annotations

MAX_X = 40  # values shown along x (inner dim); beyond that a window around the marked points
MAX_Y = 24  # values shown along y (outer dim)
MAX_SPAN = 200  # marked points further apart than this are not drawn


class DrawError(Exception):
    """The counterexample cannot be drawn (its text in the report still stands)."""


def choose_dims(depth: int, marked: list, extents: list | None = None, named=()) -> tuple:
    """(x, y) dims to draw (y the outer one; None: not drawn). First the dims in which the
    marked tuples differ (those in `named`, the loops the op names, first; then the widest
    spread), then the other dims of extent > 1 (named first, then the widest; the innermost on
    a tie); a dim of extent 1 is not drawn."""
    extents = extents or [2] * depth
    spread = [max(m[k] for m in marked) - min(m[k] for m in marked) for k in range(depth)]
    diff = sorted((k for k in range(depth) if spread[k] > 0), key=lambda k: (k not in named, -spread[k], -k))
    rest = sorted((k for k in range(depth) if spread[k] == 0 and extents[k] > 1),
                  key=lambda k: (k not in named, -extents[k], -k))
    dims = sorted((diff + rest)[:2])
    if len(dims) == 2:
        return dims[1], dims[0]
    return (dims[0], None) if dims else (None, None)


def window(lo: int, hi: int, marked: list, size: int = MAX_X) -> range:
    """A range of at most `size` values of [lo, hi] holding every marked value (more only
    when the marked values are further apart; DrawError beyond MAX_SPAN)."""
    if hi - lo + 1 <= size:
        return range(lo, hi + 1)
    mlo, mhi = min(marked), max(marked)
    if mhi - mlo + 1 > MAX_SPAN:
        raise DrawError(f"the instances are {mhi - mlo} apart; too far to draw")
    if mhi - mlo + 1 >= size:
        return range(mlo, mhi + 1)
    start = max(lo, min(mlo - (size - (mhi - mlo + 1)) // 2, hi - size + 1))
    return range(start, start + size)
