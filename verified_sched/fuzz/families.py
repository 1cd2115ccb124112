"""Kernel families for the fuzzer: small programs, written in the DSL, whose shape makes the
structural ops applicable (a reduction for privatize/split_reduction, a matmul for tensorize
and stage, a second nest for fuse_epilogue, a convolution for winograd, hand-written GPU
kernels with blocks, threads, shared tiles and barriers). Each is drawn with random extents,
constraints, padding, precisions, guards and bodies, so it stays small and shrinks well.

`family_programs(shapes)` draws one of them (plus "random": `kernels.programs`, arbitrary
nests with quasi-affine and min/max indices and guards). Every access is in bounds for every
size the constraints admit.
"""
from __future__ import annotations

from hypothesis import strategies as st

from ..core import ir
from ..dsl import parse_text
from .conv_programs import conv_source
from .kernels import programs
from ..ops.fuzz_names import SHAPES



def _pad(draw) -> str:
    p = draw(st.sampled_from((0, 0, 0, 1, 3)))
    return f" pad(0, {p})" if p else ""


def _prec(draw) -> str:
    return draw(st.sampled_from(("f32", "f32", "f32", "f64")))


def _lower(draw) -> int:
    return draw(st.sampled_from((1, 1, 1, 2)))


@st.composite
def matmul_text(draw) -> str:
    """c[i, j] (+= | max=) a[i, k] * b[k, j], optionally guarded, with or without `zero c`."""
    prec = _prec(draw)
    lo = _lower(draw)
    acc = draw(st.sampled_from(("+", "+", "max")))
    term = draw(st.sampled_from(("a[i, k] * b[k, j]", "a[i, k] + b[k, j]", "a[i, k] * 2")))
    upd = f"c[i, j] += {term}" if acc == "+" else f"c[i, j] = max(c[i, j], {term})"
    guard = draw(st.sampled_from(("", "", "", "k < K - 1", "i + j < N", "a[i, k] > 0")))
    if guard:
        upd = f"if {guard} {{ {upd} }}"
    zero = "zero c\n  " if draw(st.booleans()) else ""
    return (f"params N, M, K where N >= {lo}, M >= 1, K >= {lo}\n"
            f"tensor a[N, K] {prec}\ntensor b[K, M] {prec}\ntensor c[N, M] {prec}{_pad(draw)}\n"
            f"kernel mm {{\n  {zero}for i in 0 .. N {{\n    for j in 0 .. M {{\n      for k in 0 .. K {{\n"
            f"        {upd}\n      }}\n    }}\n  }}\n}}\n")


@st.composite
def reduction_text(draw) -> str:
    """A row reduction s[i] op= f(x[i, k]) (or a full one into s[0])."""
    prec = _prec(draw)
    op = draw(st.sampled_from(("+", "+", "*", "max", "min")))
    term = draw(st.sampled_from(("x[i, k]", "x[i, k] * x[i, k]", "abs(x[i, k])")))
    cell = draw(st.sampled_from(("i", "i", "0")))
    upd = {"+": f"s[{cell}] += {term}", "*": f"s[{cell}] = s[{cell}] * ({term})",
           "max": f"s[{cell}] = max(s[{cell}], {term})", "min": f"s[{cell}] = min(s[{cell}], {term})"}[op]
    zero = "zero s\n  " if draw(st.booleans()) else ""
    return (f"params N, K where N >= 1, K >= {_lower(draw)}\n"
            f"tensor x[N, K] {prec}\ntensor s[N] {prec}{_pad(draw).replace('0, ', '')}\n"
            f"kernel red {{\n  {zero}for i in 0 .. N {{\n    for k in 0 .. K {{\n      {upd}\n    }}\n  }}\n}}\n")


@st.composite
def stencil_text(draw) -> str:
    """Stencils and recurrences: carried dependences that make interchange and parallel
    retypes illegal in one direction."""
    kind = draw(st.sampled_from(("stencil", "recurrence", "inplace")))
    if kind == "stencil":
        body = draw(st.sampled_from(("y[i, j] = x[i, j + 1] + 0.5 * x[i + 1, j]",
                                     "y[i, j] = x[i + 1, j + 1] - x[i, j]")))
        return (f"params N, M where N >= 1, M >= 1\ntensor x[N + 1, M + 2] f32\ntensor y[N, M] f32{_pad(draw)}\n"
                f"kernel st {{\n  for i in 0 .. N {{\n    for j in 0 .. M {{\n      {body}\n    }}\n  }}\n}}\n")
    if kind == "recurrence":
        body = draw(st.sampled_from(("y[i + 1, j] = y[i, j + 1] * 0.5 + x[i, j]", "y[i + 1, j] = y[i, j] + x[i, j]",
                                     "y[i + 1, j] = y[i, j + 1] - y[i, j]")))
        return (f"params N, M where N >= 2, M >= 1\ntensor x[N, M] f32\ntensor y[N, M + 1] f32\n"
                f"kernel st {{\n  for i in 0 .. N - 1 {{\n    for j in 0 .. M {{\n      {body}\n    }}\n  }}\n}}\n")
    return ("params N, M where N >= 1, M >= 2\ntensor y[N + 1, M] f32\n"
            "kernel st {\n  for i in 0 .. N {\n    for j in 1 .. M {\n      y[i + 1, j] = y[i, j - 1] + y[i + 1, j]\n"
            "    }\n  }\n}\n")


