"""`winograd block`: the blocked form (one row of tiles at a time) is proved by the op's own
goals, computes what the direct form computes (C and the interpreter), and a wrong blocked
form is refused (each goal on a broken nest)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.build import load_c
from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.fuzz.conv_programs import conv_source
from verified_sched.interp.interpreter import run_kernel
from verified_sched.ops import apply_op
from verified_sched.ops.schedule import Winograd
from verified_sched.ops.winograd.apply import random_atol, rewrite_kernel
from verified_sched.ops.winograd.blocked import region
from verified_sched.ops.winograd.independence import copy_decided, vector_loops_independent
from verified_sched.ops.winograd.identity import identity_goals
from verified_sched.ops.winograd.proofs import coverage, winograd_goals
from verified_sched.oracle.compare import compare_kernels, random_inputs
from verified_sched.verify.discharge import answer, discharge


def _blocked(layout="nhwc", sizes=None):
    p = parse_text(conv_source(layout=layout, sizes=sizes))
    q, minted, _ = rewrite_kernel(p, "conv", block=True)
    m = minted[0]
    return p, q, m


def _statuses(goals):
    return [(r.kind, r.status, r.message) for r in discharge(goals, float("inf"))]


def test_syntax_round_trip():
    p = parse_text(conv_source().replace("  winograd\n", "  winograd block\n"))
    op = p.schedule_for("conv").ops[0]
    assert op == Winograd(block=True) and op.text() == "winograd block"
    assert Winograd().text() == "winograd"


@pytest.mark.parametrize("layout", ["nhwc", "nchw"])
def test_blocked_form_proved_for_all_sizes(layout):
    p, q, m = _blocked(layout)
    assert m.roles[:3] == ("weights", "U", "block") and m.row is not None
    res = _statuses(winograd_goals(p, q, "conv", timeout=10.0, block=True))
    assert all(s == "proved" for _, s, _ in res), [r for r in res if r[1] != "proved"]
    kinds = [k for k, _, _ in res]
    assert kinds.count("independence") == 1 and kinds.count("equivalence") == 5  # 4 positions + the copy
    # V and M hold one row of tiles: one axis fewer than the unblocked form's
    q0, m0, _ = rewrite_kernel(p, "conv")
    assert q.tensor(m.V).rank == q0.tensor(m0[0].V).rank - 1 and q.tensor(m.M).rank == q0.tensor(m0[0].M).rank - 1


def test_unblocked_rewrite_is_unchanged_by_the_option():
    p = parse_text(conv_source())
    assert apply_op(p, "conv", Winograd()) == rewrite_kernel(p, "conv")[0]
    assert apply_op(p, "conv", Winograd(block=True)) != apply_op(p, "conv", Winograd())


def test_cli_verify_block_is_legal(tmp_path, capsys):
    from verified_sched.cli import main

    f = tmp_path / "blk.vs"
    f.write_text(conv_source(sizes={"N": 1, "C": 2, "F": 2}).replace("  winograd\n", "  winograd block\n"))
    assert main(["verify", str(f)]) == 0
    out = capsys.readouterr().out
    assert "winograd block" in out and "independence" in out


SIZES = [dict(N=1, OH=2, OW=2, C=1, F=1), dict(N=1, OH=3, OW=5, C=3, F=2), dict(N=2, OH=4, OW=7, C=2, F=3)]


@pytest.mark.parametrize("sizes", SIZES, ids=lambda s: f"{s['OH']}x{s['OW']}")
def test_blocked_small_int_bitwise_and_random_close_in_c(sizes):
    p = parse_text(conv_source())
    q = apply_op(p, "conv", Winograd(block=True))
    rep = compare_kernels(p, "conv", "conv", sizes, seed=3, inputs="small-int", program_cand=q)
    assert rep.ok, rep.text()
    rep = compare_kernels(p, "conv", "conv", sizes, seed=5, program_cand=q, rtol=0.0, atol=random_atol(sizes["C"]))
    assert rep.ok, rep.text()


def test_blocked_interpreter_agrees_bitwise_with_c():
    p = parse_text(conv_source(layout="nchw"))
    q = apply_op(p, "conv", Winograd(block=True))
    sizes = dict(N=1, OH=5, OW=4, C=2, F=3)
    arrays = random_inputs(p, ["conv"], sizes, seed=7, mode="small-int")
    arrays["d"][...] = np.nan  # poison: every output cell must be written
    ref, got, cgot = ({k: v.copy() for k, v in arrays.items()} for _ in range(3))
    run_kernel(p, "conv", sizes, ref)
    run_kernel(q, "conv", sizes, got)
    load_c(q).run("conv", sizes, cgot)
    assert np.array_equal(ref["d"].view(np.uint32), got["d"].view(np.uint32))
    assert np.array_equal(cgot["d"].view(np.uint32), got["d"].view(np.uint32))


@settings(max_examples=3, deadline=None)
@given(st.sampled_from(["nhwc", "nchw"]), st.integers(2, 6), st.integers(2, 6), st.integers(0, 9))
def test_random_blocked_convolutions_match_the_direct_form(layout, oh, ow, seed):
    p = parse_text(conv_source(layout=layout))
    q = apply_op(p, "conv", Winograd(block=True))
    sizes = dict(N=1, OH=oh, OW=ow, C=2, F=2)
    bits = compare_kernels(p, "conv", "conv", sizes, seed=seed, inputs="small-int", program_cand=q)
    assert bits.ok, bits.text()


# ---------------------------------------------------------------- wrong blocked forms are refused


def _broken(fn):
    """(p, q, m, region dict with the block statement) after `fn` rewrote the block loop."""
    p, q, m = _blocked()
    body = list(q.kernel("conv").body)
    i = m.start + m.roles.index("block")
    body[i] = fn(body[i])
    q2 = q.with_kernel(dataclasses.replace(q.kernel("conv"), body=tuple(body)))
    reg, block = region(m, tuple(body))
    return p, q2, m, reg, block


def _identity(reg, block, m):
    return discharge(identity_goals({**dict(reg), "block": block}, m, 10.0), float("inf"))


def test_wrong_block_order_is_not_proved():
    """The output transform before the contraction reads M before it is computed."""
    p, q, m, reg, block = _broken(lambda b: dataclasses.replace(b, body=(b.body[0], b.body[1], b.body[3], b.body[2])))
    res = _identity(reg, block, m)
    assert [r.status for r in res] == ["unknown"] and "row loop" in res[0].message


def test_block_without_zeroing_m_is_not_proved():
    p, q, m, reg, block = _broken(lambda b: dataclasses.replace(b, body=(b.body[0], b.body[2], b.body[3])))
    res = _identity(reg, block, m)
    assert [r.status for r in res] == ["unknown"]


def test_block_with_input_transform_over_fewer_tiles_is_not_proved():
    """V must be written at every tile of the row the contraction reads (else a stale row)."""
    def fewer(b):
        v = b.body[0]
        tw = next(n for n in ir.walk(v) if isinstance(n, ir.For) and n.var.startswith("tw"))
        return dataclasses.replace(b, body=(ir.rewrite(v, lambda n: dataclasses.replace(
            tw, hi=ir.BinOp("-", tw.hi, ir.Int(1))) if n == tw else None),) + b.body[1:])
    p, q, m, reg, block = _broken(fewer)
    res = _identity(reg, block, m)
    assert [r.status for r in res] == ["unknown"] and "differs" in res[0].message


def test_block_with_a_wrong_coefficient_is_refuted():
    def wrong(b):
        inv = b.body[3]
        first = next(n for n in ir.walk(inv) if isinstance(n, ir.BinOp) and n.op == "-")
        return dataclasses.replace(b, body=b.body[:3] + (ir.rewrite(inv, lambda n: dataclasses.replace(
            first, op="+") if n == first else None),))
    p, q, m, reg, block = _broken(wrong)
    assert any(r.status == "refuted" for r in _identity(reg, block, m))


def test_block_rows_overlapping_the_strip_are_refuted():
    """Tile rows up to floor(OH / 2) + 1 write the last row twice (tiles and the row strip)."""
    p, q, m, reg, block = _broken(lambda b: dataclasses.replace(b, hi=ir.BinOp("+", b.hi, ir.Int(1))))
    res = answer(coverage(p, q, reg, m))
    assert res.status == "refuted"


def test_vectorized_reduction_loop_is_refuted():
    """Vectorizing the contraction's channel reduction: its iterations update one cell of M."""
    def vec_reduction(b):
        c = b.body[2]
        red = next(n for n in ir.walk(c) if isinstance(n, ir.For) and n.var.startswith("c_m"))
        return dataclasses.replace(b, body=b.body[:2] + (ir.rewrite(c, lambda n: dataclasses.replace(
            red, axis="vectorized") if n == red else None),) + b.body[3:])
    p, q, m, reg, block = _broken(vec_reduction)
    body = q.kernel("conv").body[m.start:m.start + len(m.roles)]
    res = answer(vector_loops_independent(q, list(body)))
    assert res.status == "refuted" and m.M in res.message


