"""Inline SVG of the pictures of iterspace.py: a statement's 2-D iteration slice with the
instances A and B, their execution order and the order of the slice; a tensor's cells with
the cells they touch. No scripts, no external resources; CSS classes name what each element
shows (`instance-a`, `instance-b`, `ghost-a`, `cell-conflict`, `order-arrow`, ...).
"""
from __future__ import annotations

import itertools
from html import escape

from .cells import CellGrid
from .iterspace import View

COLOR = {"A": "#d62728", "B": "#1f77b4"}
ORDER_COLOR = "#2ca02c"
UNORDERED_COLOR = "#9467bd"
ML, MT, MB, MR = 70, 44, 50, 24  # margins: left (y axis), top (title), bottom (x axis), right
_ids = itertools.count()


def _cell_size(nx: int, ny: int) -> int:
    return max(9, min(60, 560 // max(nx, 1), 340 // max(ny, 1)))


def _ticks(values: range) -> list:
    step = max(1, -(-len(values) // 16))
    out = [v for n, v in enumerate(values) if n % step == 0]
    if out[-1] != values[-1] and values[-1] - out[-1] >= max(2, step // 2 + 1):
        out.append(values[-1])
    return out


class _Frame:
    """Pixel geometry of a window xs × ys drawn with cells of side `cs`."""

    def __init__(self, xs: range, ys: range, title: str = "", xlabel: str | None = None):
        self.xs, self.ys = xs, ys
        self.cs = _cell_size(len(xs), len(ys))
        text = max(len(title) * 7.6, len(xlabel or "") * 6.8 + 24)  # room for the title and the x label
        self.w = max(ML + len(xs) * self.cs + MR, ML + text)
        self.h = MT + len(ys) * self.cs + MB

    def left(self, xv) -> float:
        return ML + (xv - self.xs.start) * self.cs

    def top(self, yv) -> float:
        return MT + (yv - self.ys.start) * self.cs

    def center(self, xv, yv) -> tuple:
        return self.left(xv) + self.cs / 2, self.top(yv) + self.cs / 2

    def axes(self, title: str, xlabel: str | None, ylabel: str | None) -> list:
        out = [f'<text class="title" x="{ML}" y="18" font-size="13" font-weight="bold">{escape(title)}</text>']
        bottom = MT + len(self.ys) * self.cs
        if xlabel is not None:
            for v in _ticks(self.xs):
                out.append(f'<text class="tick" x="{self.left(v) + self.cs / 2:.1f}" y="{bottom + 14}" '
                           f'font-size="10" text-anchor="middle">{v}</text>')
            out.append(f'<text class="axis-label x-label" x="{ML + len(self.xs) * self.cs / 2:.1f}" '
                       f'y="{bottom + 34}" font-size="12" text-anchor="middle">{escape(xlabel)} →</text>')
        if ylabel is not None:
            for v in _ticks(self.ys):
                out.append(f'<text class="tick" x="{ML - 6}" y="{self.top(v) + self.cs / 2 + 4:.1f}" '
                           f'font-size="10" text-anchor="end">{v}</text>')
            cy = MT + len(self.ys) * self.cs / 2
            out.append(f'<text class="axis-label y-label" x="16" y="{cy:.1f}" font-size="12" '
                       f'text-anchor="middle" transform="rotate(-90 16 {cy:.1f})">{escape(ylabel)} →</text>')
        return out


def _defs(uid: str) -> str:
    return (f'<defs><marker id="step{uid}" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="5" '
            f'markerHeight="5" orient="auto"><path d="M0,1 L9,5 L0,9 z" fill="#8a9a9a"/></marker>'
            f'<marker id="first{uid}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{ORDER_COLOR}"/></marker>'
            f'<pattern id="hatch{uid}" width="6" height="6" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><rect width="6" height="6" fill="#fde2e2"/>'
            f'<line x1="0" y1="0" x2="0" y2="6" stroke="#e08080" stroke-width="2"/></pattern></defs>')


def _svg(fr: _Frame, body: list, css: str, label: str) -> str:
    return (f'<svg class="{css}" xmlns="http://www.w3.org/2000/svg" width="{fr.w:.0f}" height="{fr.h:.0f}" '
            f'viewBox="0 0 {fr.w:.0f} {fr.h:.0f}" role="img" aria-label="{escape(label)}">'
            + "".join(body) + "</svg>")


def _mark(fr: _Frame, label: str, xv, yv, ghost: bool = False) -> str:
    """A: a square, B: a diamond, each with its letter; a ghost (not run here) is dashed."""
    cx, cy = fr.center(xv, yv)
    half = fr.cs / 2 - 1.5
    color = COLOR[label]
    css = f"{'ghost' if ghost else 'instance'}-{label.lower()}"
    dash = ' stroke-dasharray="3 2"' if ghost else ""
    fill = "none" if ghost else color
    if label == "A":
        shape = (f'<rect x="{cx - half:.1f}" y="{cy - half:.1f}" width="{2 * half:.1f}" height="{2 * half:.1f}" '
                 f'fill="{fill}" fill-opacity="0.25" stroke="{color}" stroke-width="3"{dash}/>')
        tx, anchor = cx - half - 2, "end"
    else:
        pts = f"{cx:.1f},{cy - half:.1f} {cx + half:.1f},{cy:.1f} {cx:.1f},{cy + half:.1f} {cx - half:.1f},{cy:.1f}"
        shape = f'<polygon points="{pts}" fill="{fill}" fill-opacity="0.25" stroke="{color}" stroke-width="3"{dash}/>'
        tx, anchor = cx + half + 2, "start"
    text = label + (" (not run)" if ghost else "")
    return (f'<g class="{css}" data-label="{label}"><title>{label}{" (not run in this program)" if ghost else ""}'
            f' at {xv}, {yv}</title>{shape}<text x="{tx:.1f}" y="{cy - half + 4:.1f}" font-size="13" '
            f'font-weight="bold" fill="{color}" text-anchor="{anchor}" stroke="white" stroke-width="3" '
            f'paint-order="stroke">{escape(text)}</text></g>')


def _pair(fr: _Frame, a: tuple, b: tuple, first: str | None, uid: str) -> str:
    """An arrow from the instance that runs first to the other, or a dashed line: unordered."""
    (ax, ay), (bx, by) = fr.center(*a), fr.center(*b)
    if (ax, ay) == (bx, by):
        return ""
    if first == "B":
        (ax, ay), (bx, by) = (bx, by), (ax, ay)
    # a curve bowed to one side so it does not hide the order path, ending at the marks' edges
    mx, my = (ax + bx) / 2 - (by - ay) * 0.3, (ay + by) / 2 + (bx - ax) * 0.3 - (fr.cs * 0.7 if ay == by else 0)

    def toward(px, py, d):
        n = max(((mx - px) ** 2 + (my - py) ** 2) ** 0.5, 1e-9)
        return px + (mx - px) / n * d, py + (my - py) / n * d
    (ax, ay), (bx, by) = toward(ax, ay, fr.cs * 0.4), toward(bx, by, fr.cs * 0.45)
    lx, ly = mx, my + 4  # the label beyond the curve's bow, off the marks
    if first is None:
        return (f'<g class="order-arrow unordered"><title>A and B are unordered</title><path d="M{ax:.1f},{ay:.1f} '
                f'Q{mx:.1f},{my:.1f} {bx:.1f},{by:.1f}" fill="none" stroke="{UNORDERED_COLOR}" stroke-width="2.5" '
                f'stroke-dasharray="6 4"/><text x="{lx:.1f}" y="{ly:.1f}" font-size="11" text-anchor="middle" '
                f'fill="{UNORDERED_COLOR}" stroke="white" stroke-width="3" paint-order="stroke">unordered</text></g>')
    other = "A" if first == "B" else "B"
    return (f'<g class="order-arrow ordered"><title>{first} runs before {other}</title><path d="M{ax:.1f},{ay:.1f} '
            f'Q{mx:.1f},{my:.1f} {bx:.1f},{by:.1f}" fill="none" stroke="{ORDER_COLOR}" stroke-width="2.5" '
            f'marker-end="url(#first{uid})"/><text x="{lx:.1f}" y="{ly:.1f}" font-size="11" '
            f'text-anchor="middle" fill="{ORDER_COLOR}" stroke="white" stroke-width="3" paint-order="stroke">'
            f'{first} first</text></g>')


def view_svg(view: View, first: str | None) -> str:
    """One statement's slice: the domain's points numbered in execution order, a thin path
    through them in that order, A and B marked and the arrow of their order."""
    uid = str(next(_ids))
    names = [lp[0] for lp in view.loops]

    def label(k):
        if k is None:
            return None
        name, axis, rng = view.loops[k]
        return f"{name}  ({axis}, {rng})"
    fixed = ", ".join(f"{n}={v}" for n, v in view.fixed.items())
    drawn = " × ".join(names[k] for k in (view.y, view.x) if k is not None) or "one instance"
    title = f"{view.sid}: {drawn}" + (f"  at {fixed}" if fixed else "")
    fr = _Frame(view.xs, view.ys, title, label(view.x))
    body = [_defs(uid)] + fr.axes(title, label(view.x), label(view.y))
    for xv in fr.xs:
        for yv in fr.ys:
            inside = (xv, yv) in view.points
            body.append(f'<rect class="{"slot" if inside else "slot empty"}" x="{fr.left(xv):.1f}" '
                        f'y="{fr.top(yv):.1f}" width="{fr.cs}" height="{fr.cs}" fill="{"#f4f6f8" if inside else "white"}"'
                        f' stroke="#dde2e6" stroke-width="0.5"/>')
    path = sorted(view.points, key=view.points.get)
    if 1 < len(path) <= 600:
        pts = " ".join(f"{fr.center(*p)[0]:.1f},{fr.center(*p)[1]:.1f}" for p in path)
        body.append(f'<polyline class="order-path" points="{pts}" fill="none" stroke="#a8b4b4" '
                    f'stroke-width="1" marker-mid="url(#step{uid})"/>')
    r = max(1.8, fr.cs * 0.12)
    for p, rank in view.points.items():
        cx, cy = fr.center(*p)
        body.append(f'<circle class="point" cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="#6b7b85">'
                    f'<title>{escape(_where(view, p))}: step {rank}</title></circle>')
        if fr.cs >= 20:
            body.append(f'<text class="step" x="{fr.left(p[0]) + 2:.1f}" y="{fr.top(p[1]) + 9:.1f}" '
                        f'font-size="8" fill="#56636b">{rank}</text>')
    for lbl, pos in view.ghosts.items():
        body.append(_mark(fr, lbl, *pos, ghost=True))
    for lbl, pos in view.marks.items():
        body.append(_mark(fr, lbl, *pos))
    if "A" in view.marks and "B" in view.marks:
        body.append(_pair(fr, view.marks["A"], view.marks["B"], first, uid))
    return _svg(fr, body, "iteration-space", f"iteration slice of {view.sid}")


def _where(view: View, p) -> str:
    names = [lp[0] for lp in view.loops]
    at = dict(view.fixed)
    if view.x is not None:
        at[names[view.x]] = p[0]
    if view.y is not None:
        at[names[view.y]] = p[1]
    return f"{view.sid}(" + ", ".join(f"{n}={at[n]}" for n in names if n in at) + ")"


_TAG_TEXT = {"conflict": "the conflicting cell", "A-write": "A writes", "A-read": "A reads",
             "B-write": "B writes", "B-read": "B reads"}


def grid_svg(grid: CellGrid) -> str:
    """A tensor's cells at the counterexample's sizes: storage in grey, cells outside it
    hatched, the cells A and B write (filled) or read (outlined), the conflict in bold."""
    uid = str(next(_ids))
    rank = len(grid.shape)
    idx = ["·" if k in (grid.x, grid.y) else str(grid.fixed[k]) for k in range(rank)]
    title = f"tensor {grid.tensor}[{', '.join(idx)}]  (storage {' × '.join(map(str, grid.shape))})"

    def label(k):
        return None if k is None else f"{grid.tensor} index {k} (0 .. {grid.shape[k] - 1})"
    fr = _Frame(grid.xs, grid.ys, title, label(grid.x))
    body = [_defs(uid)] + fr.axes(title, label(grid.x), label(grid.y))
    for xv in fr.xs:
        for yv in fr.ys:
            cell = _cell_at(grid, xv, yv)
            inside = all(0 <= c < n for c, n in zip(cell, grid.shape))
            fill = "#eef0f2" if inside else f"url(#hatch{uid})"
            css = "cell" if inside else "cell outside-storage"
            tip = f"{grid.tensor}[{', '.join(map(str, cell))}]" + ("" if inside else " (outside storage)")
            body.append(f'<rect class="{css}" x="{fr.left(xv):.1f}" y="{fr.top(yv):.1f}" width="{fr.cs}" '
                        f'height="{fr.cs}" fill="{fill}" stroke="#c9ced3" stroke-width="0.6"><title>'
                        f'{escape(tip)}</title></rect>')
    for (xv, yv), tags in grid.marks.items():
        cell = f"{grid.tensor}[{', '.join(map(str, _cell_at(grid, xv, yv)))}]"
        body.append(_cell_marks(fr, xv, yv, tags, cell))
    return _svg(fr, body, "tensor-cells", f"cells of {grid.tensor}")


def _cell_at(grid: CellGrid, xv, yv) -> list:
    cell = [0] * len(grid.shape)
    for k, v in grid.fixed.items():
        cell[k] = v
    if grid.x is not None:
        cell[grid.x] = xv
    if grid.y is not None:
        cell[grid.y] = yv
    return cell


def _cell_marks(fr: _Frame, xv, yv, tags: set, cell: str) -> str:
    x, y, cs = fr.left(xv), fr.top(yv), fr.cs
    out = []
    who = [w for w in "AB" if f"{w}-write" in tags or f"{w}-read" in tags]
    for n, w in enumerate(who):  # A's half on the left, B's on the right
        wx, ww = (x + n * cs / 2, cs / 2) if len(who) == 2 else (x, cs)
        if f"{w}-write" in tags:
            out.append(f'<rect class="cell-{w.lower()}-write" x="{wx + 1:.1f}" y="{y + 1:.1f}" width="{ww - 2:.1f}" '
                       f'height="{cs - 2:.1f}" fill="{COLOR[w]}" fill-opacity="0.55"/>')
        if f"{w}-read" in tags:
            out.append(f'<rect class="cell-{w.lower()}-read" x="{wx + 2.5:.1f}" y="{y + 2.5:.1f}" '
                       f'width="{ww - 5:.1f}" height="{cs - 5:.1f}" fill="none" stroke="{COLOR[w]}" '
                       f'stroke-width="2" stroke-dasharray="3 2"/>')
    if "conflict" in tags:
        out.append(f'<rect class="cell-conflict" x="{x - 1.5:.1f}" y="{y - 1.5:.1f}" width="{cs + 3:.1f}" '
                   f'height="{cs + 3:.1f}" fill="none" stroke="black" stroke-width="3"/>')
    text = "; ".join(_TAG_TEXT[t] for t in sorted(tags))
    letters = "/".join(w for w in who)
    if letters and cs >= 14:
        out.append(f'<text x="{x + cs / 2:.1f}" y="{y + cs / 2 + 4:.1f}" font-size="{min(12, cs / 2):.0f}" '
                   f'font-weight="bold" text-anchor="middle" fill="black">{letters}</text>')
    return f'<g class="cell-mark"><title>{escape(f"{cell}: {text}")}</title>{"".join(out)}</g>'
