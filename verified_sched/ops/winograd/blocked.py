"""`winograd block`: the blocked form of a site, one row of tiles at a time.

The unblocked form streams its intermediates V (input tiles transformed) and M (their
products with U) through memory: at 56x56 outputs and 64 channels each is 3.2 MB, more than
an L2. The blocked form runs the input transform, the zeroing of M, the contraction and the
output transform for one row of tiles (`th`) before the next, and V and M hold that row only
(their tile-row axis is dropped), so they stay in cache:

    U[xi, nu, ic, oc] = (G b G^T)[xi, nu]          (ic outer, oc inner: oc contiguous)
    for th_b in 0 .. floor(OH / 2):
      V[xi, nu, <a axes but the tile row>] = (B^T a B)[xi, nu] at tile (th_b, tw)
      zero M
      M[xi, nu, <d axes but the tile row>] += V[..] * U[xi, nu, ic, oc]   (ic, then oc innermost)
      d[.., 2 th_b + p, 2 tw + q, ..] += (A^T M A)[p, q]
    the strips, as in the unblocked form.

It is built from the unblocked statements (`block_site`), so each blocked statement is an
unblocked one with the tile-row loop hoisted out and V, M indexed without it. The proofs see
each role as its nest under the row loop (`region`): coverage, in_bounds and the read set are
then the unblocked queries with the row loop as an outer loop; the transform identity links
V and M through their full index (`full_index`: the row loop's variable put back), and
`order_problem` checks what makes dropping the row axis sound: the row loop's body is
exactly [V's nest, zero M, the contraction, the output transform], so in each iteration V is
written whole (the identity's dataflow check: same extents) before the contraction reads it,
and M is zeroed, then accumulated, then read, all in that iteration.
"""
from __future__ import annotations

import dataclasses

from ...core import ir

ROLES = ("weights", "U", "block")  # the blocked site's top-level statements, then its strips


def _unnest(nest):
    """([loops without bodies], innermost body) of a perfect nest of loops."""
    loops = []
    while isinstance(nest, ir.For) and len(nest.body) == 1 and isinstance(nest.body[0], ir.For):
        loops.append(nest)
        nest = nest.body[0]
    loops.append(nest)
    return loops, nest.body


def _nest(loops, body, vector=True):
    """The nest of `loops` around `body`, its innermost loop vectorized (`vector`)."""
    for n, lp in enumerate(reversed(loops)):
        axis = "vectorized" if vector and n == 0 else lp.axis
        body = (dataclasses.replace(lp, body=tuple(body), axis=axis),)
    return body[0]


def _prov(loops):
    return tuple((lp.var, ir.Var(lp.var)) for lp in loops)


def _with_prov(body, loops, outer=()):
    prov = tuple((v, ir.Var(v)) for v in outer) + _prov(loops)
    return tuple(dataclasses.replace(s, provenance=prov) if isinstance(s, ir.Assign) else s for s in body)


def row_axis(m_or_site, tensor_kind: str) -> int:
    """Position of the tile-row axis in the unblocked V ("V") or M ("M") index."""
    site = getattr(m_or_site, "site", m_or_site)
    roles = [r for r in (site.a_roles if tensor_kind == "V" else site.d_roles) if r[0] != "fixed"]
    return 2 + roles.index(("win", 0) if tensor_kind == "V" else ("out", 0))


def full_index(m, tensor: str, index: tuple) -> tuple:
    """An access's index as in the unblocked form: for V and M of a blocked site, the row
    loop's variable put back at the tile-row axis (else the index itself)."""
    if m.row is None or tensor not in (m.V, m.M):
        return tuple(index)
    pos = row_axis(m, "V" if tensor == m.V else "M")
    return tuple(index[:pos]) + (ir.Var(m.row),) + tuple(index[pos:])


def u_channels(m, index: tuple) -> tuple:
    """(oc, ic) of a U index: U[xi, nu, oc, ic] unblocked, U[xi, nu, ic, oc] blocked."""
    return (index[3], index[2]) if m.row is not None else (index[2], index[3])


def oc_axis(site) -> int:
    """Position of the output-channel axis in the kernel tensor's index."""
    return site.b_roles.index(("oc",))


def to_copy(site, bt: str, ld: ir.Load) -> ir.Load:
    """A read of the kernel tensor as the read of its copy (output channel last)."""
    p = oc_axis(site)
    return ir.Load(bt, ld.index[:p] + ld.index[p + 1:] + (ld.index[p],))


