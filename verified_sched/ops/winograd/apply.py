"""The `winograd` op's rewrite: Winograd F(2x2, 3x3) of a direct 3x3 stride-1 convolution.

Recognition is deliberately narrow: one perfect serial nest at the kernel's top
level whose single statement is `d[..] = d[..] + x * y` (either order, or fma) over three
distinct f32 tensors; one operand (the input `a`) reads exactly two axes as `o + k` with `o`
a plain output iterator of `d` and `k` a loop over 0..3 read plainly by the other operand
(the kernel `b`); each of those four iterators occurs only there; exactly one output-channel
iterator (in d and b) and one reduction-channel iterator (in a and b); every other iterator a
batch axis of d and a; every other index a plain iterator or free of iterators; loops from 0
with parameter-only bounds; both output extents provably >= 2 under the constraints.
Anything else is left alone (0 sites) and the op is the identity.

A site becomes seven top-level statements:
  U = G b G^T per (oc, ic)                 (recomputed every call)
  V = B^T a B per 4x4 input tile at (2 th, 2 tw)
  zero M
  M[xi, nu, <d axes>] += V[xi, nu, <a axes>] * U[xi, nu, oc, ic]   (reduction innermost)
  d[<2 th + p, 2 tw + q>] += (A^T M A)[p, q]                      (accumulated, never assigned)
  the direct form on the last row (oh from 2 floor(OH/2) to OH) and
  the direct form on the last column (ow from 2 floor(OW/2), oh below 2 floor(OH/2)),
so odd extents are handled for symbolic parity. Every minted loop either has no window or
starts off 0, so a second application finds no site (idempotence).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction

from ...core import ir
from ..common import get_kernel
from .isl_text import implied
from .blocked import block_site
from .names import Names

BT = ((1, 0, -1, 0), (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, 0, -1))
G = ((Fraction(1), Fraction(0), Fraction(0)),
     (Fraction(1, 2), Fraction(1, 2), Fraction(1, 2)),
     (Fraction(1, 2), Fraction(-1, 2), Fraction(1, 2)),
     (Fraction(0), Fraction(0), Fraction(1)))
AT = ((1, 1, 1, 0), (0, 1, -1, -1))

ROLES = ("U", "V", "zero", "contract", "inverse", "row_strip", "col_strip")

# Documented tolerance on random inputs (the oracle's atol, rtol 0): the Winograd form differs
# from the direct one by at most RANDOM_ATOL_UNITS * 9 * C * max|a| * max|b| per output cell
# (measured: under 2^-24 of that scale in C for C in 1..256 on uniform [-1, 1) inputs; the
# margin covers the transforms' extra roundings and other orders of the reduction).
RANDOM_ATOL_UNITS = 2.0 ** -18


def random_atol(channels: int, amax: float = 1.0, bmax: float = 1.0) -> float:
    """The absolute tolerance between the two forms for `channels` reduction channels."""
    return RANDOM_ATOL_UNITS * 9 * channels * amax * bmax


@dataclass(frozen=True)
class Site:
    """One recognised convolution nest.

    Index roles per tensor position: ("batch", it), ("win", w) / ("out", w) / ("k", w) with w
    the window number (0: the first window axis of `a`, 1: the second), ("oc",), ("ic",),
    ("fixed", expr).
    """

    position: int
    loops: tuple
    stmt: ir.Assign
    d: str
    a: str
    b: str
    o: tuple  # (oh, ow) iterator names, in the order of a's window axes
    k: tuple  # (kh, kw)
    oc: str
    ic: str
    batch: tuple
    d_roles: tuple
    a_roles: tuple
    b_roles: tuple

    def extent(self, name: str):
        return next(lp.hi for lp in self.loops if lp.var == name)


@dataclass(frozen=True)
class Minted:
    """Where a site's replacement sits in the rewritten kernel and the names it minted."""

    site: Site
    start: int  # index of its first statement in the new kernel body
    roles: tuple  # the role of each statement, from ROLES (strips may be absent)
    U: str
    V: str
    M: str
    row: str | None = None  # `winograd block`: the row loop's variable (blocked.py), else None
    W: str | None = None  # `winograd block`: the weight copy (blocked.py), else None


# ---------------------------------------------------------------- recognition


