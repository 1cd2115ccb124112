"""Issue 9 item 5: tensor cores under the reproducible profile.

A tensorize whose block the CUDA backend renders as WMMA (f16/bf16 x f32, 16-multiple shape,
a one-warp lane loop) has an unspecified summation order: under `reproducible` it is refuted
(kind `profile`); a block that no backend renders as an intrinsic (f32 operands) runs the
exact fallback and stays legal. Under `default` the WMMA block is legal and reported as
reassociating (so `vsched run` compares within tolerance). Regression: the WMMA block was
reported "no reduction reordered" and legal under reproducible.
"""
from __future__ import annotations

import pytest

from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program

from test_tensorize_mma import matmul


def _kernel_report(text: str, profile: str):
    reports = verify_program(parse_text(text, "tc.vs"), profile=profile, timeout=60.0)
    return next(r for r in reports if any(o.op.startswith("tensorize") for o in r.obligations))


def test_wmma_block_is_refused_under_reproducible():
    rep = _kernel_report(matmul(ab="f16"), "reproducible")
    prof = [o for o in rep.obligations if o.kind == "profile"]
    assert [o.status for o in prof] == ["refuted"], [o.to_json() for o in rep.obligations]
    assert "WMMA" in prof[0].message and prof[0].counterexample.to_json()["backend"] == "cuda"
    assert prof[0].counterexample.sizes  # sizes satisfying the constraints
    assert rep.verdict == "illegal"


@pytest.mark.parametrize("profile", ["reproducible", "default"])
def test_exact_fallback_block_stays_legal(profile):
    rep = _kernel_report(matmul(ab="f32"), profile)
    assert rep.verdict == "legal", [o.to_json() for o in rep.obligations if o.status != "proved"]
    assert not rep.reassociates


def test_wmma_block_is_a_licensed_reassociation_under_default():
    rep = _kernel_report(matmul(ab="bf16"), "default")
    assert rep.verdict == "legal" and rep.reassociates
    prof = next(o for o in rep.obligations if o.kind == "profile")
    assert "allowed by the default profile" in prof.message
