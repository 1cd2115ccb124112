"""Counterexamples you can look at: a self-contained HTML page of a verification run.

`render_html(results)` takes [(path, program text, report)], the report a `FileReport`
(core/file_report.py; or its JSON, `FileReport.to_json()`), and returns one HTML page: per file
its verdict, and per refuted obligation the source with the op's line highlighted next to
SVG pictures of the counterexample at its sizes (iterspace.py computes them with isl,
svgdraw.py draws them): the involved statements' iteration slices before and after the op
with the conflicting instances A and B and the order in which they run, and the tensor's
cells they touch. No scripts and no external resources: the page renders anywhere.
`vsched explain` (explain.py) and `vsched verify --html` write it.
"""
from __future__ import annotations

from html import escape

import islpy as isl

from polyhedral.affine import NonAffine
from ..core.cex_text import fmt_instance
from ..core.errors import VschedError
from ..core.file_report import FileReport
from .iterspace import DrawError, report_kernels, scene
from .svgdraw import COLOR, ORDER_COLOR, UNORDERED_COLOR, grid_svg, view_svg

CONTEXT_LINES = 3  # source lines shown around each highlighted one in long files
LONG_FILE = 60

CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 20px; color: #1d2327;
       background: #fafbfc; }
h1 { font-size: 22px; margin: 0 0 8px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 2px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 0 0 6px; }
h4 { font-size: 13px; margin: 4px 0; color: #3b4651; }
table.summary { border-collapse: collapse; font-size: 13px; }
table.summary td, table.summary th { border: 1px solid #d0d7de; padding: 3px 10px; text-align: left; }
.verdict-legal { color: #1a7f37; font-weight: bold; }
.verdict-illegal { color: #cf222e; font-weight: bold; }
.verdict-unknown { color: #9a6700; font-weight: bold; }
.refutation { background: white; border: 1px solid #d0d7de; border-radius: 6px; padding: 12px 14px;
              margin: 12px 0; }
.message { font-size: 13px; margin: 4px 0 8px; }
.facts { font-size: 12px; margin: 0 0 8px; padding-left: 18px; }
.facts li { margin: 1px 0; }
.row { display: flex; gap: 18px; align-items: flex-start; flex-wrap: wrap; }
.source { flex: 0 1 auto; max-width: 500px; overflow-x: auto; }
pre.code { font: 12px/1.45 ui-monospace, 'DejaVu Sans Mono', monospace; background: #f6f8fa; margin: 0;
           padding: 6px 0; border: 1px solid #d0d7de; border-radius: 4px; }
pre.code .line { display: block; padding: 0 10px 0 0; white-space: pre; }
pre.code .no { display: inline-block; width: 3.2em; text-align: right; color: #8c959f; padding-right: 10px; }
pre.code .op-line { background: #ffe58f; font-weight: bold; }
pre.code .stmt-line { background: #dbeafe; }
pre.code .kernel-line { background: #eef1f4; }
pre.code .tag { color: #8a5300; font-weight: normal; font-style: italic; }
.figures { flex: 1 1 560px; display: flex; flex-wrap: wrap; gap: 14px; }
.panel { border: 1px solid #e1e4e8; border-radius: 4px; padding: 6px 8px; background: #fff; }
.panel .order { font-size: 12px; margin: 2px 0; }
.panel .missing, .note { font-size: 12px; color: #6e7781; margin: 2px 0; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 12px; margin: 6px 0 10px; }
.legend span { display: inline-flex; align-items: center; gap: 4px; }
svg { display: block; }
.swatch { width: 12px; height: 12px; display: inline-block; border-radius: 2px; }
"""


def _legend() -> str:
    def icon(inner: str) -> str:
        return f'<svg width="18" height="14" viewBox="0 0 18 14">{inner}</svg>'
    items = [
        (icon(f'<rect x="2" y="1" width="12" height="12" fill="{COLOR["A"]}" fill-opacity="0.25" '
              f'stroke="{COLOR["A"]}" stroke-width="2.5"/>'), "A: first instance of the counterexample"),
        (icon(f'<polygon points="8,1 15,7 8,13 1,7" fill="{COLOR["B"]}" fill-opacity="0.25" '
              f'stroke="{COLOR["B"]}" stroke-width="2.5"/>'), "B: second instance"),
        (icon(f'<rect x="2" y="1" width="12" height="12" fill="none" stroke="{COLOR["A"]}" stroke-width="2" '
              f'stroke-dasharray="3 2"/>'), "dashed: where it would be (not run in that program)"),
        (icon('<circle cx="8" cy="7" r="3" fill="#6b7b85"/><text x="12" y="6" font-size="7">3</text>'),
         "an instance of the slice; small number: its step in sequential order"),
        (icon('<line x1="1" y1="7" x2="16" y2="7" stroke="#a8b4b4"/>'), "thin path: sequential order"),
        (icon(f'<line x1="1" y1="7" x2="12" y2="7" stroke="{ORDER_COLOR}" stroke-width="2.5"/>'
              f'<path d="M11,3 L17,7 L11,11 z" fill="{ORDER_COLOR}"/>'), "green arrow: which of A, B runs first"),
        (icon(f'<line x1="1" y1="7" x2="17" y2="7" stroke="{UNORDERED_COLOR}" stroke-width="2.5" '
              f'stroke-dasharray="4 3"/>'), "dashed purple: unordered"),
        (icon(f'<rect x="1" y="1" width="7" height="12" fill="{COLOR["A"]}" fill-opacity="0.55"/>'
              f'<rect x="9" y="1" width="7" height="12" fill="{COLOR["B"]}" fill-opacity="0.55"/>'),
         "cell written by A / B (dashed outline: read)"),
        (icon('<rect x="2" y="1" width="13" height="12" fill="none" stroke="black" stroke-width="2.5"/>'),
         "the conflicting cell"),
        (icon('<rect x="2" y="1" width="13" height="12" fill="#fde2e2" stroke="#e08080"/>'
              '<line x1="2" y1="13" x2="15" y2="1" stroke="#e08080" stroke-width="2"/>'), "outside storage"),
    ]
    return '<div class="legend">' + "".join(f"<span>{i}{escape(t)}</span>" for i, t in items) + "</div>"


def _source(text: str, lines: dict) -> str:
    """The file with line numbers; the op's line, the involved statements and the kernel
    highlighted (long files: only the lines around those)."""
    src = text.splitlines()
    show = set(range(1, len(src) + 1))
    if len(src) > LONG_FILE and lines:
        show = {n for ln in lines for n in range(ln - CONTEXT_LINES, ln + CONTEXT_LINES + 1) if 1 <= n <= len(src)}
    out, last = [], 0
    tags = {"op": "  ◀ the refuted op", "stmt": "  ◀ involved statement", "kernel": ""}
    for n, line in enumerate(src, start=1):
        if n not in show:
            continue
        if n != last + 1:
            out.append('<span class="line"><span class="no">…</span></span>')
        last = n
        kind = lines.get(n)
        css = f"line {kind}-line" if kind else "line"
        tag = f'<span class="tag">{escape(tags[kind])}</span>' if kind and tags[kind] else ""
        out.append(f'<span class="{css}" data-line="{n}"><span class="no">{n}</span>{escape(line)}{tag}</span>')
    return '<pre class="code">' + "".join(out) + "</pre>"


_IN = {"after": "after the op", "before": "before the op", "kernel": "the kernel as written"}


def _facts(cex: dict) -> str:
    """The counterexample in words (sizes, instances, cells, threads)."""
    if not isinstance(cex, dict):
        return ""
    items = []
    if cex.get("params"):
        items.append("sizes: " + ", ".join(f"{k}={v}" for k, v in cex["params"].items()))
    insts = [i for i in cex.get("instances") or [] if isinstance(i, dict)]
    for label, inst in zip("AB", insts):
        text = fmt_instance(inst) if isinstance(inst.get("at"), dict) else ", ".join(
            f"{k}={v}" for k, v in inst.items() if k != "kernel")
        where = f" ({_IN.get(inst['kernel'], 'in kernel ' + str(inst['kernel']))})" if inst.get("kernel") else ""
        extra = "".join(f" {k} ({', '.join(f'{a}={b}' for a, b in inst[k].items()) or 'the only one'})"
                        for k in ("block", "thread") if isinstance(inst.get(k), dict))
        items.append(f'<b style="color:{COLOR[label]}">{label}</b> = {escape(text + where + extra)}')
    for cell in cex.get("cells") or []:
        if isinstance(cell, dict) and cell.get("index") is not None:
            items.append(f"cell: {escape(cell['tensor'])}[{', '.join(map(str, cell['index']))}]")
    order = cex.get("order")
    if isinstance(order, dict):
        items.append(escape(f"order before the op: {order.get('before')}; after the op: {order.get('after')}"))
    for key in ("term", "missing_in", "extra_in", "barrier", "phase", "limit", "profile"):
        if key in cex:
            items.append(escape(f"{key.replace('_', ' ')}: {cex[key]}"))
    if not any(isinstance(i.get("thread"), dict) for i in insts):
        for label, t in zip("AB", cex.get("threads") or []):
            flat = {**t.get("block", {}), **t.get("thread", {})} if "thread" in t or "block" in t else t
            where = ", ".join(f"{k}={v}" for k, v in flat.items() if isinstance(v, int)) or "the only thread"
            items.append(escape(f"thread of {label}: {where}") + (f" (reaches the barrier: {t['reaches']})"
                                                                  if "reaches" in t else ""))
    if cex.get("points"):
        items.append(escape(f"points: {cex['points']}"))
    return '<ul class="facts">' + "".join(f"<li>{i}</li>" for i in items) + "</ul>" if items else ""


def _figures(sc) -> str:
    parts = []
    for panel in sc.panels:
        body = "".join(view_svg(v, panel.first) for v in panel.views)
        for v in panel.views:
            body += "".join(f'<p class="missing">{lbl} of {escape(v.sid)} is {escape(why)}</p>'
                            for lbl, why in v.off.items())
        if panel.order:
            body += f'<p class="order"><b>order of A and B:</b> {escape(panel.order)}</p>'
        for lbl in panel.missing:
            body += f'<p class="missing">{lbl} is not an instance of this program</p>'
        if not panel.views:
            body += '<p class="missing">(nothing to draw here)</p>'
        parts.append(f'<div class="panel"><h4>{escape(panel.title)}</h4>{body}</div>')
    for grid in sc.grids:
        parts.append(f'<div class="panel"><h4>cells of {escape(grid.tensor)} at these sizes</h4>{grid_svg(grid)}</div>')
    parts += [f'<p class="note">{escape(n)}</p>' for n in sc.notes]
    return '<div class="figures">' + "".join(parts) + "</div>"


def _refutation(n: int, program, text: str, o: dict, kernel: str | None) -> str:
    head = f"[{o.get('op_index')}] {o.get('op')}" if o.get("op_index") else str(o.get("op"))
    lines, figures = {}, '<div class="figures"><p class="note">no instances to draw</p></div>'
    if program is not None:
        try:
            sc = scene(program, o, kernel)
            lines = sc.lines
            if sc.panels or sc.grids or sc.notes:
                figures = _figures(sc)
        except (DrawError, VschedError, NonAffine, isl.Error, KeyError, ValueError) as e:
            figures = f'<div class="figures"><p class="note">could not draw this counterexample: {escape(str(e))}</p></div>'
    drawn = "instance-a" in figures
    legend = _legend() if drawn else ""
    return (f'<article class="refutation" id="r{n}" data-kind="{escape(o.get("kind", ""))}">'
            f'<h3>{escape(head)} · <span class="verdict-illegal">{escape(o.get("kind", ""))} refuted</span>'
            f' <small>({escape(o.get("engine", ""))})</small></h3>'
            f'<p class="message">{escape(o.get("message", ""))}</p>{_facts(o.get("counterexample"))}{legend}'
            f'<div class="row"><div class="source">{_source(text, lines)}</div>{figures}</div></article>')


def _file(n0: int, path: str, text: str, merged: dict) -> tuple:
    from ..dsl import parse_text

    program, err = None, ""
    try:
        program = parse_text(text, path)
    except VschedError as e:
        err = f'<p class="note">cannot read the program: {escape(str(e))}</p>'
    verdict = merged.get("verdict", "unknown")
    obls = merged.get("obligations") or []
    hints = report_kernels(program, merged) if program is not None else [None] * len(obls)
    refuted = [(o, h) for o, h in zip(obls, hints) if o.get("status") == "refuted"]
    unknown = [o for o in obls if o.get("status") == "unknown"]
    parts = [f'<section class="file" data-file="{escape(path)}"><h2>{escape(path)}: '
             f'<span class="verdict-{escape(verdict)}">{escape(verdict)}</span></h2>', err]
    if merged.get("error"):
        parts.append(f'<p class="note">{escape(str(merged["error"]))}</p>')
    if not refuted:
        parts.append(f'<p class="note">{"every obligation is proved: nothing to draw" if verdict == "legal" else "nothing refuted"}</p>')
    for k, (o, hint) in enumerate(refuted):
        parts.append(_refutation(n0 + k, program, text, o, hint))
    if unknown:
        parts.append("<h3>not decided</h3><ul class=\"facts\">" + "".join(
            f"<li>[{o.get('op_index')}] {escape(str(o.get('op')))} · {escape(o.get('kind', ''))}: "
            f"{escape(o.get('message', ''))}</li>" for o in unknown) + "</ul>")
    parts.append("</section>")
    return "".join(parts), len(refuted), len(unknown)


def render_html(results) -> str:
    """One self-contained HTML page for [(path, program text, FileReport or its JSON)]."""
    sections, rows, n = [], [], 0
    for path, text, report in results:
        merged = report.to_json() if isinstance(report, FileReport) else report  # the verdict: FileReport's
        html, nref, nunk = _file(n, path, text, merged)
        n += nref
        sections.append(html)
        verdict = merged.get("verdict", "unknown")
        rows.append(f'<tr><td>{escape(path)}</td><td class="verdict-{escape(verdict)}">{escape(verdict)}</td>'
                    f"<td>{nref}</td><td>{nunk}</td></tr>")
    table = ('<table class="summary"><tr><th>file</th><th>verdict</th><th>refuted</th><th>unknown</th></tr>'
             + "".join(rows) + "</table>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width\"><title>vsched: counterexamples</title>"
            f"<style>{CSS}</style></head><body><h1>vsched: counterexamples you can look at</h1>"
            "<p class=\"note\">Each refuted obligation: the source (the refuted op highlighted) next to the "
            "involved statements' iteration spaces at the counterexample's sizes (2-D slices; the other loops "
            "fixed at the instance's values), before and after the op, and the cells they touch. "
            "Steps number the sequential order in which the C backend runs the loops; loops typed "
            "vectorized, block or thread are unordered (their axis label says so).</p>"
            f"{table}{''.join(sections)}</body></html>\n")


__all__ = ["render_html"]
