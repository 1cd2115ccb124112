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
    if not c:
        return []
    lines = []
    if c.get("params"):
        lines.append("sizes: " + ", ".join(f"{k}={v}" for k, v in c["params"].items()))
    insts = c.get("instances") or []
    order = c.get("order")
    for n, inst in enumerate(insts):
        who = ("first " if n == 0 else "second ") if len(insts) == 2 else ""
        if "at" in inst:
            lines.append(f"{who}instance ({inst.get('kernel', '')}): {fmt_instance(inst)}")
        else:
            lines.append(f"{who}instance: {inst}")
    if order:
        lines.append(f"order before the op: {order['before']}; after the op: {order['after']}")
    if c.get("observed_by"):
        lines.append(f"read that sees the other store: {fmt_instance(c['observed_by'])}")
    for cell in c.get("cells") or []:
        if cell.get("index") is not None:
            lines.append(f"cell: {cell['tensor']}[{', '.join(map(str, cell['index']))}]")
    for t in c.get("threads") or []:
        where = ", ".join(f"{k}={v}" for k, v in {**t.get("block", {}), **t.get("thread", {})}.items())
        extra = "" if "reaches" not in t else (" reaches the barrier" if t["reaches"] else " does not reach it")
        lines.append(f"thread: ({where or 'the only thread'}){extra}")
    if "phase" in c:
        lines.append(f"barrier phase: {c['phase']}")
    if c.get("barrier"):
        lines.append(f"barrier: {c['barrier']}")
    if c.get("profile"):
        lines.append(f"active profile: {c['profile']} (any sizes)")
    for key in ("term", "missing_in", "extra_in"):
        if key in c:
            lines.append(f"{key.replace('_', ' ')}: {c[key]}")
    if c.get("inputs"):  # replay: vsched run --inputs special --seed S
        lines.append(f"inputs: {c['inputs']} (vsched run --inputs {c['inputs']} --seed {c.get('seed', 0)})")
    for v in c.get("values") or []:  # replay: vsched run --set 'x[i]=V'
        lines.append(f"input: {v['tensor']}[{', '.join(map(str, v['index']))}] = {v['value']} (bits {v['bits']})")
    if not lines:
        lines.append(str(c))
    return lines
