"""Two symbolic cell values (polyhedral/valueexpr.py) decided by z3 over the IEEE-754 theory (smt/fp.py).

Used by the claim comparison where the value trees are not identical: `decide(x, y, dom)`
encodes both (leaves as z3 constants of their tensor's storage precision: two leaves are one
constant when they read the same tensor through equal cell maps on `dom`; iterator values as
Ints; constants, operators, casts and stores rounded as the interpreter computes them) and asks
z3 whether SMT-LIB `=` can fail. Under a finite-input profile every leaf is finite at its
declared precision (intermediates are not assumed finite). A model gives the input values of
the counterexample (`Witness.values`: tensor, cell map, value). Reductions and in-place
recurrences are not encoded: `NoFp` (the caller stays unknown).
"""
from __future__ import annotations

import islpy as isl
import z3

from smt import fp
from polyhedral.describe import coords
from polyhedral.isltools import point_of
from polyhedral.valueexpr import At, Const, Iter, Leaf, Op, Pw, Red, Ref


class Encoding:
    """The z3 terms of value nodes over one context set `dom`."""

    def __init__(self, model, dom: isl.Set, compute: str):
        self.model, self.dom, self.compute = model, dom, compute
        self.leaves = []  # (tensor, map on dom, z3 const, prec)
        self.iters = []  # (map on dom, z3 Int)

    def leaf(self, n: Leaf):
        m = n.map.intersect_domain(self.dom)
        for t, mm, v, _ in self.leaves:
            if t == n.tensor and mm.is_equal(m):
                return v
        prec = self.model.program.tensor(n.tensor).prec
        v = z3.Const(f"{n.tensor}#{len(self.leaves)}", fp.sort(prec))
        self.leaves.append((n.tensor, m, v, prec))
        return v

    def iter(self, n: Iter):
        m = n.map.intersect_domain(self.dom)
        for mm, v in self.iters:
            if mm.is_equal(m):
                return v
        v = z3.Int(f"iter#{len(self.iters)}")
        self.iters.append((m, v))
        return v

    def term(self, n, prec: str, side=None):
        """n's value in compute type `prec` (`side`: the kernel model whose statements n's
        stores are; the first by default)."""
        side = side or self.model
        if isinstance(n, At):
            st = side.stmt(n.stmt)
            p = side.program.tensor(st.accesses[0].tensor).prec
            c = fp.COMPUTE[p]
            return fp.convert(fp.round_to(self.term(n.body, c, side), c, p), c, prec)
        if isinstance(n, Const):
            return fp.const(n.value, prec)
        if isinstance(n, Leaf):
            p = self.model.program.tensor(n.tensor).prec
            return fp.convert(self.leaf(n), p, prec)
        if isinstance(n, Iter):
            return fp.convert(self.iter(n), "index", prec)
        if isinstance(n, Op):
            if n.name.startswith("cast "):
                p = n.name[len("cast "):]
                c = fp.COMPUTE[p]
                return fp.convert(fp.cast(p, self.term(n.args[0], c, side)), c, prec)
            return fp.operation(n.name, prec, [self.term(a, prec, side) for a in n.args])
        what = {Red: "a reduction", Ref: "an in-place recurrence", Pw: "a case split"}.get(type(n), type(n).__name__)
        raise fp.NoFp(f"{what} is not encoded for z3")

    def facts(self, finite: bool) -> list:
        return [fp.finite(v) for _, _, v, _ in self.leaves] if finite else []


class Witness:
    """A z3 model's input values: [(tensor, cell map on dom, value)]."""

    def __init__(self, enc: Encoding, model):
        self.values = [(t, m, fp.value_of(model, v, p), p) for t, m, v, p in enc.leaves]
        self.iters = [(m, model.eval(v, model_completion=True).as_long()) for m, v in enc.iters]

    def text(self) -> str:
        return ", ".join(f"{t}={v!r}" for t, _, v, _ in self.values)


def decide(models, x, y, dom: isl.Set, compute: str, finite: bool, timeout: float):
    """("proved" | "refuted" | "unknown", Witness or reason) for x = y bitwise on dom; `models`:
    the two kernels' models (x's stores are the first's, y's the second's)."""
    enc = Encoding(models[0], dom, compute)
    try:
        a, b = enc.term(x, compute, models[0]), enc.term(y, compute, models[1])
    except fp.NoFp as exc:
        return "unknown", str(exc)
    facts = enc.facts(finite)
    # an iterator's value ranges over the context's points; its Int is unconstrained here, so
    # a model with iterators may name a value no cell has: the run that confirms decides
    status, res = fp.equal(a, b, facts, timeout)
    if status == "refuted":
        return status, Witness(enc, res)
    return status, res


def witness_inputs(w, pt) -> list:
    """The counterexample's input values at the sampled cell: [{tensor, index, value, bits}]
    (`vsched run --set` replays them; the other cells keep their random values)."""
    at = isl.Set.from_point(pt)
    values, seen = [], set()
    for t, m, v, prec in w.values:
        cell_pt = point_of(m.intersect_domain(at).range())
        if cell_pt is None:
            continue
        index = [int(x) for x in coords(cell_pt)[1][0][1]]
        if (t, tuple(index)) in seen:
            continue
        seen.add((t, tuple(index)))
        values.append({"tensor": t, "index": index, "value": repr(float(v)) if prec != "i32" else int(v),
                       "bits": fp.bits_text(v, prec)})
    return values
