"""Winograd numerics: the rewritten kernel against the direct one, in C and in the
interpreter, at odd and even output extents; bitwise on small integers (within the exactness
bound), within the documented tolerance on random inputs."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.build import load_c
from verified_sched.oracle.compare import compare_kernels, random_inputs
from verified_sched.dsl import parse_file, parse_text
from verified_sched.interp.interpreter import run_kernel
from verified_sched.ops import apply_op
from verified_sched.ops.winograd.apply import random_atol
from verified_sched.fuzz.conv_programs import conv_source
from verified_sched.verify.discharge import discharge
from verified_sched.ops.winograd.proofs import winograd_goals
from verified_sched.ops.schedule import Winograd

SIZES = [dict(N=1, OH=2, OW=2, C=1, F=1), dict(N=1, OH=3, OW=5, C=3, F=2),
         dict(N=2, OH=4, OW=7, C=2, F=3), dict(N=1, OH=6, OW=4, C=5, F=2),
         dict(N=1, OH=9, OW=9, C=4, F=3)]


@pytest.fixture(scope="module")
def odd(cases_dir):
    p = parse_file(str(cases_dir / "winograd_odd.vs"))
    return p, apply_op(p, "conv", Winograd())


@pytest.mark.parametrize("sizes", SIZES, ids=lambda s: f"{s['OH']}x{s['OW']}")
def test_small_int_bitwise_in_c(odd, sizes):
    p, q = odd
    rep = compare_kernels(p, "conv", "conv", sizes, seed=3, inputs="small-int", program_cand=q)
    assert rep.ok, rep.text()


@pytest.mark.parametrize("sizes", SIZES, ids=lambda s: f"{s['OH']}x{s['OW']}")
def test_random_within_tolerance_in_c(odd, sizes):
    p, q = odd
    exact = compare_kernels(p, "conv", "conv", sizes, seed=5, program_cand=q)
    assert not exact.vacuous
    rep = compare_kernels(p, "conv", "conv", sizes, seed=5, program_cand=q, rtol=0.0,
                          atol=random_atol(sizes["C"]))
    assert rep.ok, rep.text()


@pytest.mark.parametrize("sizes", [dict(N=1, OH=3, OW=2, C=2, F=2), dict(N=1, OH=4, OW=5, C=1, F=2)])
def test_interpreter_agrees_bitwise(odd, sizes):
    p, q = odd
    arrays = random_inputs(p, ["conv"], sizes, seed=7, mode="small-int")
    arrays["d"][...] = np.nan  # poison: every output cell must be written
    ref = {k: v.copy() for k, v in arrays.items()}
    got = {k: v.copy() for k, v in arrays.items()}
    run_kernel(p, "conv", sizes, ref)
    run_kernel(q, "conv", sizes, got)
    assert np.isfinite(ref["d"]).all() and np.abs(ref["d"]).max() > 0
    assert np.array_equal(ref["d"].view(np.uint32), got["d"].view(np.uint32))
    cgot = {k: v.copy() for k, v in arrays.items()}
    load_c(q).run("conv", sizes, cgot)
    assert np.array_equal(cgot["d"].view(np.uint32), got["d"].view(np.uint32))


def test_accumulates_into_prior_contents(odd):
    """The inverse transform accumulates: d's prior contents keep their meaning."""
    p, q = odd
    sizes = dict(N=1, OH=5, OW=4, C=2, F=2)
    src = p.kernel("conv")
    import dataclasses
    p2 = p.with_kernel(dataclasses.replace(src, body=src.body[1:]))  # drop `zero d`
    q2 = apply_op(p2, "conv", Winograd())
    arrays = random_inputs(p2, ["conv"], sizes, seed=1, mode="small-int")
    ref = {k: v.copy() for k, v in arrays.items()}
    got = {k: v.copy() for k, v in arrays.items()}
    load_c(p2).run("conv", sizes, ref)
    load_c(q2).run("conv", sizes, got)
    assert np.array_equal(ref["d"], got["d"]) and np.abs(arrays["d"]).max() > 0


@st.composite
def convolutions(draw):
    layout = draw(st.sampled_from(["nhwc", "nchw"]))
    fixed = draw(st.dictionaries(st.sampled_from(["N", "OH", "OW", "C", "F"]), st.integers(2, 5), max_size=2))
    sizes = {"N": draw(st.integers(1, 2)), "OH": draw(st.integers(2, 7)), "OW": draw(st.integers(2, 7)),
             "C": draw(st.integers(1, 4)), "F": draw(st.integers(1, 3))}
    sizes.update(fixed)
    return layout, fixed, {k: v for k, v in sizes.items() if k not in fixed}, draw(st.integers(0, 99))


@settings(max_examples=4)
@given(convolutions())
def test_random_eligible_convolutions_legal_and_close(case):
    layout, fixed, sizes, seed = case
    p = parse_text(conv_source(layout=layout, sizes=fixed))
    q = apply_op(p, "conv", Winograd())
    res = discharge(winograd_goals(p, q, "conv", timeout=10.0), float("inf"))
    assert all(r.status == "proved" for r in res), [(r.kind, r.message) for r in res if r.status != "proved"]
    assert [r.kind for r in res].count("profile") == 1  # one site
    channels = {**fixed, **sizes}["C"]
    rep = compare_kernels(p, "conv", "conv", sizes, seed=seed, program_cand=q, rtol=0.0,
                          atol=random_atol(channels))
    assert rep.ok, rep.text()
    bits = compare_kernels(p, "conv", "conv", sizes, seed=seed, inputs="small-int", program_cand=q)
    assert bits.ok, bits.text()


@pytest.mark.parametrize("size", ["N=1,OH=5,OW=7,C=3,F=2", "N=2,OH=6,OW=4,C=2,F=3"])
def test_vsched_run_small_int_is_bitwise(cases_dir, capsys, size):
    from verified_sched.cli import main

    rc = main(["run", str(cases_dir / "winograd_odd.vs"), "--size", size, "--inputs", "small-int"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "max abs error 0," in out and "equal on" in out