def from_copy(m, ld: ir.Load) -> ir.Load:
    """A read of a blocked site's weight copy as the read of the kernel tensor it copies."""
    if m.row is None or ld.tensor != m.W:
        return ld
    p = oc_axis(m.site)
    idx = ld.index[:-1]
    return ir.Load(m.site.b, idx[:p] + (ld.index[-1],) + idx[p:])


def _copy_nest(program, site, bt: str, names):
    """The weight copy: bt[<b's axes but oc>, oc] = b[...] over all of b (oc innermost)."""
    dims = program.tensor(site.b).dims
    vs = [names.fresh(f"{site.b}_t{i}") for i in range(len(dims))]
    p = oc_axis(site)
    loops = [ir.For(v, ir.Int(0), hi, "serial", ()) for i, (v, hi) in enumerate(zip(vs, dims)) if i != p]
    loops.append(ir.For(vs[p], ir.Int(0), dims[p], "serial", ()))
    src = ir.Load(site.b, tuple(ir.Var(v) for v in vs))
    st = ir.Assign(bt, to_copy(site, bt, src).index, src, names.sid(), _prov(loops))
    return _nest(loops, [st]), ir.Tensor(bt, dims[:p] + dims[p + 1:] + (dims[p],), program.tensor(site.b).prec, "local")


def block_site(program, site, stmts: list, roles: tuple, tensors: tuple, uvm: tuple, names):
    """(statements, roles, tensors, row variable, weight copy) of the blocked form of a site
    from its unblocked minting (apply._mint)."""
    U, V, M = uvm
    bt = names.fresh(f"{site.b}_wT")
    copy, bt_tensor = _copy_nest(program, site, bt, names)

    def via_copy(n):
        return to_copy(site, bt, n) if isinstance(n, ir.Load) and n.tensor == site.b else None
    by = {r: ir.rewrite(s, via_copy) for r, s in zip(roles, stmts)}
    vpos, mpos = row_axis(site, "V"), row_axis(site, "M")

    def drop(n):
        match n:
            case ir.Load(tensor=t, index=idx) if t in (V, M):
                p = vpos if t == V else mpos
                return ir.Load(t, idx[:p] + idx[p + 1:])
            case ir.Assign(tensor=t, index=idx) if t in (V, M):
                p = vpos if t == V else mpos
                return dataclasses.replace(n, index=idx[:p] + idx[p + 1:])
            case ir.Load(tensor=t, index=idx) if t == U:
                return ir.Load(t, idx[:2] + (idx[3], idx[2]))
            case ir.Assign(tensor=t, index=idx) if t == U:
                return dataclasses.replace(n, index=idx[:2] + (idx[3], idx[2]))
        return None

    # U: ic outer, oc inner, stored [xi, nu, ic, oc]
    loops, body = _unnest(by["U"])
    oc = body[0].index[2].name
    loops = sorted(loops, key=lambda lp: lp.var == oc)
    new_u = _nest(loops, [ir.rewrite(s, drop) for s in _with_prov(body, loops)])

    row = names.fresh("th_b")
    rows_hi = None

    def hoist(nest, tile_var, order=None):
        nonlocal rows_hi
        loops, body = _unnest(nest)
        lp = next(x for x in loops if x.var == tile_var)
        rows_hi = lp.hi
        loops = [x for x in loops if x.var != tile_var]
        if order:
            loops = order(loops)
        sub = {tile_var: ir.Var(row)}
        body = [ir.rewrite(ir.substitute(s, sub), drop) for s in body]
        return _nest(loops, _with_prov(body, loops, (row,)))

    def tile_loop(nest, pos, tensor):
        """The loop variable at the tile-row axis of `tensor`'s index in the nest's statements."""
        st = next(n for n in ir.walk(nest) if isinstance(n, ir.Assign))
        idx = st.index if st.tensor == tensor else next(ld.index for ld in ir.reads(st.value) if ld.tensor == tensor)
        return idx[pos].name

    new_v = hoist(by["V"], tile_loop(by["V"], vpos, V))
    cst = next(n for n in ir.walk(by["contract"]) if isinstance(n, ir.Assign))
    oc_m = next(ld for ld in ir.reads(cst.value) if ld.tensor == U).index[2].name

    def oc_last(loops):
        return [x for x in loops if x.var != oc_m] + [x for x in loops if x.var == oc_m]
    new_c = hoist(by["contract"], tile_loop(by["contract"], mpos, M), oc_last)
    new_i = hoist(by["inverse"], tile_loop(by["inverse"], mpos, M))
    block = ir.For(row, ir.Int(0), rows_hi, "serial", (new_v, ir.Zero(M), new_c, new_i))
    strips = [(r, _channel_last(site, by[r])) for r in roles if r in ("row_strip", "col_strip")]
    tu, tv, tm = tensors
    tensors = (ir.Tensor(U, tu.dims[:2] + (tu.dims[3], tu.dims[2]), tu.prec, tu.memory),
               ir.Tensor(V, tv.dims[:vpos] + tv.dims[vpos + 1:], tv.prec, tv.memory),
               ir.Tensor(M, tm.dims[:mpos] + tm.dims[mpos + 1:], tm.prec, tm.memory), bt_tensor)
    return ([copy, new_u, block] + [s for _, s in strips], ROLES + tuple(r for r, _ in strips), tensors, row, bt)


