"""Symbolic values of cells: every read replaced by the expression of its last writer.

`Expander(model, flow)` turns the value a statement instance stores into a tree whose leaves
are kernel inputs (the value a cell had on entry), constants and integer iterators. Every
node lives over a *context*: an isl set whose points are the cells (or reduction terms)
being described; instance and cell maps go from the context. Copies, transposes, pads and
staged tiles disappear because their reads are replaced by what was copied. Nodes:

- `Const(v)`, `Leaf(tensor, map ctx -> T[cell])` (input value), `Iter(map ctx -> V[v])`;
- `Op(name, args)`: an arithmetic node (`+ - * /`, a function, a cast); `fma` stays `fma`;
- `Pw(pieces)`: a case split of the context, `[(set, node)]`;
- `At(stmt, inst, body)`: the value stored by instance `inst(ctx)` of `stmt` (transparent;
  used to pair instances of a recurrence), `Ref(stmt, inst)`: that value again, inside its
  own expansion (an in-place recurrence), decided co-inductively by the comparison;
- `Red(op, prec, init, terms)`: a chain of accumulations `c op= e` into one cell: `init` is
  the value before the chain's first instance, each `Term` the body `e` over the context
  `[ctx -> Y[y]]` of the chain's instances y of one statement. A chain is every accumulation
  instance of the same operator on the cell, after the last other write of it (so two
  `s[i] += ...` statements of one nest form one sum). A chain whose accumulator is loaded
  through exact copies from the end of an earlier chain of the operator continues it
  (`Expander.rounds`: a private accumulator reloaded once per block of the reduction loop).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import islpy as isl

from verified_sched.core import ir
from verified_sched.core.ir import BinOp, Call, Cast, Float, FloorDiv, Int, Load, Mod, Var, Where
from .affine import NonAffine, aff, cond, is_data_cond
from .describe import maps_of
from .lazy import blend_of
from .model import KernelModel, Stmt, safe_name
from .valuedeps import closure_of
from .valueflow import TooComplex, Unsupported, ValueFlow, read_tuple

BUDGET = 4000  # nodes per kernel expansion
# precisions whose every value a float type holds exactly
EXACT_IN = {"f32": {"f16", "bf16", "f32"}, "f64": {"f16", "bf16", "f32", "f64"}}


@dataclass
class Const:
    value: float


@dataclass
class Leaf:
    tensor: str
    map: isl.Map


@dataclass
class Iter:
    map: isl.Map


@dataclass
class Op:
    name: str
    args: list


@dataclass
class Pw:
    pieces: list


@dataclass
class At:
    stmt: str
    inst: isl.Map
    body: object


@dataclass
class Ref:
    stmt: str
    inst: isl.Map
    computes: bool = True  # the statement computes (not a plain copy of a read or a constant)


@dataclass
class Term:
    stmt: str
    chain: isl.Map  # ctx -> Y[y]
    body: object  # over chain.wrap()


@dataclass
class Red:
    op: str  # + * max min fma
    prec: str
    init: object
    terms: list = field(default_factory=list)


def acc_key(st: Stmt, pnames: dict) -> str | None:
    """The reduction operator of an accumulation statement (`fma(a, b, t)` is its own)."""
    if st.acc_op is None or st.zero_like:
        return None
    v = _value(st, pnames)
    t = st.accesses[0].tensor
    if isinstance(v, Call) and v.fn == "fma":
        body = v.args[:2]
    else:
        acc = ir.accumulation(ir.Assign(st.node.tensor, st.node.index, v))
        body = () if acc is None else (acc[1],)
    if not body or any(isinstance(n, Load) and n.tensor == t for n in ir.walk(tuple(body))):
        return None  # a term that reads the accumulated tensor: evaluated as a plain statement
    return "fma" if isinstance(v, Call) and v.fn == "fma" else st.acc_op


def _value(st: Stmt, pnames: dict):
    if isinstance(st.node, ir.Zero):
        return Float(0.0)
    if st.blend is not None:  # where(c, v, t[I]) stores v where it takes effect (model.py)
        return blend_of(st.node, st.names(pnames))[1]
    return st.node.value


class Expander:
    def __init__(self, model: KernelModel, flow: ValueFlow):
        self.m, self.f = model, flow
        self.stack = []
        self.nodes = 0

    # ------------------------------------------------------------ reductions

    @cached_property
    def chains(self) -> dict:
        """op -> (chain x -> y, start x -> s) over the write instances of that operator."""
        out = {}
        m, f = self.m, self.f
        for op in sorted({k for st in m.stmts if (k := acc_key(st, m.pnames))}):
            sts = [st for st in m.stmts if acc_key(st, m.pnames) == op]
            A = m.union_map(isl.UnionMap.from_domain(isl.UnionSet.from_set(m.effective_domains[st.name]))
                         for st in sts).domain()
            W = m.writes.intersect_domain(A)
            same = W.apply_range(W.reverse())
            pred = m.union_map(self._acc_source(st) for st in sts)
            starts = A.subtract(pred.intersect_range(A).domain())
            order = f.order.intersect_domain(A).intersect_range(A)
            le = order.union(A.identity())
            cand = same.intersect(le.reverse())
            xs = cand.intersect_range(starts)
            blocked = xs.apply_range(order.reverse())
            out[op] = (cand.subtract(blocked), xs.subtract(blocked))
        return out

    @cached_property
    def rounds(self) -> dict:
        """op -> (start s -> round end e, start s -> every earlier round's start): a chain whose
        accumulator is loaded, through exact copies only (`c_acc = c`, `c = c_acc`: a plain
        read stored at its own precision), from the end e of an earlier chain of the same
        operator continues that chain (privatize with the reduction loop split outside the
        private tile: the k blocks are rounds of one sum). Only where isl's transitive closure
        of the round relation is exact; otherwise the op is absent (each chain's init is then
        the value it loads, as before)."""
        out = {}
        for op, (chain, start) in self.chains.items():
            starts = start.range()
            acc = chain.domain()
            cur = self.m.union_map(self._acc_source(st) for st in self.m.stmts
                                   if acc_key(st, self.m.pnames) == op).intersect_domain(starts)
            reach = None
            for _ in range(8):  # copy hops followed
                hit = cur.intersect_range(acc)
                reach = hit if reach is None else reach.union(hit)
                nxt = None
                for mp in maps_of(cur.subtract(hit)):
                    w = self.m.stmt(mp.get_tuple_name(isl.dim_type.out))
                    k = self._exact_copy(w)
                    if k is not None:
                        u = isl.UnionMap.from_map(mp).apply_range(self._source(w, k))
                        nxt = u if nxt is None else nxt.union(u)
                if nxt is None or nxt.is_empty():
                    break
                cur = nxt
            if reach is None or reach.is_empty():
                continue
            try:  # (a relation too complex for isl's closure, which has overflowed the C stack: none)
                closure, exact = closure_of(reach.apply_range(start))
            except TooComplex:
                continue
            if exact:
                out[op] = (reach, closure)
        return out

    def _exact_copy(self, st: Stmt) -> int | None:
        """The read access of a statement that stores a plain read at its own precision (its
        value is the read value, bit for bit), or None."""
        node = st.node
        if st.blend is not None or st.acc_op is not None or st.zero_like or not isinstance(node, ir.Assign) \
                or not isinstance(node.value, Load):
            return None
        prec = self.m.program.tensor
        if prec(node.tensor).prec != prec(node.value.tensor).prec:
            return None
        return self._index(st, node.value)

    def _acc_source(self, st: Stmt) -> isl.UnionMap:
        k = next(k for k, a in enumerate(st.accesses) if not a.write and a.accumulator)
        return self._source(st, k)

    def _source(self, st: Stmt, k: int) -> isl.UnionMap:
        """st instance -> the write instance its read k sees."""
        src = self.f.source_of(st, k)
        out = None
        for mp in maps_of(src):
            mp = mp.set_tuple_name(isl.dim_type.in_, st.name)
            u = isl.UnionMap.from_map(mp)
            out = u if out is None else out.union(u)
        return out if out is not None else self.m.union_map([])

    # ------------------------------------------------------------ values

    def _tick(self):
        self.nodes += 1
        if self.nodes > BUDGET:
            raise Unsupported("the symbolic value is too large (more than %d nodes)" % BUDGET)

    def stmt_value(self, st: Stmt, inst: isl.Map):
        """The value instance inst(ctx) of st stores."""
        self._tick()
        if st.name in self.stack:
            key = acc_key(st, self.m.pnames)
            return Ref(st.name, inst, bool(key) or not isinstance(_value(st, self.m.pnames), (Load, Int, Float)))
        self.stack.append(st.name)
        try:
            key = acc_key(st, self.m.pnames)
            body = self.reduction(st, key, inst) if key else self.expr(st, _value(st, self.m.pnames), inst)
        finally:
            self.stack.pop()
        return At(st.name, inst, body)

    def reduction(self, st: Stmt, key: str, inst: isl.Map) -> Red:
        chain, start = self.chains[key]
        prec = self.m.program.tensor(st.accesses[0].tensor).prec
        first = isl.UnionMap.from_map(inst).apply_range(start)
        members = isl.UnionMap.from_map(inst).apply_range(chain)
        if key in self.rounds:  # earlier rounds of the sum (rounds): their terms, the first one's init
            reach, closure = self.rounds[key]
            every = first.union(first.apply_range(closure))
            members = members.union(every.intersect_range(reach.domain()).apply_range(reach).apply_range(chain))
            first = every.subtract_range(reach.domain())
        pieces = []
        for sm in maps_of(first):
            s = self.m.stmt(sm.get_tuple_name(isl.dim_type.out))
            k = next(k for k, a in enumerate(s.accesses) if not a.write and a.accumulator)
            pieces.append((sm.domain(), self.load(s, k, sm)))
        init = pieces[0][1] if len(pieces) == 1 else Pw(pieces)
        red = Red(key, prec, init)
        for cm in maps_of(members):
            y = self.m.stmt(cm.get_tuple_name(isl.dim_type.out))
            inner = cm.range_map()
            v = _value(y, self.m.pnames)
            if key == "fma":
                a, b, _ = v.args
                body = Op("*", [self.expr(y, a, inner), self.expr(y, b, inner)])
            else:
                body = self.expr(y, ir.accumulation(ir.Assign(y.node.tensor, y.node.index, v))[1], inner)
            red.terms.append(Term(y.name, cm, body))
        return red

    def load(self, st: Stmt, k: int, inst: isl.Map):
        """The value read access k of st sees at inst(ctx)."""
        acc = st.accesses[k]
        ri = inst.set_tuple_name(isl.dim_type.out, read_tuple(st, k))
        u = isl.UnionMap.from_map(ri)
        pieces = []
        for wm in maps_of(u.apply_range(self.f.source_of(st, k))):
            w = self.m.stmt(wm.get_tuple_name(isl.dim_type.out))
            pieces.append((wm.domain(), self.stmt_value(w, wm)))
        none = u.intersect_range(self.f.no_source).domain()
        if not none.is_empty():
            if self.m.program.tensor(acc.tensor).memory in ("shared", "local"):
                raise Unsupported(f"{st.sid} may read {acc.tensor} before anything is stored there")
            cell = inst.apply_range(self.m.access_map(st, acc, storage_view=True))
            for s in _sets(none):
                pieces.append((s, Leaf(acc.tensor, cell.intersect_domain(s))))
        if not pieces:
            raise Unsupported(f"{st.sid}: a read with no value")
        return pieces[0][1] if len(pieces) == 1 else Pw(pieces)

    def _index(self, st: Stmt, load: Load) -> int:
        for k, a in enumerate(st.accesses):
            if not a.write and not a.accumulator and a.tensor == load.tensor and a.index == load.index:
                return k
        for k, a in enumerate(st.accesses):
            if not a.write and a.tensor == load.tensor and a.index == load.index:
                return k
        raise Unsupported(f"{st.sid}: a read of {load.tensor} has no access")

    def expr(self, st: Stmt, e, inst: isl.Map):
        self._tick()
        names = st.names(self.m.pnames)
        if not isinstance(e, (Int, Float)) and _integer_affine(e):
            # an integer expression of iterators used as a value: its exact value (the
            # operand-by-operand float arithmetic agrees while values stay below 2^24)
            try:
                text = aff(e, names)
                m = isl.Map(self.m.space(f"{self.m.tup(st)} -> V[{text}]"))
                return Iter(inst.apply_range(m))
            except NonAffine:
                pass
        match e:
            case Int(value=v) | Float(value=v):
                return Const(float(v))
            case Var() | FloorDiv() | Mod():
                try:
                    text = aff(e, names)
                except NonAffine as exc:
                    raise Unsupported(f"{st.sid}: {exc}") from None
                m = isl.Map(self.m.space(f"{self.m.tup(st)} -> V[{text}]"))
                return Iter(inst.apply_range(m))
            case Load():
                return self.load(st, self._index(st, e), inst)
            case BinOp(op=op, a=a, b=b):
                return fold(Op(op, [self.expr(st, a, inst), self.expr(st, b, inst)]))
            case Call(fn="relu", args=(a,)):
                return Op("max", [self.expr(st, a, inst), Const(0.0)])
            case Call(fn=fn, args=args):
                return Op(fn, [self.expr(st, a, inst) for a in args])
            case Cast(prec=p, a=a):
                x = self.expr(st, a, inst)
                if isinstance(x, Leaf) and self.m.program.tensor(x.tensor).prec in EXACT_IN.get(p, ()):
                    return x  # a widening cast of an input (`f64(b[..])`): the same value
                return Op(f"cast {p}", [x])
            case Where(cond=c, a=a, b=b):
                if is_data_cond(c, names):
                    raise Unsupported(f"{st.sid}: a data-dependent where")
                try:
                    cs = isl.Set(self.m.space(f"{self.m.tup(st)} : {cond(c, names)}"))
                except NonAffine as exc:
                    raise Unsupported(f"{st.sid}: {exc}") from None
                yes = inst.intersect_range(cs).domain()
                no = inst.domain().subtract(yes)
                pieces = [(d, self.expr(st, x, inst.intersect_domain(d))) for d, x in ((yes, a), (no, b))
                          if not d.is_empty()]
                return pieces[0][1] if len(pieces) == 1 else Pw(pieces)
        raise Unsupported(f"{st.sid}: cannot evaluate {type(e).__name__}")

    # ------------------------------------------------------------ final cells

    def final(self, tensor: str, ctx: isl.Set):
        """The value each cell of `tensor` (ctx: OUT_<T>[cell] points) holds at the end."""
        pieces = []
        src = self.f.source.intersect_domain(isl.UnionSet.from_set(ctx))
        for wm in maps_of(src):
            w = self.m.stmt(wm.get_tuple_name(isl.dim_type.out))
            pieces.append((wm.domain(), self.stmt_value(w, wm)))
        # the cells nothing writes: compute_flow's sinks without a source (with must sources
        # only, exactly the complement of src's domain; subtracting that domain costs far more
        # when in-place kernels fragment it)
        rest = isl.UnionSet.from_set(ctx).intersect(self.f.no_source)
        cells = identity(ctx).set_tuple_name(isl.dim_type.out, f"T_{safe_name(tensor)}")
        for s in _sets(rest):
            pieces.append((s, Leaf(tensor, cells.intersect_domain(s))))
        return pieces[0][1] if len(pieces) == 1 else Pw(pieces)


def fold(n: Op):
    """Exact constant arithmetic folded (0.0 + 0.0 is 0.0, -0.0 + -0.0 is -0.0), `x + -0.0`
    and `x - 0.0` are x (bitwise, for every x: NaN and infinities included), and a case split
    with a constant piece (a predicated tail's `where(c, v, 0.0)`) distributed over the node.
    `x + 0.0` stays: it is +0.0 for x = -0.0 (the comparison decides it, z3 or the finite
    profile's rules)."""
    a, b = n.args
    if isinstance(a, Const) and isinstance(b, Const):
        v = _exact(n.name, a.value, b.value)
        return n if v is None else Const(v)
    if n.name in ("+", "-") and isinstance(b, Const) and _is_zero_signed(b.value, n.name == "+"):
        return a
    if n.name == "+" and isinstance(a, Const) and _is_zero_signed(a.value, True):
        return b
    for k, x in enumerate(n.args):
        if isinstance(x, Pw) and any(isinstance(e, Const) for _, e in x.pieces):
            pieces = []
            for d, e in x.pieces:
                args = list(n.args)
                args[k] = e
                pieces.append((d, fold(Op(n.name, args))))
            return Pw(pieces)
    return n


def _is_zero_signed(v: float, negative: bool) -> bool:
    """v is -0.0 (negative) or +0.0, by its sign bit (never Python `==`, which says -0.0 == 0.0)."""
    return v == 0.0 and math.copysign(1.0, v) < 0 if negative else v == 0.0 and math.copysign(1.0, v) > 0


def _exact(op: str, a: float, b: float):
    """op(a, b) when its exact value is an f32 number (both float compute types, f32 and f64,
    then give it), else None; a zero result keeps IEEE's sign (-0.0 + -0.0 is -0.0)."""
    if op not in ("+", "-", "*") or not (math.isfinite(a) and math.isfinite(b)):
        return None
    x, y = Fraction(a), Fraction(b)
    r = x + y if op == "+" else x - y if op == "-" else x * y
    import numpy as np  # here: `vsched verify` of a file without claims does not import numpy

    f = float(r)
    if f == 0.0:  # the sign of an exact zero: the same in every precision (round to nearest)
        f = a + b if op == "+" else a - b if op == "-" else a * b
    with np.errstate(all="ignore"):
        return f if Fraction(f) == r and float(np.float32(f)) == f else None


def _integer_affine(e) -> bool:
    """Only iterators, parameters, integers, + - *, floor, mod, min, max: no data."""
    return all(isinstance(n, (Int, Var, FloorDiv, Mod)) or (isinstance(n, BinOp) and n.op != "/")
               or (isinstance(n, Call) and n.fn in ("min", "max")) for n in ir.walk(e))


def identity(s: isl.Set) -> isl.Map:
    return isl.Map.identity(s.get_space().map_from_set()).intersect_domain(s)


def _sets(u) -> list:
    if isinstance(u, isl.Set):
        return [] if u.is_empty() else [u]
    lst = u.get_set_list()
    return [lst.get_at(k) for k in range(lst.n_set())]
