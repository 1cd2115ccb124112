"""Concrete sizes: evaluation of index expressions and conditions, checks against a program's
constraints, storage shapes, `--size` parsing, and small example size sets for tests.

Integer semantics are mathematical: floor(a / c) rounds toward minus infinity and a % c lies
in [0, c), as in Python (C truncates; the C backend compensates).
"""
from __future__ import annotations

import itertools
import numbers
import random
import re

from verified_sched.core.int_eval import Loader, eval_cond, eval_int
from ..core import ir
from ..core.errors import UsageError

# The one evaluator of integer expressions lives in codegen (which may not import us).
__all__ = ["Loader", "eval_int", "eval_cond", "check_sizes", "tensor_shape", "parse_size_arg",
           "example_sizes"]


def check_sizes(program: ir.Program, sizes: dict, ranges: bool = True) -> None:
    """UsageError unless `sizes` gives every parameter (and nothing else) an int satisfying
    every constraint, and every tensor a non-negative storage shape; with `ranges`, also every
    kernel's index arithmetic within int64 and every global tensor under 2^63 bytes
    (int_range.check_concrete)."""
    from ..core.printer import cond_text

    for p in program.params:
        if p not in sizes:
            raise UsageError(f"missing size for parameter '{p}' (parameters: {', '.join(program.params)})")
    for name, value in sizes.items():
        if name not in program.params:
            raise UsageError(f"'{name}' is not a parameter of this program "
                             f"(parameters: {', '.join(program.params) or 'none'})")
        if not isinstance(value, numbers.Integral) or isinstance(value, bool):
            raise UsageError(f"size {name}={value!r} is not an integer")
    for c in program.constraints:
        if not eval_cond(c, sizes):
            given = ", ".join(f"{p}={sizes[p]}" for p in program.params)
            raise UsageError(f"sizes {given} violate the constraint {cond_text(c)}")
    for t in program.tensors:
        shape = tensor_shape(program, t.name, sizes)
        if any(d < 0 for d in shape):
            raise UsageError(f"tensor '{t.name}' gets the negative shape {shape}")
    if ranges:
        from .int_range import check_concrete

        check_concrete(program, sizes)


def tensor_shape(program: ir.Program, tensor_name: str, sizes: dict) -> tuple:
    """The storage shape (dims plus trailing padding) of a tensor at concrete sizes."""
    try:
        t = program.tensor(tensor_name)
    except KeyError:
        raise UsageError(f"unknown tensor '{tensor_name}'") from None
    return tuple(eval_int(d, sizes) for d in t.storage_dims())


def parse_size_arg(text: str) -> dict:
    """`"N=37,M=20"` -> {"N": 37, "M": 20}; UsageError on anything else."""
    out: dict = {}
    for part in text.split(","):
        m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([+-]?\d+)\s*", part)
        if m is None:
            raise UsageError(f"bad size {part.strip()!r} in {text!r}: expected NAME=INT[,NAME=INT...]")
        if m.group(1) in out:
            raise UsageError(f"size '{m.group(1)}' given twice in {text!r}")
        out[m.group(1)] = int(m.group(2))
    return out


# ---------------------------------------------------------------- example sizes


def _satisfies(program: ir.Program, sizes: dict) -> bool:
    try:
        check_sizes(program, sizes, ranges=False)  # small sizes: index arithmetic fits
    except UsageError:
        return False
    return True


def _bounds(program: ir.Program) -> tuple[dict, dict, dict]:
    """Lower/upper bounds from `P op INT` constraints and parameters fixed by `P == expr`."""
    lo = {p: 1 for p in program.params}
    hi: dict = {}
    defined: dict = {}
    flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
    for c in program.constraints:
        if not isinstance(c, ir.Cmp):
            continue
        op, a, b = c.op, c.a, c.b
        if isinstance(b, ir.Var) and not isinstance(a, ir.Var):
            op, a, b = flip[op], b, a
        if not (isinstance(a, ir.Var) and a.name in lo):
            continue
        p = a.name
        if isinstance(b, ir.Int):
            v = b.value
            match op:
                case ">=":
                    lo[p] = v
                case ">":
                    lo[p] = v + 1
                case "<=":
                    hi[p] = v
                case "<":
                    hi[p] = v - 1
                case "==":
                    lo[p] = hi[p] = v
        elif op == "==" and p not in defined:
            used = ir.free_vars(b)
            # no cycles: P := e only if e avoids P and defined params, and no definition uses P
            if not (used & (set(defined) | {p})) and not any(p in ir.free_vars(e) for e in defined.values()):
                defined[p] = b
    return lo, hi, defined


def example_sizes(program: ir.Program, count: int = 3, seed: int = 0) -> list[dict]:
    """Up to `count` distinct small size sets satisfying the constraints: the minimal one
    (extents of 1 where allowed) first, then odd values, then seeded random ones (values stay
    near 12 or below so interpreters stay fast). UsageError if none can be found."""
    lo, hi, defined = _bounds(program)
    free = [p for p in program.params if p not in defined]
    scale = _scales(program)
    cap = {p: max(min(hi.get(p, 12), max(lo[p] + 11, 12), lo[p] + max(1, 12 // scale[p])), lo[p])
           for p in free}
    rng = random.Random(seed)

    def complete(choice: dict):
        sizes = dict(choice)
        for _ in range(len(defined)):
            for p, e in defined.items():
                try:
                    sizes[p] = eval_int(e, sizes)
                except UsageError:
                    continue
        if any(p not in sizes for p in program.params):
            return None
        sizes = {p: sizes[p] for p in program.params}
        return sizes if _satisfies(program, sizes) else None

    def odd(p: int, k: int) -> int:
        v = lo[p] + 2 + 2 * k
        v += (v % 2 == 0)
        return v if v <= cap[p] else (cap[p] if cap[p] % 2 else max(cap[p] - 1, lo[p]))

    targets = [{p: lo[p] for p in free}]
    targets.append({p: odd(p, i % 3) for i, p in enumerate(free)})
    for _ in range(4 * count + 8):
        targets.append({p: rng.randint(lo[p], cap[p]) for p in free})
    found: list[dict] = []
    for target in targets:
        sizes = complete(target) or _search(free, lo, cap, target, complete)
        if sizes is not None and sizes not in found:
            found.append(sizes)
        if len(found) >= count:
            break
    if not found:
        raise UsageError("could not find small sizes that satisfy the constraints")
    return found


def _scales(program: ir.Program) -> dict:
    """The largest constant each parameter is multiplied by in a tensor dim or loop bound
    (`16 * TN`), so example sizes keep extents, not just parameters, small."""
    scale = {p: 1 for p in program.params}
    for node in ir.walk(tuple(program.tensors) + tuple(program.kernels)):
        if isinstance(node, ir.BinOp) and node.op == "*":
            for c, v in ((node.a, node.b), (node.b, node.a)):
                if isinstance(c, ir.Int) and isinstance(v, ir.Var) and v.name in scale:
                    scale[v.name] = max(scale[v.name], abs(c.value))
    return scale


def _search(free, lo, cap, target, complete, budget: int = 4000):
    """Nearest satisfying assignment around `target` within the small box (bounded effort)."""
    axes = [sorted(range(lo[p], cap[p] + 1), key=lambda v, t=target[p]: (abs(v - t), v)) for p in free]
    for combo in itertools.islice(itertools.product(*axes), budget):
        sizes = complete(dict(zip(free, combo)))
        if sizes is not None:
            return sizes
    return None