def _perfect_nest(stmt):
    loops = []
    while isinstance(stmt, ir.For):
        loops.append(stmt)
        if len(stmt.body) != 1:
            return None, "not a perfect nest (a loop body holds several statements)"
        stmt = stmt.body[0]
    if not loops:
        return None, "not a loop nest"
    if not isinstance(stmt, ir.Assign):
        return None, "the innermost statement is not an assignment"
    return (tuple(loops), stmt), ""


def _window_pair(e, iters):
    match e:
        case ir.BinOp(op="+", a=ir.Var(name=u), b=ir.Var(name=v)) if u in iters and v in iters and u != v:
            return u, v
    return None


def recognize(program: ir.Program, stmt, position: int = 0):
    """(Site, "") if `stmt` is an eligible convolution nest, else (None, reason)."""
    found, why = _perfect_nest(stmt)
    if found is None:
        return None, why
    loops, st = found
    iters = [lp.var for lp in loops]
    params = {p if isinstance(p, str) else p.name for p in program.params}
    for lp in loops:
        if lp.axis != "serial":
            return None, f"loop {lp.var} is {lp.axis}, not serial"
        if lp.lo != ir.Int(0):
            return None, f"loop {lp.var} does not start at 0"
        if not ir.free_vars(lp.hi) <= params or ir.reads(lp.hi):
            return None, f"the bound of loop {lp.var} is not a parameter expression"
    acc = ir.accumulation(st)
    if acc is None or acc[0] != "+":
        return None, "the statement is not an accumulation d = d + x * y"
    match acc[1]:
        case ir.BinOp(op="*", a=ir.Load() as x, b=ir.Load() as y):
            pass
        case _:
            return None, "the accumulated term is not a product of two tensor reads"
    names = {st.tensor, x.tensor, y.tensor}
    if len(names) != 3:
        return None, "the output and the two operands are not three distinct tensors"
    for n in names:
        try:
            prec = program.tensor(n).prec
        except KeyError:
            return None, f"unknown tensor {n}"
        if prec != "f32":
            return None, f"tensor {n} is {prec}, not f32"
    wins = {t.tensor: [i for i, e in enumerate(t.index) if _window_pair(e, iters)] for t in (x, y)}
    if sorted(len(v) for v in wins.values()) != [0, 2]:
        return None, "no operand reads exactly two window axes o + k (stride, dilation or offset?)"
    a, b = (x, y) if len(wins[x.tensor]) == 2 else (y, x)
    d = ir.Load(st.tensor, st.index)
    # occurrences: iterator -> list of (tensor role, position, plain?)
    occ = {v: [] for v in iters}
    for role, t in (("d", d), ("a", a), ("b", b)):
        for pos, e in enumerate(t.index):
            fv = ir.free_vars(e) & set(iters)
            if ir.reads(e):
                return None, f"a dynamic index in {t.tensor}"
            if not fv:
                continue
            pair = _window_pair(e, iters) if role == "a" else None
            if pair:
                for v in pair:
                    occ[v].append((role, pos, "win"))
            elif isinstance(e, ir.Var):
                occ[e.name].append((role, pos, "plain"))
            else:
                return None, f"index {pos} of {t.tensor} is neither a plain iterator nor fixed"
    o, k = [], []
    for pos in wins[a.tensor]:
        u, v = _window_pair(a.index[pos], iters)
        in_d = [w for w in (u, v) if any(r == "d" for r, _, _ in occ[w])]
        if len(in_d) != 1:
            return None, "a window axis does not pair one output iterator with one kernel iterator"
        oo = in_d[0]
        kk = v if oo == u else u
        if [r for r, _, _ in occ[oo]] != ["d", "a"] or sorted(r for r, _, _ in occ[kk]) != ["a", "b"]:
            return None, "window iterators occur outside the window (not separable)"
        kl = next(lp for lp in loops if lp.var == kk)
        if kl.hi != ir.Int(3):
            return None, f"window loop {kk} is not over 0..3"
        o.append(oo)
        k.append(kk)
    oc, ic, batch = [], [], []
    for v in iters:
        if v in o or v in k:
            continue
        where = sorted(r for r, _, _ in occ[v])
        match where:
            case ["b", "d"]:
                oc.append(v)
            case ["a", "b"]:
                ic.append(v)
            case ["a", "d"]:
                batch.append(v)
            case _:
                return None, f"iterator {v} is neither a batch, an output-channel nor a reduction-channel axis"
    if len(oc) != 1 or len(ic) != 1:
        return None, f"{len(oc)} output-channel and {len(ic)} reduction-channel axes (exactly one each needed)"
    for w, oo in enumerate(o):
        ext = next(lp.hi for lp in loops if lp.var == oo)
        if not implied(program, ir.Cmp(">=", ext, ir.Int(2))):
            return None, f"output extent of {oo} is not provably >= 2"

    def roles(t):
        out = []
        for e in t.index:
            if not (ir.free_vars(e) & set(iters)):
                out.append(("fixed", e))
            elif pair := _window_pair(e, iters):
                out.append(("win", o.index(pair[0] if pair[0] in o else pair[1])))
            elif e.name in o:
                out.append(("out", o.index(e.name)))
            elif e.name in k:
                out.append(("k", k.index(e.name)))
            elif e.name == oc[0]:
                out.append(("oc",))
            elif e.name == ic[0]:
                out.append(("ic",))
            else:
                out.append(("batch", e.name))
        return tuple(out)

    site = Site(position, loops, st, d.tensor, a.tensor, b.tensor, tuple(o), tuple(k), oc[0], ic[0],
                tuple(batch), roles(d), roles(a), roles(b))
    return site, ""


