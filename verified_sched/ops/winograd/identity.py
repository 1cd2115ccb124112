"""The transform identity of a Winograd site: A^T[(G g G^T) . (B^T d B)]A = correlate(d, g) per
output position of the 2x2 tile, built from the minted statements' own expressions and
stated as one z3 goal over the reals per position (proofs.py collects the goals)."""
from __future__ import annotations

from fractions import Fraction

import z3

from ...core import ir
from ...core.counterexample import Counterexample
from ...core.obligations import Decided, Goal, Z3Implies, formal_statement
from .apply import Minted
from .blocked import from_copy, full_index, order_problem, u_channels


def instances(stmt, loops=(), guards=()):
    """(assign, ((var, lo, hi), ...), guards) for every assignment below `stmt`."""
    match stmt:
        case ir.For(var=v, lo=lo, hi=hi, body=body):
            for s in body:
                yield from instances(s, loops + ((v, lo, hi),), guards)
        case ir.If(cond=c, then=t, orelse=e):
            for s in t:
                yield from instances(s, loops, guards + (c,))
            for s in e:
                yield from instances(s, loops, guards + (ir.Not(c),))
        case ir.Assign():
            yield stmt, loops, guards


class _Shape(Exception):
    """The minted statements do not have the linked shape the identity proof needs."""


def _lin(e) -> dict:
    """Linear form {var: coeff, None: const} of an iterator expression (parameters atomic)."""
    match e:
        case ir.Int(value=v):
            return {None: v}
        case ir.Var(name=n):
            return {n: 1}
        case ir.BinOp(op=("+" | "-") as op, a=a, b=b):
            x, y = _lin(a), _lin(b)
            s = 1 if op == "+" else -1
            return {k: x.get(k, 0) + s * y.get(k, 0) for k in set(x) | set(y)}
        case ir.BinOp(op="*", a=a, b=b):
            x, y = _lin(a), _lin(b)
            for u, w in ((x, y), (y, x)):
                if set(u) <= {None}:
                    return {k: u.get(None, 0) * c for k, c in w.items()}
    raise _Shape(f"non-linear index {e}")


def _z3(e, leaf):
    match e:
        case ir.Int(value=v):
            return z3.RealVal(v)
        case ir.Float(value=v):
            f = Fraction(v)
            return z3.RealVal(f"{f.numerator}/{f.denominator}")
        case ir.Load():
            return leaf(e)
        case ir.BinOp(op=op, a=a, b=b):
            x, y = _z3(a, leaf), _z3(b, leaf)
            return {"+": x + y, "-": x - y, "*": x * y, "/": x / y}[op]
        case ir.Call(fn="neg", args=(a,)):
            return -_z3(a, leaf)
        case ir.Call(fn="fma", args=(a, b, c)):
            return _z3(a, leaf) * _z3(b, leaf) + _z3(c, leaf)
    raise _Shape(f"expression {type(e).__name__} outside the identity's arithmetic")


def _const(e) -> int:
    if not isinstance(e, ir.Int):
        raise _Shape(f"expected a constant index, found {e}")
    return e.value


