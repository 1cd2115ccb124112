"""Names and affine bound helpers shared by the fuzz strategies."""
from __future__ import annotations

from ..core import ir

SAFE_FUNCS = ("min", "max", "fma", "neg", "relu", "abs")
PARAM_NAMES = ("N", "M", "K")
LOOP_NAMES = ("i", "j", "k", "l", "m", "n")
TENSOR_NAMES = ("x", "y", "z")
FLOATS = (0.5, 2.0, -1.5, 3.0, 0.25)
# kernel families of fuzz.families (here so the CLI can list them without importing hypothesis)
SHAPES = ("random", "matmul", "reduction", "stencil", "epilogue", "tiled", "gpu", "conv")


# ---------------------------------------------------------------- affine bounds

def aff_add(*forms) -> dict:
    out: dict = {}
    for f in forms:
        for k, v in f.items():
            out[k] = out.get(k, 0) + v
    return out


def aff_max(f: dict, g: dict) -> dict:
    """Coefficient-wise max: an upper bound of both for non-negative parameters."""
    return {k: max(f.get(k, 0), g.get(k, 0)) for k in set(f) | set(g)}


def aff_expr(f: dict, order=PARAM_NAMES) -> ir.Expr:
    """An affine form {param: coef, 1: const} as an expression (`2 * N + M - 1`)."""
    terms = []
    for p in [p for p in order if f.get(p)] + sorted(p for p in f if p != 1 and p not in order and f[p]):
        c = f[p]
        terms.append((c, ir.Var(p) if abs(c) == 1 else ir.BinOp("*", ir.Int(abs(c)), ir.Var(p))))
    const = f.get(1, 0)
    if not terms:
        return ir.Int(const)
    sign, e = terms[0]
    e = ir.Call("neg", (e,)) if sign < 0 else e
    for c, t in terms[1:]:
        e = ir.BinOp("+" if c > 0 else "-", e, t)
    if const:
        e = ir.BinOp("+" if const > 0 else "-", e, ir.Int(abs(const)))
    return e