def find_sites(program: ir.Program, kernel_name: str):
    """(sites, reasons): the eligible top-level nests, and why each other statement is not."""
    sites, reasons = [], []
    for i, stmt in enumerate(program.kernel(kernel_name).body):
        site, why = recognize(program, stmt, i)
        if site is not None:
            sites.append(site)
        elif isinstance(stmt, ir.For):
            reasons.append(f"top-level loop {stmt.var}: {why}")
    return sites, reasons


# ---------------------------------------------------------------- expression helpers


def _add(a, b):
    return ir.BinOp("+", a, b)


def _twice(e, p: int = 0):
    """2*e + p."""
    out = ir.BinOp("*", ir.Int(2), e)
    return out if p == 0 else _add(out, ir.Int(p))


def _half(e):
    return ir.Int(e.value // 2) if isinstance(e, ir.Int) else ir.FloorDiv(e, 2)


def _even(e):
    return ir.Int(e.value - e.value % 2) if isinstance(e, ir.Int) else _twice(ir.FloorDiv(e, 2))


def signed_sum(coeffs, terms):
    """sum c * t with c in {-1, 0, 1}, left to right, the first term positive when possible."""
    pairs = [(c, t) for c, t in zip(coeffs, terms) if c != 0]
    pairs.sort(key=lambda p: p[0] < 0)
    c0, acc = pairs[0]
    if c0 < 0:
        acc = ir.Call("neg", (acc,))
    for c, t in pairs[1:]:
        acc = ir.BinOp("+" if c > 0 else "-", acc, t)
    return acc


def _scaled(scale: Fraction, e):
    return e if scale == 1 else ir.BinOp("*", ir.Float(float(scale)), e)


def _g_row(r):
    """(scale, signs) of row r of G."""
    scale = max(abs(c) for c in G[r])
    return scale, tuple(int(c / scale) for c in G[r])


def _index(roles, env):
    out = []
    for role in roles:
        match role:
            case ("fixed", e):
                out.append(e)
            case ("batch", name):
                out.append(env[name])
            case (kind, w):
                out.append(env[(kind, w)])
            case (kind,):
                out.append(env[kind])
    return tuple(out)


def _nest(loop_specs, body):
    for var, lo, hi in reversed(loop_specs):
        body = (ir.For(var, lo, hi, "serial", tuple(body)),)
    return body[0]


def _ident_prov(loop_specs):
    return tuple((v, ir.Var(v)) for v, _, _ in loop_specs)


# ---------------------------------------------------------------- minting


def _mint(program, site: Site, names: Names):
    """(statements, roles, tensors) replacing one site."""
    ext = {lp.var: lp.hi for lp in site.loops}
    oh_ext, ow_ext = ext[site.o[0]], ext[site.o[1]]
    th_ext, tw_ext = _half(oh_ext), _half(ow_ext)
    U, V, M = names.fresh(f"{site.d}_wU"), names.fresh(f"{site.a}_wV"), names.fresh(f"{site.d}_wM")
    stmts, roles = [], []

    # U = G b G^T per (oc, ic), loops in b's axis order
    specs = [(names.fresh(f"{site.oc if r == ('oc',) else site.ic}_u"), r[0]) for r in site.b_roles
             if r in (("oc",), ("ic",))]
    env = {role: ir.Var(v) for v, role in specs}
    body = []
    for xi in range(4):
        for nu in range(4):
            sx, gx = _g_row(xi)
            sn, gn = _g_row(nu)
            cols = []
            for s in range(3):
                loads = [ir.Load(site.b, _index(site.b_roles, {**env, ("k", 0): ir.Int(r), ("k", 1): ir.Int(s)}))
                         for r in range(3)]
                cols.append(signed_sum(gx, loads))
            val = _scaled(sx * sn, signed_sum(gn, cols))
            body.append((U, (ir.Int(xi), ir.Int(nu), env["oc"], env["ic"]), val))
    loop_specs = [(v, ir.Int(0), ext[site.oc if role == "oc" else site.ic]) for v, role in specs]
    stmts.append(_nest(loop_specs, [ir.Assign(t, i, v, names.sid(), _ident_prov(loop_specs)) for t, i, v in body]))
    roles.append("U")

    # V = B^T a B per tile, loops in a's axis order
    loop_specs, env = _axis_loops(site.a_roles, site, names, ("_v", "th_v", "tw_v"), ext, (th_ext, tw_ext))
    v_index = [ir.Var(v) for v, _, _ in loop_specs]
    body = []
    for xi in range(4):
        for nu in range(4):
            cols = []
            for j in range(4):
                loads = [ir.Load(site.a, _index(site.a_roles, {**env, ("win", 0): _twice(env[("win", 0)], i),
                                                                 ("win", 1): _twice(env[("win", 1)], j)}))
                         for i in range(4)]
                cols.append(signed_sum(BT[xi], loads) if BT[nu][j] else None)
            body.append(ir.Assign(V, (ir.Int(xi), ir.Int(nu), *v_index), signed_sum(BT[nu], cols), names.sid()))
    stmts.append(_nest(loop_specs, [dataclasses.replace(s, provenance=_ident_prov(loop_specs)) for s in body]))
    roles.append("V")
    v_dims = tuple(hi for _, _, hi in loop_specs)

    # zero M; M[xi, nu, <d order>] += V[xi, nu, <a order>] * U[xi, nu, oc, ic]
    stmts.append(ir.Zero(M))
    roles.append("zero")
    xi_v, nu_v = names.fresh("xi"), names.fresh("nu")
    specs, env = _axis_loops(site.d_roles, site, names, ("_m", "th", "tw"), ext, (th_ext, tw_ext))
    loop_specs = [(xi_v, ir.Int(0), ir.Int(4)), (nu_v, ir.Int(0), ir.Int(4))] + specs
    env[("win", 0)], env[("win", 1)] = env[("out", 0)], env[("out", 1)]
    icm = names.fresh(f"{site.ic}_m")
    loop_specs.append((icm, ir.Int(0), ext[site.ic]))
    env["ic"] = ir.Var(icm)
    pos = (ir.Var(xi_v), ir.Var(nu_v))
    m_idx = pos + tuple(ir.Var(v) for v, _, _ in loop_specs[2:-1])
    v_idx = pos + tuple(e for r, e in zip(site.a_roles, _index(site.a_roles, env)) if r[0] != "fixed")
    u_idx = pos + (env["oc"], env["ic"])
    m_load = ir.Load(M, m_idx)
    m_dims = tuple(hi for _, _, hi in loop_specs[2:-1])
    stmts.append(_nest(loop_specs, [ir.Assign(M, m_idx, _add(m_load, ir.BinOp("*", ir.Load(V, v_idx), ir.Load(U, u_idx))),
                                              names.sid(), _ident_prov(loop_specs))]))
    roles.append("contract")

    # d[.., 2 th + p, 2 tw + q, ..] += (A^T M A)[p, q], loops in d's axis order
    loop_specs, env = _axis_loops(site.d_roles, site, names, ("_y", "th_y", "tw_y"), ext, (th_ext, tw_ext))
    m_rest = [ir.Var(v) for v, _, _ in loop_specs]
    body = []
    for p in range(2):
        for q in range(2):
            rows = [signed_sum(AT[p], [ir.Load(M, (ir.Int(xi), ir.Int(nu), *m_rest)) for xi in range(4)])
                    if AT[q][nu] else None for nu in range(4)]
            d_idx = _index(site.d_roles, {**env, ("out", 0): _twice(env[("out", 0)], p),
                                          ("out", 1): _twice(env[("out", 1)], q)})
            body.append(ir.Assign(site.d, d_idx, _add(ir.Load(site.d, d_idx), signed_sum(AT[q], rows)),
                                  names.sid(), _ident_prov(loop_specs)))
    stmts.append(_nest(loop_specs, body))
    roles.append("inverse")

    # remainder strips: the direct form over fresh iterators
    for w, role in ((0, "row_strip"), (1, "col_strip")):
        full = (oh_ext, ow_ext)[w]
        if isinstance(full, ir.Int) and full.value % 2 == 0:
            continue
        stmts.append(_strip(site, names, w, role))
        roles.append(role)
    tensors = (ir.Tensor(U, (ir.Int(4), ir.Int(4), ext[site.oc], ext[site.ic]), "f32", "local"),
               ir.Tensor(V, (ir.Int(4), ir.Int(4)) + v_dims, "f32", "local"),
               ir.Tensor(M, (ir.Int(4), ir.Int(4)) + m_dims, "f32", "local"))
    return stmts, tuple(roles), tensors, (U, V, M)


def _axis_loops(roles, site: Site, names: Names, tags: tuple, ext: dict, tiles: tuple):
    """Loops over a tensor's non-fixed axes in its order (batch axes, the two tile axes, a
    channel), and the env mapping their roles to the new iterators."""
    specs, env = [], {}
    for role in roles:
        match role:
            case ("batch", n):
                v, hi, key = names.fresh(n + tags[0]), ext[n], n
            case ("out" | "win", w):
                v, hi, key = names.fresh(tags[1 + w]), tiles[w], role
            case ("oc",) | ("ic",):
                it = site.oc if role == ("oc",) else site.ic
                v, hi, key = names.fresh(it + tags[0]), ext[it], role[0]
            case _:
                continue
        specs.append((v, ir.Int(0), hi))
        env[key] = ir.Var(v)
    return specs, env


def _strip(site: Site, names: Names, w: int, role: str):
    """The direct nest on the last row (w = 0) or the last column without the corner (w = 1)."""
    suffix = "_r" if w == 0 else "_c"
    ren = {lp.var: names.fresh(lp.var + suffix) for lp in site.loops}
    sub = {old: ir.Var(new) for old, new in ren.items()}
    specs = []
    for lp in site.loops:
        lo, hi = lp.lo, lp.hi
        if lp.var == site.o[w]:
            lo = _even(hi)
        elif w == 1 and lp.var == site.o[0]:
            hi = _even(hi)
        specs.append((ren[lp.var], lo, hi))
    st = site.stmt
    prov = tuple((o, ir.substitute(e, sub)) for o, e in st.provenance) if st.provenance else _ident_prov(specs)
    new = ir.Assign(st.tensor, tuple(ir.substitute(e, sub) for e in st.index), ir.substitute(st.value, sub),
                    st.sid, prov)
    return _nest(specs, [new])


def rewrite_kernel(program: ir.Program, kernel_name: str, block: bool = False):
    """(new program, [Minted], reasons). The program is returned unchanged (same object) when
    there is no site. `block`: the blocked form (blocked.py)."""
    kernel = program.kernel(kernel_name)
    sites, reasons = find_sites(program, kernel_name)
    if not sites:
        return program, [], reasons
    names = Names(program, kernel)
    body, minted, new_tensors = [], [], []
    by_pos = {s.position: s for s in sites}
    for i, stmt in enumerate(kernel.body):
        if i not in by_pos:
            body.append(stmt)
            continue
        stmts, roles, tensors, (U, V, M) = _mint(program, by_pos[i], names)
        row = bt = None
        if block:
            stmts, roles, tensors, row, bt = block_site(program, by_pos[i], stmts, roles, tensors, (U, V, M), names)
        minted.append(Minted(by_pos[i], len(body), roles, U, V, M, row, bt))
        body += stmts
        new_tensors += tensors
    out = program.with_kernel(dataclasses.replace(kernel, body=tuple(body)))
    for t in new_tensors:
        out = out.with_tensor(t)
    return out, minted, reasons


def apply(program: ir.Program, kernel_name: str, op) -> ir.Program:
    """The program with every eligible nest of the kernel rewritten (identity if none)."""
    get_kernel(program, kernel_name, op)
    return rewrite_kernel(program, kernel_name, op.block)[0]
