"""Counterexamples as text: an instance (`fmt_instance`, also in the engines' messages) and
the lines a refuted obligation's counterexample adds to `vsched verify`'s text report."""
from __future__ import annotations


def fmt_instance(inst: dict) -> str:
    at = ", ".join(f"{k}={v}" for k, v in inst["at"].items())
    orig = ", ".join(f"{k}={v}" for k, v in inst.get("original", {}).items())
    w = inst.get("writes")
    wtext = f" writing {w['tensor']}[{', '.join(map(str, w['index']))}]" if w and w.get("index") is not None else ""
    o = f" (original {orig})" if orig and orig != at else ""
    return f"{inst['stmt']} at ({at}){o}{wtext}"


def cex_lines(o) -> list:
    """The lines of an obligation's counterexample in the text report (none without one)."""
    c = o.counterexample
    if c is None or not c.to_json():
        return []
    lines = []
    if c.instance.sizes:
        lines.append("sizes: " + ", ".join(f"{k}={v}" for k, v in c.instance.sizes.items()))
    insts = c.instances or []
    for n, inst in enumerate(insts):
        who = ("first " if n == 0 else "second ") if len(insts) == 2 else ""
        if "at" in inst:
            lines.append(f"{who}instance ({inst.get('kernel', '')}): {fmt_instance(inst)}")
        else:
            lines.append(f"{who}instance: {inst}")
    if c.order:
        lines.append(f"order before the op: {c.order['before']}; after the op: {c.order['after']}")
    if c.observed_by:
        lines.append(f"read that sees the other store: {fmt_instance(c.observed_by)}")
    for cell in c.cells or ():
        if cell.index is not None:
            lines.append(f"cell: {cell}")
    for t in c.threads or ():
        where = ", ".join(f"{k}={v}" for k, v in t.coordinates.items())
        extra = "" if t.reaches is None else (" reaches the barrier" if t.reaches else " does not reach it")
        lines.append(f"thread: ({where or 'the only thread'}){extra}")
    if "phase" in c.extra:
        lines.append(f"barrier phase: {c.extra['phase']}")
    if c.barrier:
        lines.append(f"barrier: {c.barrier}")
    if c.profile:
        lines.append(f"active profile: {c.profile} (any sizes)")
    for key in ("term", "missing_in", "extra_in"):
        if key in c.extra:
            lines.append(f"{key.replace('_', ' ')}: {c.extra[key]}")
    if c.instance.inputs:  # replay: vsched run --inputs special --seed S
        lines.append(f"inputs: {c.instance.inputs} (vsched run --inputs {c.instance.inputs} "
                     f"--seed {c.instance.seed or 0})")
    for v in c.instance.values or []:  # replay: vsched run --set 'x[i]=V'
        lines.append(f"input: {v['tensor']}[{', '.join(map(str, v['index']))}] = {v['value']} (bits {v['bits']})")
    if not lines:
        lines.append(str(c.to_json()))
    return lines
