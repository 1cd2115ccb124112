"""Guard-free full tiles at emission (verified_sched/analysis/full_tiles.py, issue 25 item 1,
passed to the C backend as `split`): the remainder guard of a split leaves the vectorized and
innermost loops, only where isl proves it."""
from __future__ import annotations

import functools

import numpy as np
from hypothesis import given, settings, strategies as st

from codegen import build
from codegen.c import emit_c
from verified_sched.analysis import full_tiles
from verified_sched.oracle.compare import random_inputs
from support.scheduling import scheduled
from verified_sched.core import ir
from verified_sched.dsl import parse_text

MATMUL = """
params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
kernel matmul {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}
schedule matmul {
  split i by 4 -> io, ii
  split j by 16 -> jo, ji
  interchange ii, jo
  interchange ji, k
  interchange ii, k
  retype ii as unrolled
  retype ji as vectorized
}
"""


@functools.cache
def _program():
    return scheduled(parse_text(MATMUL))


def _simd_bodies(source: str) -> list:
    """The text of each `#pragma omp simd` loop's body (up to its closing brace)."""
    lines, out = source.splitlines(), []
    for n, line in enumerate(lines):
        if "#pragma omp simd" in line:
            indent = len(lines[n + 1]) - len(lines[n + 1].lstrip())
            body = []
            for inner in lines[n + 2:]:
                if len(inner) - len(inner.lstrip()) <= indent:
                    break
                body.append(inner)
            out.append("\n".join(body))
    return out


def test_remainder_guard_leaves_the_vectorized_loop():
    source = emit_c(_program(), split=full_tiles.full_tiles)
    bodies = _simd_bodies(source)
    assert bodies and all("if (" not in b for b in bodies)
    guarded = emit_c(_program())
    assert all("if (" in b for b in _simd_bodies(guarded))


def test_no_guard_no_isl_work():
    program = parse_text(MATMUL.split("schedule")[0])
    before = dict(full_tiles.STATS)
    body = program.kernel("matmul").body
    assert full_tiles.full_tiles(program, body) is body
    assert full_tiles.STATS == before


def test_a_wrong_cut_is_not_trusted(monkeypatch):
    """The cut points are derived, then proved: a cut one tile too far leaves the guard in the
    middle piece, so nothing is split and the guarded form is emitted."""
    real = full_tiles._cut

    def too_far(form, x, inner):
        cut = real(form, x, inner)
        if cut is None:
            return None
        kind, e = cut
        return kind, ir.BinOp("+", e, ir.Int(1)) if kind == "upper" else ir.BinOp("-", e, ir.Int(1))

    monkeypatch.setattr(full_tiles, "_cut", too_far)
    assert emit_c(_program(), split=full_tiles.full_tiles) == emit_c(_program())


def test_lower_and_upper_guards_padding_stencil():
    """A guard on both sides (a zero-padded window): three pieces, the middle one guard-free."""
    text = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel blur {
  for i in 0 .. N {
    for r in 0 .. 3 {
      if i + r - 1 >= 0 and i + r - 1 < N {
        y[i] += x[i + r - 1]
      }
    }
  }
}
"""
    program = parse_text(text)
    body = full_tiles.full_tiles(program, program.kernel("blur").body)
    loops = [s for s in body if isinstance(s, ir.For)]
    assert len(loops) == 3
    assert not any(isinstance(n, ir.If) for n in ir.walk(loops[1]))


_MODULES = {}


def _modules():
    if not _MODULES:
        program = _program()
        for name, fast in (("full", True), ("guarded", False)):
            path, _, _ = build.compile_shared(emit_c(program, split=full_tiles.full_tiles if fast else None))
            _MODULES[name] = build.load_shared(program, path)
    return _MODULES


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 23), st.integers(1, 40), st.integers(1, 5))
def test_full_tiles_run_bitwise_equal_to_the_guarded_form(n, m, k):
    mods, program = _modules(), _program()
    sizes = {"N": n, "M": m, "K": k}
    outs = []
    for name in ("full", "guarded"):
        arrays = random_inputs(program, ["matmul"], sizes, seed=n * 1000 + m * 10 + k)
        mods[name].run("matmul", sizes, arrays)
        outs.append(arrays["c"].view(np.uint32).copy())
    assert np.array_equal(*outs)
