"""The builder of the polyhedral model (polyhedral/model.py): one walk over a kernel's body
making its statements, in program order.

`Stmt` is one statement of the model: an assignment, a whole-tensor `zero` (a statement over
the tensor's storage cells, `Loop.synthetic`), or a barrier occurrence (a pseudo statement
without accesses, in `barrier_stmts`). It carries its enclosing loops (`Loop`), guards (else
branches negated), schedule positions `sched = [P0, loop1, P1, ..., loopd, Pd]`, accesses
(`Access`; reads with the context they are evaluated in, lazy.py) and provenance (the
original instance it stands for: `O_<sid>[...]`, or `Z_<T>[cell]` for a constant-zero store).

The walk is hand-rolled, not `ir.walk_scoped`: schedule positions are not paths (they restart
at each loop, number If branches 0/1), and a TensorCore's fallback is walked under the guard
`lane == 0` when the lane loop encloses it. `KernelModel` builds its isl relations from the
statements; this module knows nothing of isl.
"""
from __future__ import annotations

import math

import re
from dataclasses import dataclass

from verified_sched.core import ir
from verified_sched.core.ir import Assign, Float, For, If, Int, Load, TensorCore, Var, Zero
from .affine import conjuncts, is_data_cond, negate
from .lazy import blend_of, reads_in_context, where_path

HW_AXES = ir.HW_AXES


@dataclass
class Loop:
    var: str
    lo: object
    hi: object
    axis: str
    key: tuple  # position path of the loop: identifies one loop occurrence
    synthetic: bool = False  # the cell loops of a whole-tensor zero


@dataclass
class Access:
    tensor: str
    index: tuple
    write: bool
    accumulator: bool = False  # the self-read/write of an accumulation
    noop: bool = False  # the store of `t[I] = t[I]`: writes back what it read, changes nothing
    # a read inside an enclosing condition is evaluated under the conditions OUTSIDE it (and the
    # conjuncts left of it: `&&` short-circuits), not under the statement's full guard chain;
    # a read inside `where(c, a, b)` under the statement's guards and c (in a) or not c (in b).
    # None: evaluated exactly where the statement runs.
    context: tuple | None = None


@dataclass
class Stmt:
    name: str  # isl tuple name (unique in the model)
    sid: str  # original statement identity
    node: object  # the IR Assign or Zero
    loops: list
    sched: list  # [P0, loop1, P1, ..., loopd, Pd]; P are tuples of ints
    guards: list  # enclosing conditions (else-branches negated), outermost first
    top: int
    orig_tuple: str
    orig_names: tuple
    orig_exprs: tuple
    acc_op: str | None
    accesses: list
    zero_like: bool
    barrier_before: int = 0  # barriers preceding in program text (for later race analysis)
    # `t[I] = where(c, v, t[I])` with affine c: a blend; where c fails the store writes back the
    # value it read (a no-op), so the instance is effective (stores, stands for its original)
    # only under c. Its accesses all count for in_bounds, independence and race.
    blend: object = None

    @property
    def depth(self) -> int:
        return len(self.loops)

    def dims(self, prefix="i") -> list:
        return [f"{prefix}{d}" for d in range(self.depth)]

    def names(self, params: dict, prefix="i") -> dict:
        out = dict(params)
        out.update({lp.var: f"{prefix}{d}" for d, lp in enumerate(self.loops)})
        return out

    def data_guards(self, params: dict) -> list:
        names = self.names(params)
        return [c for g in self.guards for c in conjuncts(g) if is_data_cond(c, names)]

    def hw(self) -> dict:
        """hardware axis -> depth of the innermost loop bound to it."""
        return {lp.axis: d for d, lp in enumerate(self.loops) if lp.axis in HW_AXES}


