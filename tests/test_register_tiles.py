"""Register tiles in the C backend (codegen/c_tile.py, issue 25 item 1): an accumulation tile
is held in vector registers across its reduction loop, bitwise equal to the plain loops, and
only where every lane provably does the scalar statement's own work."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from codegen import build
from codegen import c_tile
from codegen.c import emit_c
from verified_sched.analysis.full_tiles import full_tiles
from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.oracle.compare import random_inputs
from support.scheduling import scheduled

KERNEL = """
params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] {prec}
tensor b[K, M] {prec}
tensor c[N, M] {prec}
kernel matmul {{
  zero c
  for i in 0 .. N {{
    for j in 0 .. M {{
      for k in 0 .. K {{
        c[i, j] {op}= a[i, k] * b[k, j]{extra}
      }}
    }}
  }}
}}
"""
TILE = """
schedule matmul {{
  split i by {r} -> io, ii
  split j by {v} -> jo, ji
  split k by 8 -> ko, ki
  interchange ii, jo
  interchange io, jo
  interchange ji, ko
  interchange ii, ko
  interchange io, ko
  interchange ji, ki
  interchange ii, ki
  privatize c over ki -> c_acc
  retype ji as vectorized
}}
"""


def _source(prec="f32", op="+", extra="", r=3, v=32):
    return KERNEL.format(prec=prec, op=op, extra=extra) + TILE.format(r=r, v=v)


def _emit(program, tiles: bool) -> str:
    from codegen.c import KernelEmitter, preludes

    parts = preludes(program)
    for k in program.kernels:
        em = KernelEmitter(program)
        em.split, em.register_tiles = full_tiles, tiles
        parts.append(em.kernel(k))
    return "\n".join(parts)


def _run(program, source: str, flags, sizes, arrays):
    path, _, _ = build.compile_shared(source, flags)
    mod = build.load_shared(program, path)
    work = {k: x.copy() for k, x in arrays.items()}
    mod.run("matmul", sizes, work)
    return work["c"]


def _host_has(flag: str) -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return flag in f.read().split()
    except OSError:
        return False


@pytest.mark.parametrize("prec,op,extra,flags", [
    ("f32", "+", "", ""),
    ("f32", "+", "", "-march=native"),
    ("f64", "-", " + a[i, k]", "-march=native"),
    ("f32", "+", "", "-mavx2"),
])
def test_register_tile_is_bitwise_the_plain_loops(prec, op, extra, flags):
    if flags == "-mavx2" and not _host_has("avx2"):
        pytest.skip("the host has no AVX2")
    program = scheduled(parse_text(_source(prec, op, extra)))
    tiled = emit_c(program, split=full_tiles)
    assert "register tile: c_acc 3x32" in tiled  # SSE: 2 panels of 3x16
    sizes = {"N": 7, "M": 37, "K": 21}  # remainders in every split: full and partial tiles run
    arrays = random_inputs(program, ["matmul"], sizes, seed=3)
    a = arrays["a"]
    a.flat[::7] = np.array([np.nan, -0.0, np.inf, -np.inf, 1e-45], dtype=a.dtype)[np.arange(a.flat[::7].size) % 5]
    fl = build.flags_for(None, flags)
    got = _run(program, tiled, fl, sizes, arrays)
    want = _run(program, _emit(program, tiles=False), fl, sizes, arrays)
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_tile_variants_follow_the_isa_registers():
    program = scheduled(parse_text(_source(r=6, v=64)))
    source = emit_c(program, split=full_tiles)
    # 6x64 f32: 24 zmm under AVX-512; 12 ymm/xmm at a time (column panels) elsewhere
    assert "#if defined(__AVX512F__)" in source and "6x64 from column 0 in 24 vectors of 16" in source
    assert "6x16 from column 48 in 12 vectors of 8" in source and "6x8 from column 56 in 12 vectors of 4" in source
    tall = emit_c(scheduled(parse_text(_source(r=16, v=16))), split=full_tiles)
    # 16 rows: one zmm each under AVX-512; more rows than ymm/xmm registers: the plain loops
    assert "16x16 from column 0 in 16 vectors of 16" in tall and "vectors of 8" not in tall
    assert "#elif defined(__AVX__)\n" + " " * 8 + "for (int64_t ki" in tall


def _tile_nest(program):
    """The k loop of the full-tile register nest of a scheduled program."""
    body = full_tiles(program, program.kernel("matmul").body)
    for n in ir.walk(body):
        if isinstance(n, ir.For) and n.var == "ki" and isinstance(n.hi, ir.Int):
            return n
    raise AssertionError("no full-tile ki loop")


def _with_stmt(loop, fn):
    return ir.rewrite(loop, lambda n: fn(n) if isinstance(n, ir.Assign) else None)


def test_match_tile_refuses_what_a_register_would_change():
    program = scheduled(parse_text(_source()))
    loop = _tile_nest(program)
    assert c_tile.match_tile(program, loop) is not None

    def value(e):
        return lambda s: dataclasses.replace(s, value=ir.BinOp("+", ir.Load(s.tensor, s.index), e))
    reads_acc = ir.Load("c_acc", (ir.Var("ii"), ir.Int(0)))
    strided = ir.Load("b", (ir.Var("ki"), ir.BinOp("*", ir.Int(2), ir.Var("ji"))))
    called = ir.BinOp("*", ir.Call("exp", (ir.Load("a", (ir.Var("ii"), ir.Var("ki"))),)),
                      ir.Load("b", (ir.Var("ki"), ir.Var("ji"))))
    for bad in (reads_acc, strided, ir.Var("ji"), called):
        assert c_tile.match_tile(program, _with_stmt(loop, value(bad))) is None, bad
    # the target cell moves with k, or rows share a last index: not one register per cell
    moving = _with_stmt(loop, lambda s: dataclasses.replace(
        s, index=(ir.Var("ki"), s.index[1]), value=dataclasses.replace(s.value, a=ir.Load(s.tensor, (ir.Var("ki"), s.index[1])))))
    assert c_tile.match_tile(program, moving) is None


def test_coefficient():
    i, j = ir.Var("i"), ir.Var("j")
    assert c_tile.coefficient(ir.BinOp("+", ir.BinOp("*", ir.Int(3), i), j), "i") == 3
    assert c_tile.coefficient(ir.BinOp("-", j, i), "i") == -1
    assert c_tile.coefficient(ir.BinOp("*", i, i), "i") is None
    assert c_tile.coefficient(j, "i") == 0


def test_zeroed_local_is_not_poisoned_and_locals_are_aligned():
    """A local whose first statement is its `zero` loses the all-ones fill (dead: the memset
    of the zero covers it); the others keep it; locals are 64-byte aligned."""
    from codegen.c import zeroed_first

    text = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
tensor z[N] f32 local
tensor u[N] f32 local
kernel k {
  zero z
  for i in 0 .. N {
    u[i] = x[i]
    z[i] += u[i]
  }
  for i in 0 .. N {
    y[i] = z[i]
  }
}
"""
    program = parse_text(text)
    assert zeroed_first(program.kernel("k").body) == {"z"}
    src = emit_c(program)
    assert "memset(u, 0xff" in src and "memset(z, 0xff" not in src and "memset(z, 0," in src
    assert "float *restrict z = (float *)(vs_ws + vs_o_z);" in src
    assert zeroed_first((ir.Zero("y"),) + program.kernel("k").body[1:] + (ir.Zero("u"),)) == {"y"}


