"""Register tiles in the C backend: an accumulation tile held in vector registers across its
reduction loop (issue 25 item 1).

The shape (after `verified_sched.analysis.full_tiles` has split the remainders off, so full
tiles have constant trip counts):

    for k in ...                                  serial or unrolled, any bounds
      for ii in R0 .. R1                          constant bounds (optional loop)
        #pragma omp simd
        for ji in V0 .. V1                        constant bounds, vectorized
          acc[I] = acc[I] + e     (or - e)        f32 or f64

with `I` not depending on `k`, `ji` only in the last index of `I` (coefficient 1), `ii` in no
last index and in some other index with a constant coefficient other than 0 (so distinct
(ii, ji) are distinct cells), `e` not reading `acc`, and every read of `e` either free of `ji` (a scalar,
broadcast) or a contiguous run in `ji` (`ji` only in its last index, coefficient 1). Such a
nest is emitted as (R1 - R0) x (V1 - V0) / L GCC vector variables (`vector_size`, L lanes)
loaded from `acc` before the `k` loop, updated inside it and stored after it; where the ISA
has fewer registers, in column panels, each running the whole `k` loop (a cell's updates keep
their order and no update reads another cell: `e` reads no `acc`). Every lane
computes exactly the scalar statement's operations on the same cell in the same order (the
same `+`, `-`, `*` of the same compute type), so the results are bitwise those of the scalar
nest; only where the cell lives between iterations changes (a register instead of memory:
`acc` is a different tensor from every tensor `e` reads, so no read sees a stale value).
Anything else is emitted by the plain path (`codegen.c.KernelEmitter.stmt`).
"""
from __future__ import annotations

from verified_sched.core import ir
from verified_sched.core.dtypes import C_COMPUTE

from .c_expr import cname

# (preprocessor test, vector bytes, accumulator vectors at most): the compiler's target picks
# one (`--cflags=-march=native`); a tile needing more vectors than the ISA has registers
# (32 zmm, 16 ymm/xmm, a few kept for the operands) is left to the plain loops there
TARGETS = (("__AVX512F__", 64, 28), ("__AVX__", 32, 12), (None, 16, 12))


def target(macros) -> tuple:
    """(vector bytes, accumulator vectors) of the ISA a compiler with these predefined macros
    targets (`codegen.build.target_macros`): the tile variant its preprocessor keeps."""
    return next((nbytes, regs) for macro, nbytes, regs in TARGETS if macro is None or macro in macros)
ELEM_BYTES = {"f32": 4, "f64": 8}


def coefficient(e, var: str):
    """The constant c with e = c * var + (terms free of var), else None (0 when var is absent)."""
    if var not in ir.free_vars(e):
        return 0
    match e:
        case ir.Var(name=name) if name == var:
            return 1
        case ir.BinOp(op=("+" | "-") as op, a=a, b=b):
            ca, cb = coefficient(a, var), coefficient(b, var)
            if ca is None or cb is None:
                return None
            return ca + cb if op == "+" else ca - cb
        case ir.BinOp(op="*", a=ir.Int(value=v), b=b):
            cb = coefficient(b, var)
            return None if cb is None else v * cb
        case ir.BinOp(op="*", a=a, b=ir.Int(value=v)):
            ca = coefficient(a, var)
            return None if ca is None else v * ca
        case ir.Call(fn="neg", args=(a,)):
            ca = coefficient(a, var)
            return None if ca is None else -ca
    return None


def contiguous(index: tuple, var: str) -> bool:
    """`var` occurs only in the last index, with coefficient 1 (a unit-stride run)."""
    return (bool(index) and all(var not in ir.free_vars(x) for x in index[:-1])
            and coefficient(index[-1], var) == 1)


def _const(e):
    return e.value if isinstance(e, ir.Int) else None


def match_tile(program: ir.Program, loop: ir.For):
    """(k loop, ii loop or None, ji loop, statement, op, e, lanes) when `loop` has the shape of the
    module docstring, else None."""
    if loop.axis not in ("serial", "unrolled") or len(loop.body) != 1 or not isinstance(loop.body[0], ir.For):
        return None
    inner = loop.body[0]
    rows = None
    if inner.axis != "vectorized":
        rows = inner
        if rows.axis not in ("serial", "unrolled") or len(rows.body) != 1 or not isinstance(rows.body[0], ir.For):
            return None
        if _const(rows.lo) is None or _const(rows.hi) is None or _const(rows.hi) <= _const(rows.lo):
            return None
        inner = rows.body[0]
    cols = inner
    if cols.axis != "vectorized" or len(cols.body) != 1 or not isinstance(cols.body[0], ir.Assign):
        return None
    lo, hi = _const(cols.lo), _const(cols.hi)
    if lo is None or hi is None or hi <= lo:
        return None
    stmt = cols.body[0]
    tensor = program.tensor(stmt.tensor)
    if tensor.prec not in ELEM_BYTES:
        return None
    target = ir.Load(stmt.tensor, stmt.index)
    match stmt.value:
        case ir.BinOp(op=("+" | "-") as op, a=a, b=e) if a == target:
            pass
        case _:
            return None
    k, j = loop.var, cols.var
    if any(isinstance(n, ir.Load) for n in ir.walk((loop.lo, loop.hi))):
        return None  # panels evaluate the k bounds again
    if any(isinstance(n, ir.Load) for n in ir.walk(stmt.index)):
        return None  # a dynamic target index could read the cells held in registers
    if k in ir.free_vars(stmt.index) or not contiguous(stmt.index, j):
        return None
    if rows is not None and (rows.var in ir.free_vars(stmt.index[-1]) or not any(
            coefficient(x, rows.var) not in (None, 0) for x in stmt.index[:-1])):
        return None  # rows must differ in an outer index: distinct (ii, ji) are distinct cells
    if any(n.tensor == stmt.tensor for n in ir.walk(e) if isinstance(n, ir.Load)):
        return None
    if not _vector_ok(program, e, j, tensor.prec):
        return None
    if not variants(rows, cols, tensor.prec):
        return None
    return loop, rows, cols, stmt, op, e


