"""conv-backward claims: `claim direct == reference` is PROVED by contraction equivalence (isl)
for every gradient with N, H, W symbolic, over the grid's strides, paddings (negative
effective padding included), dilations, groups, kernels and both layouts; a broken direct
kernel is REFUTED (so the proofs are not vacuous).

Skipped with a clear reason while the claim prover (verified_sched.verify.driver) is not built.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified_sched.dsl import parse_text
from verified_sched.generators import conv_backward as cb

from verified_sched.verify import driver as verify  # noqa: E402


def claim_obligations(text: str, timeout: float = 30.0) -> dict:
    """claim text -> list of obligation JSON objects from verify_program."""
    program = parse_text(text, "conv_backward.vs")
    reports = verify.verify_program(program, timeout=timeout, filename="conv_backward.vs")
    found = {f"claim {c.a} == {c.b}": [] for c in program.claims}
    for report in reports:
        for ob in report.to_json()["obligations"]:
            if ob["op"] in found:
                found[ob["op"]].append(ob)
    return found


def assert_all_proved(text: str) -> None:
    found = claim_obligations(text)
    assert found, "no claims in the emitted file"
    for claim, obs in found.items():
        assert obs, f"{claim}: no obligation was reported"
        bad = [(o["kind"], o["status"], o["message"]) for o in obs if o["status"] != "proved"]
        assert not bad, f"{claim}: {bad}"


CONFIGS = [
    # layout, x, w, stride, padding, dilation, groups
    ("nhwc", ("N", "H", "W", 288), (288, 3, 3, 96), 2, 1, 1, 3),  # the seed's shape family
    ("nchw", ("N", "H", "W", 6), (6, 3, 2, 2), (3, 2), (2, 0), (2, 1), 3),
    ("nhwc", ("N", "H", "W", 2), (2, 1, 1, 2), 2, 1, 1, 1),  # p' = -1
    ("nhwc", ("N", "H", "W", 4), (4, 3, 3, 2), 2, 3, 1, 2),  # p' = -1, K = 3
    ("nchw", ("N", "H", "W", 3), (3, 1, 3, 1), (3, 1), (0, 2), (2, 1), 3),
    ("nhwc", ("N", "H", "W", "C"), ("F", "KH", "KW", "C"), 2, 1, 1, 1),  # symbolic kernel
    ("nhwc", ("N", "H", "W", 2), (2, 3, 3, 2), 3, 2, 2, 1),
]


@pytest.mark.parametrize("case", range(len(CONFIGS)))
def test_claims_proved_with_symbolic_sizes(case):
    layout, x, w, s, p, d, g = CONFIGS[case]
    assert_all_proved(cb.conv_backward_dsl(x, w, layout, s, p, d, g))


@pytest.mark.parametrize("old, new", [
    ("(ih + kh - 1) % 2 == 0 and ", ""),  # zero insertion dropped: reads between dy rows
    ("w[2*floor(c / 2) + fg, 2 - kh,", "w[2*floor(c / 2) + fg, kh,"),  # weight not flipped
])
def test_broken_direct_kernel_is_refuted(old, new):
    text = cb.conv_backward_dsl(("N", "H", "W", 4), (4, 3, 3, 2), "nhwc", 2, 1, 1, 2, ("input",))
    assert old in text
    found = claim_obligations(text.replace(old, new))
    obs = found["claim input_grad == input_grad_reference"]
    refuted = [o for o in obs if o["status"] == "refuted"]
    assert refuted and refuted[0]["kind"] == "equivalence", obs
    assert refuted[0]["counterexample"], "a refutation carries a counterexample"


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_configurations_prove(data):
    draw = data.draw
    g = draw(st.integers(1, 3))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    p = (draw(st.integers(0, 3)), draw(st.integers(0, 3)))
    d = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    layout = draw(st.sampled_from(cb.LAYOUTS))
    assert_all_proved(cb.conv_backward_dsl(("N", "H", "W", 2 * g), (g, k[0], k[1], 2), layout, s, p, d, g))
