"""Winograd recognition: eligible nests are rewritten, near misses are 0 sites and
the op is then the identity; the rewrite is idempotent."""
from __future__ import annotations

import pytest

from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.ops import apply_op
from verified_sched.ops.winograd.apply import find_sites, rewrite_kernel
from verified_sched.fuzz.conv_programs import conv_source
from verified_sched.ops.schedule import Winograd
from verified_sched.analysis.wellformed import check_program


def _rewrite(src: str):
    p = parse_text(src)
    return p, apply_op(p, "conv", Winograd())


@pytest.mark.parametrize("layout", ["nhwc", "nchw"])
def test_eligible_layouts_are_rewritten(layout):
    p, q = _rewrite(conv_source(layout=layout))
    check_program(q)
    sites, _ = find_sites(p, "conv")
    assert len(sites) == 1
    body = q.kernel("conv").body
    # zero d, U, V, zero M, contraction, inverse, row strip, column strip
    assert len(body) == 8
    assert [t.memory for t in q.tensors[3:]] == ["local"] * 3


@pytest.mark.parametrize("kw, reason", [
    (dict(stride=2), "window"),
    (dict(dilation=2), "window"),
    (dict(offset=1), "window"),
    (dict(prec="f64"), "f64"),
    (dict(two_channel_axes=True), "reduction-channel"),
    (dict(perfect=False), "perfect"),
    (dict(window=5), "0..3"),
    (dict(constraints="OH <= 5", sizes={"OW": 1}), "extent"),
])
def test_near_misses_are_left_alone(kw, reason):
    src = conv_source(**kw)
    p, q = _rewrite(src)
    assert q is p  # the identity: the very same program
    sites, reasons = find_sites(p, "conv")
    assert sites == []
    assert any(reason in r for r in reasons), reasons


def test_symbolic_extent_not_provably_two():
    """OH >= 1 only: the extent may be 1, so the nest is not a site (decided, not assumed)."""
    src = conv_source().replace("OH >= 2", "OH >= 1")
    p, q = _rewrite(src)
    assert q is p
    assert any("not provably >= 2" in r for r in find_sites(p, "conv")[1])


def test_fixed_batch_index_and_loop_order():
    """A batch of one as a fixed index, and a nest whose loops are in another order."""
    src = conv_source(sizes={"N": 1}).replace("for n in 0 .. 1 {", "for n in 0 .. 1 {")
    src = src.replace("d[n, oh, ow, f] += a[n,", "d[0, oh, ow, f] += a[0,").replace(
        "  for n in 0 .. 1 {\n", "").replace("\n  }\n}", "\n}", 1)
    p = parse_text(src)
    assert len(find_sites(p, "conv")[0]) == 1
    q = apply_op(p, "conv", Winograd())
    check_program(q)


def test_idempotent():
    p, q = _rewrite(conv_source())
    r = apply_op(q, "conv", Winograd())
    assert r is q and r == q
    sites, reasons = find_sites(q, "conv")
    assert sites == [] and len(reasons) == 6


def test_even_constant_extents_have_no_strips():
    p, q = _rewrite(conv_source(sizes={"OH": 4, "OW": 6}))
    _, minted, _ = rewrite_kernel(p, "conv")
    assert minted[0].roles == ("U", "V", "zero", "contract", "inverse")
    p, q = _rewrite(conv_source(sizes={"OH": 5, "OW": 6}))
    assert rewrite_kernel(p, "conv")[1][0].roles[-1] == "row_strip"


def test_strip_loops_do_not_start_at_zero():
    p, q = _rewrite(conv_source())
    strips = q.kernel("conv").body[-2:]
    los = [[lp.lo for lp in ir.walk(s) if isinstance(lp, ir.For) and lp.lo != ir.Int(0)] for s in strips]
    assert all(len(x) == 1 for x in los)


@pytest.mark.parametrize("stmt", [
    "d[n, oh, ow, f] = a[n, oh + kh, ow + kw, c] * b[f, kh, kw, c] + d[n, oh, ow, f]",
    "d[n, oh, ow, f] = fma(b[f, kh, kw, c], a[n, kh + oh, kw + ow, c], d[n, oh, ow, f])",
])
def test_other_spellings_of_the_accumulation(stmt):
    src = conv_source().replace("d[n, oh, ow, f] += a[n, oh + kh, ow + kw, c] * b[f, kh, kw, c]", stmt)
    p, q = _rewrite(src)
    assert q is not p and len(find_sites(p, "conv")[0]) == 1
    check_program(q)


def test_other_loop_order_is_a_site():
    src = conv_source().replace("for n in 0 .. N {", "for TMP {").replace("for f in 0 .. F {", "for n in 0 .. N {")
    src = src.replace("for TMP {", "for f in 0 .. F {")
    p, q = _rewrite(src)
    assert len(find_sites(p, "conv")[0]) == 1
    check_program(q)


def test_two_sites_in_one_kernel():
    src = conv_source(schedule=False)
    nest = src[src.index("  for n in"):src.rindex("}")]
    src2 = src.replace("tensor d[", "tensor e[N, OH, OW, F] f32\ntensor d[")
    src2 = src2[:src2.rindex("}")] + "  zero e\n" + nest.replace("d[n, oh, ow, f]", "e[n, oh, ow, f]") + "}\n"
    src2 += "\nschedule conv {\n  winograd\n}\n"
    p, q = _rewrite(src2)
    assert len(find_sites(p, "conv")[0]) == 2
    check_program(q)
    assert len({t.name for t in q.tensors}) == len(q.tensors) == 3 + 1 + 6
    from verified_sched.verify.discharge import discharge
    from verified_sched.ops.winograd.proofs import winograd_goals
    res = discharge(winograd_goals(p, q, "conv"), float("inf"))
    assert [r.status for r in res] == ["proved"] * len(res) and [r.kind for r in res].count("profile") == 2


def test_printed_rewrite_reparses_to_the_same_statements():
    from verified_sched.core.printer import print_program

    p, q = _rewrite(conv_source())
    r = parse_text(print_program(q))
    assigns = lambda prog: [(a.tensor, a.index, a.value) for a in ir.walk(prog.kernel("conv").body)  # noqa: E731
                            if isinstance(a, ir.Assign)]
    assert assigns(r) == assigns(q) and r.tensors == q.tensors
    assert find_sites(r, "conv")[0] == []