def variants(rows, cols, prec: str) -> list:
    """[(preprocessor condition, lanes or None, vectors per panel)]: per target ISA, the vector
    width the tile is held in and how many vectors of a row one panel holds (None: that ISA's
    registers are too few even for one vector per row, the plain loops are emitted there)."""
    width = _const(cols.hi) - _const(cols.lo)
    nrows = 1 if rows is None else _const(rows.hi) - _const(rows.lo)
    out = []
    for macro, nbytes, regs in TARGETS:
        cond = f"defined({macro})" if macro else "1"
        lanes = nbytes // ELEM_BYTES[prec]
        per = min(width // lanes, regs // nrows)
        fits = width % lanes == 0 and per >= 1
        out.append((cond, lanes if fits else None, per))
    return out if any(lanes for _, lanes, _ in out) else []


def _vector_ok(program, e, j: str, prec: str) -> bool:
    """Every `j`-dependent part of `e` is + - * of contiguous reads of `prec` tensors; the
    `j`-free parts (scalars) are plain arithmetic of reads, literals and iterators (nothing
    whose C typing could depend on the statement around it: comparisons, calls, casts)."""
    if j not in ir.free_vars(e):
        return _arithmetic(e)
    match e:
        case ir.BinOp(op=("+" | "-" | "*"), a=a, b=b):
            return _vector_ok(program, a, j, prec) and _vector_ok(program, b, j, prec)
        case ir.Load(tensor=t, index=idx):
            return program.tensor(t).prec == prec and contiguous(idx, j)
    return False


def _arithmetic(e) -> bool:
    match e:
        case ir.Load() | ir.Float() | ir.Int() | ir.Var():
            return True
        case ir.BinOp(op=("+" | "-" | "*" | "/"), a=a, b=b):
            return _arithmetic(a) and _arithmetic(b)
        case ir.Call(fn="neg", args=(a,)):
            return _arithmetic(a)
    return False


def emit_tile(em, match, depth: int) -> None:
    """Emit a matched register tile with the emitter `em` (a codegen.c.KernelEmitter): one
    version per target ISA (`#if`), the plain loops where the ISA has too few registers."""
    loop, rows, cols, stmt, op, e = match
    prec = em.program.tensor(stmt.tensor).prec
    for n, (cond, lanes, per) in enumerate(variants(rows, cols, prec)):
        em.lines.append(f"#if {cond}" if n == 0 else f"#elif {cond}")
        if lanes is None:
            em.plain(loop, depth)
            continue
        starts = list(range(_const(cols.lo), _const(cols.hi), lanes))
        for p in range(0, len(starts), per):
            _emit_vectors(em, match, lanes, starts[p:p + per], depth)
    em.lines.append("#endif")


def _emit_vectors(em, match, lanes: int, starts: list, depth: int, row_subs=None) -> None:
    """One panel: the tile's rows x the columns from `starts` (a vector each) held in
    registers through the whole `k` loop. `row_subs`: the rows as substitutions (default:
    the values of the `ii` loop)."""
    loop, rows, cols, stmt, op, e = match
    prec = em.program.tensor(stmt.tensor).prec
    ct = C_COMPUTE[prec]
    vtype = f"vs_{ct}x{lanes}"
    nbytes = lanes * ELEM_BYTES[prec]
    if row_subs is None:
        row_subs = [{}] if rows is None else [{rows.var: ir.Int(v)} for v in range(_const(rows.lo), _const(rows.hi))]
    tiles = []  # (name, substitution)
    for r, row in enumerate(row_subs):
        for q, jv in enumerate(starts):
            tiles.append((f"vs_r{r}_{q}", {**row, cols.var: ir.Int(jv)}))
    em.out(depth, f"{{  /* register tile: {stmt.tensor} {len(row_subs)}x{len(starts) * lanes} "
                  f"from column {starts[0]} in {len(tiles)} vectors of {lanes} */")
    em.out(depth + 1, f"typedef {ct} {vtype} __attribute__((vector_size({nbytes})));")
    for name, sub in tiles:
        em.out(depth + 1, f"{vtype} {name};")
        em.out(depth + 1, f"memcpy(&{name}, &{cell(em, stmt.tensor, stmt.index, sub)}, {nbytes});")
    lo_s, hi_s = em.bound(loop.lo, depth + 1), em.bound(loop.hi, depth + 1)
    c = cname(loop.var)
    em.out(depth + 1, f"for (int64_t {c} = {lo_s}; {c} < {hi_s}; {c}++) {{")
    em.scope.append(loop.var)
    for name, sub in tiles:
        em.out(depth + 2, f"{name} {op}= {vector(em, e, sub, cols.var, ct, vtype, nbytes)};")
    em.scope.pop()
    em.out(depth + 1, "}")
    for name, sub in tiles:
        em.out(depth + 1, f"memcpy(&{cell(em, stmt.tensor, stmt.index, sub)}, &{name}, {nbytes});")
    em.out(depth, "}")


def cell(em, tensor: str, index: tuple, sub: dict) -> str:
    return f"{cname(tensor)}[{em.offset(tensor, tuple(ir.substitute(x, sub) for x in index))}]"


def vector(em, e, sub: dict, j: str, ct: str, vtype: str, nbytes: int) -> str:
    """The C text of `e` over one vector (lanes j = sub[j] ...): j-free parts are scalars (C
    broadcasts them in a vector operation), contiguous reads are unaligned vector loads."""
    if j not in ir.free_vars(e):
        return f"({em.scalar(ir.substitute(e, sub), ct)[0]})"
    match e:
        case ir.BinOp(op=op, a=a, b=b):
            return f"({vector(em, a, sub, j, ct, vtype, nbytes)} {op} {vector(em, b, sub, j, ct, vtype, nbytes)})"
        case ir.Load(tensor=t, index=idx):
            return f"({{ {vtype} vs_v; memcpy(&vs_v, &{cell(em, t, idx, sub)}, {nbytes}); vs_v; }})"
    raise AssertionError(f"not a vector expression: {e!r}")  # match_tile admitted only these


JAM = 4  # rows an enclosing loop contributes to a one-row tile, at most


def match_jam(program: ir.Program, outer: ir.For):
    """(outer, tile) when `outer`'s body is a one-row register tile (match_tile, no `ii` loop)
    whose target `outer` moves in an outer index: then JAM iterations of `outer` run as the
    rows of one tile (unroll and jam). Each cell still gets its updates in order and no update
    reads a cell of the tile (`e` reads no `acc`), so only independent cells interleave."""
    if outer.axis not in ("serial", "unrolled") or len(outer.body) != 1 or not isinstance(outer.body[0], ir.For):
        return None
    if any(isinstance(n, ir.Load) for n in ir.walk((outer.lo, outer.hi))):
        return None
    tile = match_tile(program, outer.body[0])
    if tile is None or tile[1] is not None:
        return None
    loop, _, cols, stmt, _, _ = tile
    v = outer.var
    if v in ir.free_vars((loop.lo, loop.hi)) or v in ir.free_vars(stmt.index[-1]):
        return None
    if not any(coefficient(x, v) not in (None, 0) for x in stmt.index[:-1]):
        return None
    return outer, tile


def emit_jam(em, jam, depth: int) -> None:
    """Emit a matched unroll-and-jam: per ISA, blocks of up to JAM iterations of the outer
    loop as one register tile, then the remaining iterations one row at a time."""
    outer, tile = jam
    _, _, cols, stmt, _, _ = tile
    prec = em.program.tensor(stmt.tensor).prec
    width = _const(cols.hi) - _const(cols.lo)
    v = cname(outer.var)
    for n, (macro, nbytes, regs) in enumerate(TARGETS):
        em.lines.append(("#if " if n == 0 else "#elif ") + (f"defined({macro})" if macro else "1"))
        lanes = nbytes // ELEM_BYTES[prec]
        if width % lanes:
            em.plain(outer, depth)
            continue
        starts = list(range(_const(cols.lo), _const(cols.hi), lanes))
        rows = min(JAM, regs // len(starts))
        em.out(depth, "{")
        lo_s, hi_s = em.bound(outer.lo, depth + 1), em.bound(outer.hi, depth + 1)
        em.out(depth + 1, f"int64_t {v} = {lo_s};")
        em.scope.append(outer.var)
        if rows >= 2:
            em.out(depth + 1, f"for (; {v} <= {hi_s} - {rows}; {v} += {rows}) {{")
            subs = [{outer.var: ir.BinOp("+", ir.Var(outer.var), ir.Int(r))} for r in range(rows)]
            _emit_vectors(em, tile, lanes, starts, depth + 2, subs)
            em.out(depth + 1, "}")
        em.out(depth + 1, f"for (; {v} < {hi_s}; {v}++) {{")
        per = max(1, min(len(starts), regs))
        for p in range(0, len(starts), per):
            _emit_vectors(em, tile, lanes, starts[p:p + per], depth + 2)
        em.out(depth + 1, "}")
        em.scope.pop()
        em.out(depth, "}")
    em.lines.append("#endif")