def safe_name(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", s)


def original_sid(sid: str) -> str:
    """Copies of a statement (partition, materialized unroll) are `S0#k`: one original."""
    return sid.split("#", 1)[0]


def is_zero_const(e) -> bool:
    """The constant +0 (a -0.0 store is no zero fill: -0.0 + -0.0 stays -0.0)."""
    return isinstance(e, (Int, Float)) and e.value == 0 and math.copysign(1.0, e.value) > 0



class StatementBuilder:
    """The statements of one kernel (`stmts`, `barrier_stmts`, the count `barriers`), named
    `<tag>_<sid>_<n>` with the kernel's parameter names `pnames` (program name -> isl name)."""

    def __init__(self, program: ir.Program, kernel: ir.Kernel, pnames: dict, tag: str):
        self.program, self.pnames, self.tag = program, pnames, tag
        self.stmts: list[Stmt] = []
        self.barriers = 0
        self.barrier_stmts: list[Stmt] = []  # barrier occurrences as pseudo statements (no accesses)
        self._n = 0
        self._zero_count = {}
        self._walk(kernel.body, [], [], (), [], None)

    def _walk(self, stmts, loops, guards, pos, sched_prefix, top):
        for k, s in enumerate(stmts):
            p = pos + (k,)
            t = k if top is None else top
            match s:
                case For():
                    key = tuple(x for x in sched_prefix if isinstance(x, tuple)) + (p,)
                    lp = Loop(s.var, s.lo, s.hi, s.axis, key)
                    self._walk(s.body, loops + [lp], guards, (), sched_prefix + [p, lp], t)
                case If(cond=c):
                    self._walk(s.then, loops, guards + [c], p + (0,), sched_prefix, t)
                    self._walk(s.orelse, loops, guards + [negate(c)], p + (1,), sched_prefix, t)
                case TensorCore(lane=lane, fallback=fb):
                    g = guards + ([ir.Cmp("==", Var(lane), Int(0))] if any(l.var == lane for l in loops) else [])
                    self._walk(fb, loops, g, p + (0,), sched_prefix, t)
                case ir.Barrier():
                    self.barriers += 1
                    n = len(self.barrier_stmts)
                    self.barrier_stmts.append(Stmt(f"{self.tag}_BAR{n}", f"barrier{n}", s, list(loops),
                                                   sched_prefix + [p], list(guards), t, "", (), (), None,
                                                   [], False))
                case Assign() | Zero():
                    self._add(s, loops, guards, sched_prefix + [p], t)

    def _add(self, s, loops, guards, sched, top):
        name = f"{self.tag}_{safe_name(getattr(s, 'sid', '') or 'Z')}_{self._n}"
        self._n += 1
        if isinstance(s, Zero):
            t = self.program.tensor(s.tensor)
            cells = [Loop(f"_z{d}", Int(0), dim, "vectorized", ("zero", name, d), True)
                     for d, dim in enumerate(t.storage_dims())]
            idx = tuple(Var(c.var) for c in cells)
            zt = self._zero_tuple(s.tensor, top)
            st = Stmt(name, zt[1], s, loops + cells, sched + [c for cell in cells for c in (cell, ())],
                      guards, top, zt[0], tuple(f"c{d}" for d in range(len(idx))), idx,
                      None, [Access(s.tensor, idx, True)], True, self.barriers)
            self.stmts.append(st)
            return
        names = {**self.pnames, **{lp.var: lp.var for lp in loops}}
        blend, effective_value = blend_of(s, names)
        # a blend is an accumulation when its effective store is one
        acc = ir.accumulation(s if blend is None else ir.Assign(s.tensor, s.index, effective_value, s.sid))
        noop = s.value == Load(s.tensor, s.index)
        accesses = [Access(s.tensor, s.index, True, acc is not None, noop)]
        acc_ctx = () if blend is None else where_path(s.value, effective_value)
        if acc is not None:
            accesses.append(Access(s.tensor, s.index, False, True, context=self._ctx(guards, acc_ctx)))
        target = Load(s.tensor, s.index)
        skip_one = acc is not None
        for r, ctx in reads_in_context(s.value):
            if skip_one and r == target and ctx == acc_ctx:
                skip_one = False
                continue
            accesses.append(Access(r.tensor, r.index, False, context=self._ctx(guards, ctx)))
        for r, ctx in reads_in_context(s.index):
            accesses.append(Access(r.tensor, r.index, False, context=self._ctx(guards, ctx)))
        for k, g in enumerate(guards):
            accesses += [Access(r.tensor, r.index, False, context=tuple(guards[:k]) + ctx)
                         for r, ctx in reads_in_context(g)]
        # a constant-zero store (expand_zero's), also when a split's blend keeps the old value
        # on duplicate lanes: its effective store decides its identity (the cell it clears)
        zero_like = is_zero_const(s.value if blend is None else effective_value) and not s.sid.startswith("S")
        if zero_like:
            (otuple, sid), oexprs = self._zero_tuple(s.tensor, top), s.index
            onames = tuple(f"c{d}" for d in range(len(s.index)))
        else:
            prov = s.provenance or tuple((lp.var, Var(lp.var)) for lp in loops)
            otuple, onames, oexprs = f"O_{safe_name(s.sid)}", tuple(n for n, _ in prov), tuple(e for _, e in prov)
            sid = original_sid(s.sid)
            otuple = f"O_{safe_name(sid)}"
        self.stmts.append(Stmt(name, sid, s, list(loops), sched, list(guards), top, otuple, onames, oexprs,
                               acc[0] if acc else None, accesses, zero_like, self.barriers, blend))

    def _zero_tuple(self, tensor: str, top: int) -> tuple:
        """The original identity of a constant-zero store: its cell, and which of the kernel's
        zero statements of the tensor it belongs to (counted by top-level statement), so two
        `zero T` of unrelated phases stay two statements."""
        tops = self._zero_count.setdefault(tensor, [])
        if top not in tops:
            tops.append(top)
        k = tops.index(top)
        pre = "Z" if k == 0 else f"Z{k}"
        return f"{pre}_{safe_name(tensor)}", f"{pre}_{tensor}"

    @staticmethod
    def _ctx(guards, ctx):
        """The context of a value or index read: None (the statement's domain) outside any where."""
        return tuple(guards) + tuple(ctx) if ctx else None
