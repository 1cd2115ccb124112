"""Issue 9 item 11 for split: every refutation of every tail strategy replays.

Kernels: 1-D elementwise, 2-D elementwise (split of the inner and of the outer loop), a row
sum split on its row loop and on its reduction loop; each tail x unpadded/padded x factor 3
and 4, sizes N >= 1 (so the last tile is partial). One file per (kernel kind, padding,
factor) holds a copy of the kernel per tail and is verified once; every refuted obligation
(a failed precondition without sizes, the op not applying, aside) must make `vsched run`
at its sizes exit 1 with DIFFERENT or FAILED on the checked C build, else the interpreter
(random parallel order). A family with no refutation at all is fine only where every tail is
expected legal (padding absorbs every extra lane).

Regression: tail=predicate_stores was refuted `in_bounds` for loads of masked lanes that its
guarded leaf never evaluates, so the replay said ok (`test_predicate_stores_is_predicate`).
"""
from __future__ import annotations

import contextlib
import functools
import io

import pytest

from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program

TAILS = ("guard", "round_up", "shift_inward", "predicate", "predicate_loads", "predicate_stores",
         "shift_inward_and_blend", "round_up_and_blend")

# kind: (head with {pin}/{pout} padding, body, the loop split)
KINDS = {
    "ew1": ("params N where N >= 1\ntensor x[N] f32{pin}\ntensor y[N] f32{pout}\n",
            "  for i in 0 .. N {\n    y[i] = 2.0 * x[i] + 1.0\n  }\n", "i"),
    "ew2_inner": ("params N, M where N >= 1, M >= 1\ntensor x[M, N] f32{pin2}\ntensor y[M, N] f32{pout2}\n",
                  "  for j in 0 .. M {\n    for i in 0 .. N {\n      y[j, i] = x[j, i] - 0.5\n    }\n  }\n", "i"),
    "ew2_outer": ("params N, M where N >= 1, M >= 1\ntensor x[N, M] f32{pin}\ntensor y[N, M] f32{pout}\n",
                  "  for i in 0 .. N {\n    for j in 0 .. M {\n      y[i, j] = 3.0 * x[i, j]\n    }\n  }\n", "i"),
    "rowsum_rows": ("params N, K where N >= 1, K >= 1\ntensor x[N, K] f32{pin}\ntensor s[N] f32{pout}\n",
                    "  zero s\n  for i in 0 .. N {\n    for k in 0 .. K {\n      s[i] += x[i, k]\n    }\n  }\n",
                    "i"),
    "rowsum_red": ("params N, K where N >= 1, K >= 1\ntensor x[K, N] f32{pin2}\ntensor s[K] f32{pout}\n",
                   "  zero s\n  for k in 0 .. K {\n    for i in 0 .. N {\n      s[k] += x[k, i]\n    }\n  }\n",
                   "i"),
}
FAMILIES = [(kind, pad, f) for kind in KINDS for pad in (False, True) for f in (3, 4)]


def family_text(kind: str, padded: bool, factor: int) -> str:
    head, body, loop = KINDS[kind]
    p = factor - 1
    fill = {"pin": f" pad({p})" if padded else "", "pout": f" pad({p})" if padded else "",
            "pin2": f" pad(0, {p})" if padded else "", "pout2": f" pad(0, {p})" if padded else ""}
    if kind.startswith("ew2_outer") or kind == "rowsum_rows":
        fill["pin"] = f" pad({p}, 0)" if padded else ""
        if kind == "ew2_outer":
            fill["pout"] = f" pad({p}, 0)" if padded else ""
    parts = [head.format(**fill)]
    for tail in TAILS:
        parts.append(f"kernel k_{tail} {{\n{body}}}\n"
                     f"schedule k_{tail} {{\n  split {loop} by {factor} -> io, ii tail={tail}\n}}\n")
    return "\n".join(parts)


@functools.lru_cache(maxsize=None)
def family(kind: str, padded: bool, factor: int):
    text = family_text(kind, padded, factor)
    return text, {r.kernel: r for r in verify_program(parse_text(text), timeout=60.0)}


def _run(args: list) -> tuple:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue() + err.getvalue()


def replays(path, kernel: str, params: dict) -> tuple:
    base = ["run", str(path), "--kernel", kernel]
    if params:
        base += ["--size", ",".join(f"{k}={v}" for k, v in params.items())]
    tried = []
    for target in (["--target", "c"], ["--target", "interp", "--seed", "0"], ["--target", "interp", "--seed", "1"]):
        code, text = _run(base + target)
        if code == 1 and ("DIFFERENT" in text or "FAILED" in text):
            return True, text
        tried.append((target, code, text.splitlines()[:3]))
    return False, tried


@pytest.mark.parametrize("kind, padded, factor", FAMILIES,
                         ids=[f"{k}-{'pad' if p else 'nopad'}-F{f}" for k, p, f in FAMILIES])
def test_every_tail_refutation_replays(tmp_path, kind, padded, factor):
    text, reports = family(kind, padded, factor)
    path = tmp_path / f"{kind}.vs"
    path.write_text(text)
    checked = 0
    for tail in TAILS:
        rep = reports[f"k_{tail}"]
        for o in rep.obligations:
            if o.status != "refuted":
                continue
            cex = o.counterexample.to_json() if o.counterexample is not None else {}
            if o.kind == "precondition" and not cex.get("params"):
                continue  # the op does not apply: nothing to run
            ok, why = replays(path, f"k_{tail}", cex["params"])
            assert ok, f"k_{tail} {o.kind} at {cex['params']} does not replay: {o.message}\n{why}"
            checked += 1
    if not padded:
        assert checked > 0  # round_up at least leaves storage without padding


@pytest.mark.parametrize("kind", ["ew1", "ew2_inner", "rowsum_red"])
def test_predicate_stores_is_predicate(kind):
    """Unpadded, predicate_stores verifies exactly as predicate (legal), because neither
    evaluates anything on a lane past the end; guard likewise."""
    _, reports = family(kind, False, 4)
    for tail in ("guard", "predicate", "predicate_stores"):
        assert reports[f"k_{tail}"].verdict == "legal", \
            [(o.kind, o.message) for o in reports[f"k_{tail}"].obligations if o.status != "proved"]