def test_partial_weight_copy_is_not_proved():
    p, q, m = _blocked()
    body = list(q.kernel("conv").body)
    copy = body[m.start]
    body[m.start] = dataclasses.replace(copy, hi=ir.BinOp("-", copy.hi, ir.Int(1)))
    reg, _ = region(m, tuple(body))
    res = answer(copy_decided(q, reg, m))
    assert res.status == "unknown" and "every cell" in res.message


def test_exactness_of_blocked_form_counts_the_row_loop_once():
    """Regression: M is zeroed in every iteration of the row loop, so the row loop is no
    reduction loop of M's partial sums (it was counted, refuting exactness at OH=228)."""
    from verified_sched.verify.driver import verify_program

    src = conv_source(inputs="a, b int in [-8, 8]", constraints="C <= 64")
    reports = verify_program(parse_text(src.replace("  winograd\n", "  winograd block\n")))
    exact = [o for o in reports[-1].obligations if o.kind == "exactness"]
    assert reports[-1].verdict == "legal" and [o.status for o in exact] == ["proved"]
    assert "C <= 809" in exact[0].message


def test_exactness_zero_under_an_if_does_not_restart_the_sums():
    """Regression (review of the zero-in-loop rule): a `zero` under an `if` may not run in an
    iteration, so the loops around it still count as reduction loops of the partial sums, and
    the values before it stay possible."""
    from fractions import Fraction

    from verified_sched.ops.winograd.exact import _Analysis

    prog = parse_text("params N where N >= 1\ntensor a[N] f32\ntensor m[1] f32\n"
                      "kernel k {\n  m[0] = a[0]\n}\n")
    r, k = ir.Var("r"), ir.Var("k")
    acc = ir.Assign("m", (ir.Int(0),), ir.BinOp("+", ir.Load("m", (ir.Int(0),)), ir.Load("a", (k,))))
    inner = ir.For("k", ir.Int(0), ir.Int(4), "serial", (acc,))

    def bound(zero):
        an = _Analysis(prog, [ir.InputRange(("a", "m"), Fraction(-1), Fraction(1))])
        an.collect = True
        an.stmt(ir.For("r", ir.Int(0), ir.Int(8), "serial", (zero, inner)))
        return max(sum(b.d().values()) for b, _ in an.reqs)

    plain = bound(ir.Zero("m"))
    guarded = bound(ir.If(ir.Cmp("<", r, ir.Int(3)), (ir.Zero("m"),), ()))
    assert plain < guarded  # the row loop counted only when the zero runs in every iteration