def _transform_terms(region: dict, m: Minted):
    """({(xi, nu): U expr}, {(xi, nu): V expr}, {(p, q): (inverse expr over M leaves)}), with
    the linkage between the nests checked structurally (raises _Shape otherwise)."""
    site = m.site
    g = {(r, s): z3.Real(f"g{r}{s}") for r in range(3) for s in range(3)}
    a = {(i, j): z3.Real(f"a{i}{j}") for i in range(4) for j in range(4)}

    def roles_env(roles, index):
        env = {}
        for role, e in zip(roles, index):
            env[role] = e
        return env

    U, V = {}, {}
    ranges = []  # (nest, {role: (lo, hi)}): every nest must agree on the extent of each role

    def record(nest, loops, pairs):
        b = {v: (lo, hi) for v, lo, hi in loops}
        ranges.append((nest, {("tile", r[1]) if r[0] in ("win", "out") else r: b.get(getattr(e, "name", None))
                              for r, e in pairs}))
    if m.row is not None and (why := order_problem(region.get("block"), region, m)):
        raise _Shape(why)
    for st, loops, _ in instances(region["U"]):
        xi, nu = _const(st.index[0]), _const(st.index[1])
        oc, ic = u_channels(m, st.index)
        record("U", loops, [(("oc",), oc), (("ic",), ic)])

        def gleaf(ld, oc=oc, ic=ic):
            ld = from_copy(m, ld)  # a blocked site reads the weights through their copy (copy_problem)
            env = roles_env(m.site.b_roles, ld.index)
            if ld.tensor != site.b or env.get(("oc",)) != oc or env.get(("ic",)) != ic:
                raise _Shape(f"unexpected read {ld.tensor} in the kernel transform")
            return g[(_const(env[("k", 0)]), _const(env[("k", 1)]))]
        U[(xi, nu)] = _z3(st.value, gleaf)
    for st, loops, _ in instances(region["V"]):
        xi, nu = _const(st.index[0]), _const(st.index[1])
        vroles = [r for r in site.a_roles if r[0] != "fixed"]
        venv = dict(zip(vroles, full_index(m, st.tensor, st.index)[2:]))
        record("V", loops, list(venv.items()))

        def aleaf(ld, venv=venv):
            env = roles_env(site.a_roles, ld.index)
            if ld.tensor != site.a:
                raise _Shape(f"unexpected read {ld.tensor} in the input transform")
            off = []
            for w in range(2):
                f = _lin(env[("win", w)])
                t = venv[("win", w)]
                if not isinstance(t, ir.Var) or f.get(t.name) != 2 or set(f) - {t.name, None}:
                    raise _Shape("input tile not read at 2 t + i")
                off.append(f.get(None, 0))
            if any(env[r] != venv[r] for r in vroles if r[0] != "win"):
                raise _Shape("input transform reads another batch or channel")
            return a[tuple(off)]
        V[(xi, nu)] = _z3(st.value, aleaf)
    # the contraction: M[xi, nu, <d>] += V[xi, nu, <a>] * U[xi, nu, oc, ic], ic the innermost loop
    (cst, cloops, _), = list(instances(region["contract"]))
    acc = ir.accumulation(cst)
    if acc is None or acc[0] != "+" or not isinstance(acc[1], ir.BinOp) or acc[1].op != "*":
        raise _Shape("the contraction is not M += V * U")
    ops = {ld.tensor: ld for ld in (acc[1].a, acc[1].b) if isinstance(ld, ir.Load)}
    if set(ops) != {m.U, m.V} or cst.tensor != m.M:
        raise _Shape("the contraction does not multiply V by U into M")
    vl, ul = ops[m.V], ops[m.U]
    # the contraction's loops: xi, nu first (also under a blocked site's row loop)
    pos_loops = cloops[1:3] if m.row is not None else cloops[:2]
    if not (cst.index[:2] == vl.index[:2] == ul.index[:2]) or [lp[0] for lp in pos_loops] != \
            [x.name for x in cst.index[:2] if isinstance(x, ir.Var)] or any(lp[2] != ir.Int(4) for lp in pos_loops):
        raise _Shape("the contraction does not pair equal transform positions")
    mroles = [r for r in site.d_roles if r[0] != "fixed"]
    menv = dict(zip(mroles, full_index(m, cst.tensor, cst.index)[2:]))
    venv = dict(zip([r for r in site.a_roles if r[0] != "fixed"], full_index(m, vl.tensor, vl.index)[2:]))
    u_oc, u_ic = u_channels(m, ul.index)
    if not isinstance(u_ic, ir.Var) or u_ic.name not in [lp[0] for lp in cloops]:
        raise _Shape("the contraction does not read U at a reduction loop")
    red = u_ic.name
    red_loop = next(lp for lp in cloops if lp[0] == red)
    link = [(menv[("out", w)], venv[("win", w)]) for w in range(2)]
    link += [(menv[r], venv[r]) for r in mroles if r[0] == "batch"]
    link += [(menv[("oc",)], u_oc), (ir.Var(red), u_ic), (ir.Var(red), venv[("ic",)])]
    record("contraction", cloops, list(menv.items()) + [(("ic",), ir.Var(red))])
    if red_loop[1:] != (ir.Int(0), site.extent(site.ic)):
        raise _Shape("the contraction does not reduce over every reduction channel")
    if any(x != y for x, y in link) or any(ir.Var(red) == e for e in cst.index):
        raise _Shape("the contraction's operands are not linked to the same tile and channels")
    # the inverse transform
    Y = {}
    for st, loops, _ in instances(region["inverse"]):
        acc = ir.accumulation(st)
        if acc is None or acc[0] != "+":
            raise _Shape("the inverse transform does not accumulate into the output")
        env = roles_env(site.d_roles, st.index)
        pq, tv = [], {}
        for w in range(2):
            f = _lin(env[("out", w)])
            ts = [k for k in f if k is not None]
            if len(ts) != 1 or f[ts[0]] != 2:
                raise _Shape("output not written at 2 t + p")
            pq.append(f.get(None, 0))
            tv[w] = ir.Var(ts[0])
        want = [tv[r[1]] if r[0] == "out" else e for r, e in zip(site.d_roles, st.index) if r[0] != "fixed"]
        record("inverse", loops, list(zip(mroles, want)))

        def mleaf(ld, want=want):
            if ld.tensor != m.M or list(full_index(m, ld.tensor, ld.index)[2:]) != want:
                raise _Shape(f"the inverse transform reads {ld.tensor} off its own tile")
            k = (_const(ld.index[0]), _const(ld.index[1]))
            return U[k] * V[k]
        Y[tuple(pq)] = _z3(acc[1], mleaf)
    if len(U) != 16 or len(V) != 16:
        raise _Shape("the transforms do not write all 16 positions")
    # dataflow: U and V are written at every position the contraction reads, M at every tile
    # the inverse reads (the inverse's own tiles are pinned by coverage)
    seen = {}
    for nest, rng in ranges:
        for role, lohi in rng.items():
            if lohi is None or lohi[0] != ir.Int(0) or seen.setdefault(role, (nest, lohi))[1] != lohi:
                raise _Shape(f"the {nest} nest's loop over {role} differs from the "
                             f"{seen.get(role, (nest,))[0]} nest's")
    return g, a, Y


