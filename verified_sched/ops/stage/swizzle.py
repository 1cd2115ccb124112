"""The z3 goals of `stage` (Z3Implies queries): the XOR swizzle is a bijection of each tile row
(bit-vectors, over the actual tile shape), and pipeline=2's buffer rotation reads the copy the
unpipelined form reads (integers, the loop counter mod 2).

The swizzle reaches the IR written bit by bit with floor/mod (the IR has no XOR); the
bijection obligation proves that this rendering equals the bit-vector XOR and permutes the row.
"""
from __future__ import annotations

import z3

from smt.intexpr import NoTerm, term

from ...core import budget, ir
from ...core.counterexample import Cell, Counterexample, Instance
from ...core.ir import BinOp, FloorDiv, Int, Mod, Var
from ...core.obligations import Decided, Z3Implies

WIDTH = 32
BIJECTION = ("forall row in [0, R), col, col2 in [0, C): the rendered swizzle f(row, col) equals the XOR spec, "
             "lies in [0, C), and f(row, col) = f(row, col2) implies col = col2")
ROTATION = ("forall H >= 1, k in [0, H): the buffer iteration k reads is the one its data was written to "
            "(the prologue for k = 0, the prefetch of iteration k - 1 otherwise), and the prefetch of "
            "iteration k writes the other buffer")


class Untranslatable(Exception):
    pass


def to_bv(e, env: dict):
    """An index expression as a 32-bit vector (floor/mod of non-negative values only)."""
    match e:
        case Int(value=v):
            return z3.BitVecVal(v, WIDTH)
        case Var(name=n) if n in env:
            return env[n]
        case BinOp(op="+", a=a, b=b):
            return to_bv(a, env) + to_bv(b, env)
        case BinOp(op="-", a=a, b=b):
            return to_bv(a, env) - to_bv(b, env)
        case BinOp(op="*", a=a, b=b):
            return to_bv(a, env) * to_bv(b, env)
        case FloorDiv(a=a, divisor=d):
            return z3.UDiv(to_bv(a, env), z3.BitVecVal(d, WIDTH))
        case Mod(a=a, divisor=d):
            return z3.URem(to_bv(a, env), z3.BitVecVal(d, WIDTH))
    raise Untranslatable(f"cannot translate {e!r}")


def to_int(e, env: dict):
    """An integer index expression over the names in `env` as a z3 integer term."""
    if not ir.free_vars(e) <= set(env):
        raise Untranslatable(f"cannot translate {e!r}: free names {sorted(ir.free_vars(e) - set(env))}")
    try:
        return term(e, dict(env))
    except NoTerm as exc:
        raise Untranslatable(str(exc)) from None


def bijection(f, rows: int, minor: int, unit: int, tile: str, timeout: float = budget.DEFAULT_TIMEOUT) -> Z3Implies:
    """The goal's query: `f` (the rendered swizzle, an IR index expression over Var("row") and
    Var("col")) is the XOR swizzle of a rows x minor tile on `unit`-element units, stays in the
    row and is one-to-one on it. Facts: row, col, col2 in the tile; goal: no violation, i.e.
    f(row, col) equals the bit-vector XOR spec, lies in [0, minor), and col != col2 implies
    f(row, col) != f(row, col2).
    A model is refuted with the colliding (or escaping, or wrong) cells of `tile`."""
    names = ("row", "col", "col2")

    def query():
        row, col, col2 = (z3.BitVec(n, WIDTH) for n in names)
        f1 = to_bv(f, {"row": row, "col": col})
        f2 = to_bv(f, {"row": row, "col": col2})
        units = minor // unit
        u = z3.UDiv(col, z3.BitVecVal(unit, WIDTH))
        spec = (u ^ (row & z3.BitVecVal(units - 1, WIDTH))) * unit + z3.URem(col, z3.BitVecVal(unit, WIDTH))
        facts = [z3.ULT(row, rows), z3.ULT(col, minor), z3.ULT(col2, minor)]
        # wrong (not the XOR), escaping the row, or colliding: no such row and columns exist
        violation = z3.Or(f1 != spec, z3.Not(z3.ULT(f1, minor)), z3.And(col != col2, f1 == f2))
        return facts, z3.Not(violation)

    def image(r: int, c: int) -> int:
        # the rendering evaluated in bit-vector arithmetic, as z3 decided it (wrapping included)
        e = to_bv(f, {"row": z3.BitVecVal(r, WIDTH), "col": z3.BitVecVal(c, WIDTH)})
        return z3.simplify(e).as_long()

    def witness(model: dict) -> Decided:
        vals = {n: int(model.get(n, 0)) for n in names}
        a, b = image(vals["row"], vals["col"]), image(vals["row"], vals["col2"])
        if a >= minor:
            msg = f"row {vals['row']}: column {vals['col']} maps to {a}, outside the row of {minor}"
        elif vals["col"] != vals["col2"] and a == b:
            msg = f"row {vals['row']}: columns {vals['col']} and {vals['col2']} both map to {a}"
        else:
            msg = f"row {vals['row']}: column {vals['col']} maps to {a}, not the XOR swizzle"
        cex = Counterexample(Instance({}), cells=tuple(Cell(tile, [vals["row"], c]) for c in (vals["col"], vals["col2"])),
                             extra={"images": [a, b]})
        return Decided("refuted", msg, counterexample=cex, engine="z3")

    return Z3Implies(query, witness, f"the {rows}x{minor} tile's swizzle is the XOR and a bijection of every row",
                     timeout)


def rotation(r, w, p, kname: str, timeout: float = budget.DEFAULT_TIMEOUT) -> Z3Implies:
    """The goal's query: with the anchor counter `kname` >= 0, the buffer index r(k) read by
    iteration k equals the prologue's p when k = 0 and the prefetch w(k - 1) of iteration k - 1
    when k >= 1, and w(k) != r(k). r, w, p are IR index expressions; one without an integer
    term leaves the goal unknown."""
    def query():
        k = z3.Int(kname)
        try:
            R, W, P = to_int(r, {kname: k}), to_int(w, {kname: k}), to_int(p, {})
            Wprev = to_int(ir.substitute(w, {kname: BinOp("-", Var(kname), Int(1))}), {kname: k})
        except Untranslatable as e:
            return Decided("unknown", str(e), engine="z3")
        # the first iteration reads what the prologue did not write, a later one what the previous
        # prefetch did not write, or the prefetch overwrites the copy being read: none happens
        violation = z3.Or(z3.And(k == 0, P != R), z3.And(k >= 1, Wprev != R), W == R)
        return [k >= 0], z3.Not(violation)

    def witness(model: dict) -> Decided:
        kv = int(model.get(kname, 0))
        return Decided("refuted", f"iteration {kname}={kv} reads a buffer its data was not written to",
                       counterexample=Counterexample(Instance({}), [{"stmt": "read", "at": {kname: kv}}]),
                       engine="z3")

    return Z3Implies(query, witness, f"iteration {kname} reads buffer {kname} mod 2, filled one phase earlier; "
                                     f"the prefetch fills the other", timeout)