@st.composite
def epilogue_text(draw) -> str:
    """A matmul followed by an elementwise nest over its result (fuse_epilogue)."""
    body = draw(st.sampled_from(("max(c[i, j] + bias[j], 0)", "c[i, j] * 2", "c[i, j] - c[i, 0]",
                                 "c[N - 1, j] + bias[j]")))
    return ("params N, M, K where N >= 1, M >= 1, K >= 1\ntensor a[N, K] f32\ntensor b[K, M] f32\n"
            f"tensor bias[M] f32\ntensor c[N, M] f32\ntensor y[N, M] f32{_pad(draw)}\n"
            "kernel dense {\n  zero c\n  for i in 0 .. N {\n    for j in 0 .. M {\n      for k in 0 .. K {\n"
            "        c[i, j] += a[i, k] * b[k, j]\n      }\n    }\n  }\n"
            f"  for i in 0 .. N {{\n    for j in 0 .. M {{\n      y[i, j] = {body}\n    }}\n  }}\n}}\n")


@st.composite
def tiled_text(draw) -> str:
    """A matmul whose extents are multiples of a tile T (tensorize, stage over tiles)."""
    t = draw(st.sampled_from((4, 8, 16, 16)))
    prec = draw(st.sampled_from(("f32", "f32", "f64")))
    return (f"params TN, TM, TK where TN >= 1, TM >= 1, TK >= 1\n"
            f"tensor a[{t} * TN, {t} * TK] {prec}\ntensor b[{t} * TK, {t} * TM] {prec}\n"
            f"tensor c[{t} * TN, {t} * TM] {prec}\n"
            f"kernel mm {{\n  zero c\n  for i in 0 .. {t} * TN {{\n    for j in 0 .. {t} * TM {{\n"
            f"      for k in 0 .. {t} * TK {{\n        c[i, j] += a[i, k] * b[k, j]\n      }}\n    }}\n  }}\n}}\n")


@st.composite
def gpu_text(draw) -> str:
    """Hand-written GPU kernels: blocks and threads, a shared tile written then read by other
    threads (with or without the barrier between), or an elementwise grid."""
    w = draw(st.sampled_from((4, 8, 16)))
    kind = draw(st.sampled_from(("shift", "shift", "grid", "rowsum")))
    if kind == "shift":
        barrier = "    barrier\n" if draw(st.integers(0, 4)) else ""
        off = draw(st.sampled_from((1, 1, 0)))
        return (f"params B where B >= 1\ntensor x[B, {w}] f32\ntensor y[B, {w}] f32\n"
                f"tensor t[{w}] f32 shared\n"
                f"kernel g {{\n  for b in 0 .. B : block.x {{\n    for i in 0 .. {w} : thread.x {{\n"
                f"      t[i] = x[b, i] * 2\n    }}\n{barrier}"
                f"    for i in 0 .. {w - off} : thread.x {{\n      y[b, i] = t[i + {off}]\n    }}\n  }}\n}}\n")
    if kind == "grid":
        body = draw(st.sampled_from(("y[b, i] = x[b, i] + 1", "y[b, i] = max(x[b, i], 0) * 2")))
        return (f"params B where B >= 1\ntensor x[B, {w}] f32\ntensor y[B, {w}] f32\n"
                f"kernel g {{\n  for b in 0 .. B : block.x {{\n    for i in 0 .. {w} : thread.x {{\n"
                f"      {body}\n    }}\n  }}\n}}\n")
    return (f"params B, K where B >= 1, K >= 1\ntensor x[B, {w}, K] f32\ntensor y[B, {w}] f32\n"
            f"kernel g {{\n  for b in 0 .. B : block.x {{\n    for i in 0 .. {w} : thread.x {{\n"
            f"      y[b, i] = 0\n      for k in 0 .. K {{\n        y[b, i] += x[b, i, k]\n      }}\n    }}\n  }}\n}}\n")


@st.composite
def conv_text(draw) -> str:
    """A 3x3 convolution (winograd sites, and near misses: stride 2, dilation 2)."""
    variant = draw(st.sampled_from(("plain", "plain", "plain", "stride", "nchw")))
    kw = {"stride": 2} if variant == "stride" else {"layout": "nchw"} if variant == "nchw" else {}
    sizes = {"N": 1, "C": draw(st.sampled_from((1, 2))), "F": draw(st.sampled_from((1, 2)))}
    text = conv_source(profile="approximate", sizes=sizes, schedule=False, **kw)
    return text


TEXTS = {"matmul": matmul_text, "reduction": reduction_text, "stencil": stencil_text,
         "epilogue": epilogue_text, "tiled": tiled_text, "gpu": gpu_text, "conv": conv_text}


@st.composite
def family_programs(draw, shapes: tuple = SHAPES, max_loops: int = 3) -> ir.Program:
    """One program (no schedule) of a family in `shapes` (see SHAPES)."""
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown or not shapes:
        raise ValueError(f"unknown kernel shape(s) {unknown} (known: {', '.join(SHAPES)})")
    shape = draw(st.sampled_from(tuple(shapes)))
    if shape == "random":
        return draw(programs(max_tensors=2, max_loops=max_loops, parallel=False, data_guards=False,
                             precisions=("f32",), pad=True))
    return parsed(draw(TEXTS[shape]()), f"<fuzz {shape}>")


PARSED_LIMIT = 256  # texts kept; the memo starts afresh past it
_PARSED: dict = {}


def parsed(text: str, name: str) -> ir.Program:
    """`parse_text(text, name)`, parsed once per text: the families draw few parameters, so a
    batch draws the same text again and again (49 distinct of 118 in seed 777's first 120
    examples). Programs are frozen values, so handing the same one out again is the same as
    parsing it again (a parse error is raised again, never kept). Plain dict operations only:
    batches running in threads of one process (a dask worker) may share it."""
    key = (text, name)
    hit = _PARSED.get(key)
    if hit is None:
        if len(_PARSED) >= PARSED_LIMIT:
            _PARSED.clear()
        hit = _PARSED[key] = parse_text(text, name)
    return hit
