"""stage apply: the staged nests (shared, packing, cooperative, swizzle, pad_stride,
pipeline, hoisted, prec) and the precondition failures naming op and argument."""
from __future__ import annotations

import pytest

from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.core.printer import print_program
from verified_sched.core.errors import ScheduleError

from test_stage_support import case, cpu, rowsum, scheduled


def _loads(program, kernel, tile):
    return [n for n in ir.walk(program.kernel(kernel).body) if isinstance(n, ir.Assign) and n.tensor == tile]


def test_shared_matmul_shape():
    p = scheduled(case("stage_shared_matmul"), "matmul")
    a, b = p.tensor("a_tile"), p.tensor("b_tile")
    assert (a.memory, a.dims, b.dims) == ("shared", (ir.Int(16), ir.Int(16)), (ir.Int(16), ir.Int(16)))
    k = p.kernel("matmul")
    ko = next(n for n in ir.walk(k.body) if isinstance(n, ir.For) and n.var == "ko")
    # both loads grouped in one phase, one barrier before the compute, one trailing
    kinds = [type(s).__name__ for s in ko.body]
    assert kinds == ["If", "If", "Barrier", "For", "Barrier"]
    # representative threads: a along thread.x (tj == 0), b along thread.y (ti == 0)
    assert ir.free_vars(ko.body[0].cond) == {"tj"} and ir.free_vars(ko.body[1].cond) == {"ti"}
    reads = {n.tensor for n in ir.walk(ko.body[3]) if isinstance(n, ir.Load)}
    assert reads == {"a_tile", "b_tile", "c"}
    # the edge guards fold (16 divides the extents): no zero-fill store remains
    assert all(s.sid == "L_a_tile" for s in _loads(p, "matmul", "a_tile"))


def test_printed_staged_program_is_a_text_fixpoint():
    for name in ("stage_shared_matmul", "stage_swizzle_matmul"):
        p = scheduled(case(name), "matmul")
        p = p.__class__(**{**p.__dict__, "schedules": ()})
        text = print_program(p)
        assert print_program(parse_text(text)) == text


def test_swizzle_changes_only_the_minor_index():
    plain = scheduled(case("stage_shared_matmul"), "matmul")
    sw = scheduled(case("stage_swizzle_matmul"), "matmul")
    (lp,), (ls,) = _loads(plain, "matmul", "a_tile"), _loads(sw, "matmul", "a_tile")
    assert lp.index[0] == ls.index[0] and lp.index[1] != ls.index[1]
    assert any(isinstance(n, ir.Mod) for n in ir.walk(ls.index[1]))


def test_cpu_packing_and_hoisted():
    p = scheduled(cpu(), "mm")
    bp, ap = p.tensor("b_pack"), p.tensor("a_pack")
    assert (bp.memory, bp.prec, ap.memory, ap.prec) == ("local", "f64", "local", "f32")
    assert len(ap.dims) == 4  # two outer coordinates, two tile axes
    k = p.kernel("mm")
    assert not any(isinstance(n, ir.Barrier) for n in ir.walk(k.body))
    first = k.body[0]  # the hoisted packing runs once, before everything
    assert {n.tensor for n in ir.walk(first) if isinstance(n, ir.Assign)} == {"a_pack"}
    assert ir.Load("a", ()) not in ir.walk(k.body[1:]) and not any(
        isinstance(n, ir.Load) and n.tensor == "a" for n in ir.walk(k.body[1:]))


def test_pipeline_structure():
    p = scheduled(rowsum("cooperative=8 pipeline=2"), "rowsum")
    t = p.tensor("x_tile")
    assert t.dims[0] == ir.Int(2)
    bi = p.kernel("rowsum").body[1]
    kinds = [type(s).__name__ for s in bi.body]
    assert kinds == ["For", "For", "Barrier"]  # prologue (lane loop), the rotor, trailing barrier
    assert bi.body[0].axis == "thread.x"
    rotor = bi.body[1]
    assert isinstance(rotor.body[0], ir.Barrier) and isinstance(rotor.body[1], ir.If)


@pytest.mark.parametrize("w, guard, chunks", [(8, False, False), (32, True, False), (4, False, True),
                                              (5, True, False)])
def test_cooperative_lane_folding(w, guard, chunks):
    p = scheduled(rowsum(f"cooperative={w}"), "rowsum")
    body = p.kernel("rowsum").body[1].body[0].body[0]  # bi > ko > lane loop
    assert body.axis == "thread.x" and body.hi == ir.Int(w)
    conds = [n for n in ir.walk(body) if isinstance(n, ir.If) and "x_tile_lane" in ir.free_vars(n.cond)]
    assert bool(conds) == guard
    loops = [n for n in ir.walk(body) if isinstance(n, ir.For) and n is not body]
    assert any(lp.hi == ir.Int(8 // w) for lp in loops) == chunks


def test_pad_stride_pads_the_minor_dim():
    p = scheduled(rowsum("pad_stride=3"), "rowsum")
    assert p.tensor("x_tile").pad == (0, 1)


BAD = [
    ("stage q over ii, ki -> t shared", "source 'q'"),
    ("stage x over ii, ki -> y shared", "tile 'y'"),
    ("stage x over ii, nope -> t shared", "over 'nope'"),
    ("stage x over ii, ki -> t prec=f16", "prec=f16"),
    ("stage x over ii, ki -> t cooperative=4", "cooperative: needs shared"),
    ("stage x over ii, ki -> t shared pipeline=2", "pipeline=2: needs cooperative"),
    ("stage x over ii, ki -> t shared pipeline=3 cooperative=4", "pipeline=3"),
    ("stage x over ii, ki -> t hoisted", "not declared constant"),
    ("stage x over ii, ki -> t swizzle=elem", "swizzle: needs shared"),
    ("stage x over ii, ki -> t shared pad_stride=1", "pad_stride=1"),
    ("stage x over bi, ki -> t shared", "over 'bi'"),
    ("stage x over ii, ki -> t shared swizzle=b128 pad_stride=3", "16-byte units"),
]


@pytest.mark.parametrize("line, words", BAD)
def test_preconditions(line, words):
    from test_stage_support import ROWSUM
    p = parse_text(ROWSUM.replace("stage x over ii, ki -> x_tile shared OPTS", line))
    with pytest.raises(ScheduleError) as e:
        scheduled(p, "rowsum")
    assert "stage" in e.value.message and words in e.value.message
    assert e.value.loc is not None and e.value.loc.line == 14


def test_tile_loop_enclosing_the_anchor_must_be_a_thread_loop():
    from test_stage_support import ROWSUM
    p = parse_text(ROWSUM.replace("interchange ii, ko\n", "").replace("OPTS", ""))
    with pytest.raises(ScheduleError, match="over 'ii'"):
        scheduled(p, "rowsum")


def test_source_written_in_the_kernel_is_refused():
    p = parse_text("""
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N { x[i] = 1.0 }
  for i2 in 0 .. N { y[i2] = x[i2] }
}
schedule k { stage x over i2 -> t }
""")
    with pytest.raises(ScheduleError, match="written"):
        scheduled(p, "k")