def identity_goals(region: dict, m: Minted, timeout: float) -> list:
    """Formal statement (per output position (p, q) of the 2x2 tile): for all real tile values
    a[0..3][0..3] and kernel values g[0..2][0..2], the value the minted nests add to
    d[2 th + p, 2 tw + q] for one reduction channel, A^T[(G g G^T) . (B^T a B)]A at (p, q) as
    written in the minted statements, equals the direct form's sum of a[p + r][q + s] g[r][s]
    over r, s in 0..2 (z3, negated query: unsat = proved, sat = refuted with a model).

    One goal per position (z3's query, its own timeout); one `unknown` goal when the minted
    statements do not have the linked shape the identity is stated on."""
    statement = formal_statement(identity_goals)
    try:
        g, a, Y = _transform_terms(region, m)
    except (_Shape, KeyError, ValueError) as exc:
        return [Goal("equivalence", statement, Decided("unknown", f"transform identity: {exc}", engine="z3"))]
    out = []
    for p in range(2):
        for q in range(2):
            if (p, q) not in Y:
                out.append(Goal("equivalence", statement, Decided(
                    "refuted", f"position ({p}, {q}) of the tile is never written",
                    counterexample=Counterexample(extra={"position": [p, q]}), engine="z3")))
                continue
            what = f"transform identity at tile position ({p}, {q})"
            out.append(Goal("equivalence", statement, Z3Implies(
                _identity_query(Y[(p, q)], g, a, p, q), _identity_witness(what, p, q), what + " holds over the reals",
                timeout, undecided=what)))
    return out


def _identity_query(value, g: dict, a: dict, p: int, q: int):
    """() -> ([], value == the direct form's sum at (p, q)), the facts-imply-goal query."""
    def query():
        direct = z3.Sum([a[(p + r, q + s)] * g[(r, s)] for r in range(3) for s in range(3)])
        return [], value == direct
    return query


def _identity_witness(what: str, p: int, q: int):
    """model -> the refutation of the identity at (p, q), the model its counterexample."""
    def witness(model: dict) -> Decided:
        return Decided("refuted", what + " fails", counterexample=Counterexample(extra={"position": [p, q], "model": model}), engine="z3")
    return witness