def test_workspace_is_reused_grown_and_still_poisoned_on_every_call():
    """Large locals live in a per-thread workspace kept between calls (no allocation or fresh
    pages per call); a call with larger sizes grows it, and every call still fills a local
    that is not zeroed first with all-ones bits (a read before a write sees NaN each time)."""
    text = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
tensor u[N, 4096] f32 local
kernel k {
  for i in 0 .. N {
    y[i] = u[i, 1] + x[i]
  }
  for i in 0 .. N {
    u[i, 1] = x[i]
  }
}
"""
    program = parse_text(text)
    mod = build.load_c(program)
    assert "vs_ws_need > vs_ws_size" in mod.source
    for n in (2, 40, 3):  # 32 KiB, 640 KiB (grown), then reused
        x = np.arange(n, dtype=np.float32)
        y = np.zeros(n, dtype=np.float32)
        mod.run("k", {"N": n}, {"x": x, "y": y})
        assert np.isnan(y).all(), n


def test_rows_updating_the_same_cells_are_not_register_tiled():
    """Regression: rows of the tile that update the same cells (the row loop absent from the
    target's index) would each get their own register copy and the last store would win."""
    text = """
params K where K >= 1
tensor a[4, K] f32
tensor b[K, 16] f32
tensor c[1, 16] f32
kernel matmul {
  zero c
  for k in 0 .. K {
    for ii in 0 .. 4 {
      for ji in 0 .. 16 : vectorized {
        c[0, ji] += a[ii, k] * b[k, ji]
      }
    }
  }
}
"""
    program = parse_text(text)
    source = emit_c(program)
    # not 4 rows x 16 over k (4 register copies of one row); 1 x 16 over ii is right
    assert "register tile: c 4x16" not in source and "register tile: c 1x16" in source
    sizes = {"K": 5}
    arrays = random_inputs(program, ["matmul"], sizes, seed=1)
    got = _run(program, source, build.FLAGS, sizes, arrays)
    want = _run(program, _emit(program, tiles=False), build.FLAGS, sizes, arrays)
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


NEST = """
params K where K >= 1
tensor a[{r}, K] {prec}
tensor b[K, {w}] {prec}
tensor c[{r}, {w}] {prec}
kernel matmul {{
  zero c
  for k in 0 .. K {{
    for ii in 0 .. {r} {{
      for ji in 0 .. {w} : vectorized {{
        c[ii, ji] {op}= {value}
      }}
    }}
  }}
}}
"""
VALUES = ("a[ii, k] * b[k, ji]", "b[k, ji] * a[ii, k] + b[k, ji]", "2.5 * b[k, ji] - a[ii, k] * (a[ii, k] - b[k, ji])")


@settings(max_examples=5, deadline=None)
@given(r=st.integers(1, 7), w=st.sampled_from([4, 8, 12, 16, 40, 64]), prec=st.sampled_from(["f32", "f64"]),
       op=st.sampled_from("+-"), value=st.sampled_from(VALUES), k=st.integers(1, 9), seed=st.integers(0, 99))
def test_register_tiles_match_the_plain_loops_on_drawn_nests(r, w, prec, op, value, k, seed):
    """Drawn tile shapes, types, updates and values (specials included): the register-tiled
    kernel and the plain one, compiled into one library, agree bit for bit."""
    from codegen.c import KernelEmitter

    program = parse_text(NEST.format(r=r, w=w, prec=prec, op=op, value=value))
    tiled = emit_c(program)
    em = KernelEmitter(program)
    plain = em.kernel(program.kernel("matmul")).replace("vs_matmul(", "vs_plain(")
    path, _, _ = build.compile_shared(tiled + "\n" + plain, build.flags_for(None, "-march=native"))
    sizes = {"K": k}
    arrays = random_inputs(program, ["matmul"], sizes, seed=seed)
    arrays["b"].flat[::5] = np.array([np.nan, -0.0, np.inf, -np.inf], dtype=arrays["b"].dtype)[
        np.arange(arrays["b"].flat[::5].size) % 4]
    out = []
    for symbol in ("vs_matmul", "vs_plain"):
        work = {name: x.copy() for name, x in arrays.items()}
        build.load_shared(program, path, {"matmul": symbol}).run("matmul", sizes, work)
        out.append(work["c"].view(np.uint8))
    assert np.array_equal(out[0], out[1])


JAMMED = """
params N, K where N >= 1, K >= 1
tensor a[N, K] {prec}
tensor b[K, {w}] {prec}
tensor c[N, {w}] {prec}
kernel matmul {{
  zero c
  for i in 0 .. N {{
    for k in 0 .. K {{
      for ji in 0 .. {w} : vectorized {{
        c[i, ji] {op}= {value}
      }}
    }}
  }}
}}
"""


@settings(max_examples=5, deadline=None)
@given(n=st.integers(1, 11), w=st.sampled_from([4, 16, 48, 64, 128]), prec=st.sampled_from(["f32", "f64"]),
       op=st.sampled_from("+-"), value=st.sampled_from([v.replace("ii", "i") for v in VALUES]),
       k=st.integers(1, 9), seed=st.integers(0, 99))
def test_jammed_rows_match_the_plain_loops_on_drawn_nests(n, w, prec, op, value, k, seed):
    """Unroll and jam (codegen.c_tile.match_jam): up to JAM iterations of the loop around a
    one-row tile run as one tile, the rest one row at a time; bitwise the plain loops."""
    from codegen.c import KernelEmitter

    program = parse_text(JAMMED.format(w=w, prec=prec, op=op, value=value))
    tiled = emit_c(program)
    assert "register tile" in tiled and ("i <= " in tiled or w * (1 + (prec == "f64")) > 64)  # jammed blocks
    plain = KernelEmitter(program).kernel(program.kernel("matmul")).replace("vs_matmul(", "vs_plain(")
    path, _, _ = build.compile_shared(tiled + "\n" + plain, build.flags_for(None, "-march=native"))
    sizes = {"N": n, "K": k}
    arrays = random_inputs(program, ["matmul"], sizes, seed=seed)
    arrays["a"].flat[::3] = np.array([np.nan, -0.0, np.inf], dtype=arrays["a"].dtype)[
        np.arange(arrays["a"].flat[::3].size) % 3]
    out = []
    for symbol in ("vs_matmul", "vs_plain"):
        work = {name: x.copy() for name, x in arrays.items()}
        build.load_shared(program, path, {"matmul": symbol}).run("matmul", sizes, work)
        out.append(work["c"].view(np.uint8))
    assert np.array_equal(out[0], out[1])


def test_jam_needs_rows_that_move_the_target():
    """No jam when the outer loop's iterations update the same cells or move the k bounds."""
    same = JAMMED.format(w=16, prec="f32", op="+", value="a[i, k] * b[k, ji]").replace("c[i, ji]", "c[0, ji]")
    assert "i <= " not in emit_c(parse_text(same))
    bounds = JAMMED.format(w=16, prec="f32", op="+", value="a[i, k] * b[k, ji]").replace(
        "for k in 0 .. K", "for k in 0 .. i + 1").replace("K >= 1", "K >= 1, K >= N")
    source = emit_c(parse_text(bounds))
    assert "i <= " not in source and "register tile" in source
