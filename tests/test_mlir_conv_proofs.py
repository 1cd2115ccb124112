"""The torch-mlir (direct lowering) and iree-turbine lowerings of convolution backward
(committed fixtures) PROVED equal to the chain-rule reference by value: through the copies, transposes, pads, reshapes and strided
inserts of the lowering, dropping the terms that read cells known to hold 0 under the finite
profile the `--against torch-mlir` file declares. Needs only xdsl (the fixtures are the MLIR
torch-mlir wrote; tests/support/make_mlir_fixtures.py regenerates them)."""
from __future__ import annotations


import pytest

pytest.importorskip("xdsl")

from verified_sched.verify.driver import verify_claim  # noqa: E402
from test_mlir_import import CONVS, FRONTENDS, conv_program_refused  # noqa: E402


# every (configuration, gradient) of both frontends: torch-mlir 20261001's direct lowering
# (backend_legal_ops=["aten.convolution_backward"]) and iree-turbine 3.9.0 + IREE 3.13's torch
# input pipeline lower all of them correctly, grouped and depthwise included. (torch-mlir's
# default path mis-lowers grouped weight gradients: test_the_decomposed_grouped_weight_gradient_is_left_out.)
PROVED = [(name, grad) for name in CONVS for grad in ("input", "weight")]
# configurations that read no zero cell (1x1 without padding; pad0's weight gradient reads x
# unpadded): proved without the assumption
NO_ZEROS = {("1x1", "input"), ("1x1", "weight"), ("pad0", "weight")}


def conv_program(name: str, frontend: str = "torch-mlir"):
    return conv_program_refused(name, frontend)[0]


def torch_claim(program, grad: str, frontend: str = "torch-mlir"):
    stem = "turbine" if frontend == "iree-turbine" else "torch_mlir"
    return next(c for c in program.claims if c.a == f"{stem}_{grad}_grad")


def test_the_file_declares_the_finite_profile():
    program = conv_program("stride3")
    assert program.profile == "finite"


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("name, grad", PROVED)
def test_torch_mlir_lowering_is_proved_equal_to_the_chain_rule(name, grad, frontend):
    program = conv_program(name, frontend)
    rep = verify_claim(program, torch_claim(program, grad, frontend), program.profile, 120.0)
    assert rep.verdict == "legal", [(o.kind, o.status, o.message) for o in rep.obligations]
    eq = next(o for o in rep.obligations if o.kind == "equivalence")
    assert eq.engine == "isl" and "leave the same value in every observable cell" in eq.message
    assert ("assuming finite inputs" in eq.message) == ((name, grad) not in NO_ZEROS)


@pytest.mark.parametrize("profile", ["default", "reproducible"])
def test_without_the_finite_assumption_the_zero_terms_are_not_dropped(profile):
    """The stride-3 input gradient reads the gaps of a strided insert_slice and the pad zone:
    0 * w is NaN for an infinite w, so neither profile proves the claim."""
    program = conv_program("stride3")
    rep = verify_claim(program, torch_claim(program, "input"), profile, 120.0)
    assert rep.verdict != "legal"
    assert any("0 * w" in o.message for o in rep.obligations), [o.message for o in rep.obligations]


@pytest.mark.parametrize("name", ["seed_nhwc", "seed_nchw"])
def test_the_decomposed_grouped_weight_gradient_is_left_out(name):
    program = conv_program(name, "torch-mlir-decomposed")
    assert "torch_mlir_weight_grad" not in {k.name for k in program.kernels}
    assert not any(c.a == "torch_mlir_weight_grad" for c in program.claims)