def _channel_last(site, strip):
    """A strip with its output-channel loop innermost and vectorized (each cell keeps the
    order of its updates: only the independent channel loop moves)."""
    loops, body = _unnest(strip)
    oc = body[0].index[site.d_roles.index(("oc",))].name
    return _nest([x for x in loops if x.var != oc] + [x for x in loops if x.var == oc], body)


def region(m, body: tuple):
    """(region, block statement or None): the site's statements as (role, statement) pairs
    in the unblocked roles; for a blocked site each of V, zero, contract, inverse is its
    statement in the row loop's body under a copy of the row loop."""
    stmts = [(role, body[m.start + i]) for i, role in enumerate(m.roles)]
    if m.row is None:
        return stmts, None
    out, block = [], None
    for role, s in stmts:
        if role != "block":
            out.append((role, s))
            continue
        block = s
        parts = s.body if isinstance(s, ir.For) else ()
        for r, inner in zip(("V", "zero", "contract", "inverse"), parts):
            out.append((r, dataclasses.replace(s, body=(inner,))))
    return out, block


def order_problem(block, roles: dict, m) -> str:
    """Why the row loop's body is not [V's nest, zero M, the contraction, the output
    transform], the statements the proofs saw (`roles`: role -> its view under the row
    loop), each the only writer of its tensor in the loop; "" when it is."""
    if not isinstance(block, ir.For) or block.var != m.row or block.lo != ir.Int(0) or block.axis != "serial":
        return "the blocked form's row loop is not a serial loop from 0 over the tile rows"
    want = tuple(roles[r].body[0] if isinstance(roles.get(r), ir.For) else None
                 for r in ("V", "zero", "contract", "inverse"))
    if block.body != want or any(roles[r].var != m.row for r in ("V", "zero", "contract", "inverse")):
        return "the row loop's body is not the input transform, zero M, the contraction and the output transform"
    if want[1] != ir.Zero(m.M):
        return "the row loop does not zero M before the contraction"
    writes = [{n.tensor for n in ir.walk(s) if isinstance(n, (ir.Assign, ir.Zero))} for s in want]
    if writes != [{m.V}, {m.M}, {m.M}, {m.site.d}]:
        return "a statement of the row loop writes another tensor than its own (V, M, M, the output)"
    return ""


def copy_problem(after: ir.Program, roles: dict, m) -> str:
    """Why the blocked site's weight copy is not a full copy of the kernel tensor (output
    channel last), the first statement of the site and the only writer of the copy; "" when
    it is. Then every in-bounds read of the copy (in_bounds) reads the kernel tensor's value
    at the un-permuted index (`from_copy`)."""
    copy = roles.get("weights")
    if m.roles[:1] != ("weights",) or copy is None:
        return "the blocked form does not copy the weights first"
    loops, body = _unnest(copy)
    if len(body) != 1 or not isinstance(body[0], ir.Assign) or body[0].tensor != m.W:
        return "the weight copy is not one assignment to the copy"
    st = body[0]
    src = st.value
    plain = isinstance(src, ir.Load) and all(isinstance(x, ir.Var) for x in src.index)
    if (not plain or src.tensor != m.site.b or len(src.index) != len(loops)
            or {x.name for x in src.index} != {lp.var for lp in loops} or st.index != to_copy(m.site, m.W, src).index):
        return "the weight copy does not assign each cell of the copy its kernel tensor cell"
    hi = {lp.var: lp.hi for lp in loops}
    if any(lp.lo != ir.Int(0) for lp in loops) or tuple(hi[x.name] for x in st.index) != after.tensor(m.W).dims:
        return "the weight copy does not write every cell of the copy"
    writers = [n for _, s in roles.items() if s is not None for n in ir.walk(s)
               if isinstance(n, (ir.Assign, ir.Zero)) and n.tensor == m.W]
    if len(writers) != 1:
        return "the weight copy is written by another statement"
    return ""
