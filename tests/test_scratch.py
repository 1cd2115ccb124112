"""`scratch` tensors (issue 9 item 0): global tensors holding intermediate values only.

Parsed and printed, allocated and bounds-checked by the backends, but not observable: claims
and `vsched run` do not compare them. split_reduction declares its partials so, which makes
`claim scheduled == original` of the split_reduction case provable (it was refuted on the
partials, which only the scheduled kernel writes).
"""
from __future__ import annotations

import pytest

from verified_sched.oracle.compare import compare_kernels
from verified_sched.dsl import parse_text
from verified_sched.core.printer import print_program
from verified_sched.core.errors import VschedError
from verified_sched.ops import apply_op
from verified_sched.verify.driver import verify_claim

TWO = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32
tensor t[N] f32{attr}
kernel direct {{
  for i in 0 .. N {{
    y[i] = 2.0 * x[i]
  }}
}}
kernel through {{
  for i in 0 .. N {{
    t[i] = 2.0 * x[i]
  }}
  for i in 0 .. N {{
    y[i] = t[i]
  }}
}}
claim through == direct
"""


def test_scratch_parses_prints_and_round_trips():
    program = parse_text(TWO.format(attr=" scratch pad(2)"))
    t = program.tensor("t")
    assert t.scratch and t.memory == "global" and t.pad == (2,)
    text = print_program(program)
    assert "tensor t[N] f32 scratch pad(2)" in text
    assert parse_text(text).tensor("t") == t
    assert not parse_text(TWO.format(attr="")).tensor("t").scratch


@pytest.mark.parametrize("attr", [" shared scratch", " scratch local"])
def test_scratch_is_global_only(attr):
    with pytest.raises(VschedError, match="only a global tensor can be scratch"):
        parse_text(TWO.format(attr=attr))


def test_claim_ignores_a_scratch_tensor_and_observes_a_plain_one():
    proved = verify_claim(parse_text(TWO.format(attr=" scratch")), parse_text(TWO.format(attr="")).claims[0],
                          "default", 30.0)
    assert proved.verdict == "legal", [(o.kind, o.message) for o in proved.obligations]
    plain = parse_text(TWO.format(attr=""))
    refuted = verify_claim(plain, plain.claims[0], "default", 30.0)
    assert refuted.verdict == "illegal"
    assert refuted.obligations[0].counterexample.to_json()["cells"][0]["tensor"] == "t"


def test_run_does_not_compare_scratch():
    scratch = parse_text(TWO.format(attr=" scratch"))
    rep = compare_kernels(scratch, "direct", "through", {"N": 5})
    assert rep.ok and "t" not in rep.tensors and "y" in rep.tensors
    plain = parse_text(TWO.format(attr=""))
    assert not compare_kernels(plain, "direct", "through", {"N": 5}).ok


def test_scratch_accesses_are_still_bounds_checked():
    bad = TWO.format(attr=" scratch").replace("t[i] = 2.0 * x[i]", "t[i + 1] = 2.0 * x[i]")
    with pytest.raises(VschedError, match="outside the storage of tensor t"):
        compare_kernels(parse_text(bad), "direct", "through", {"N": 5})


def test_split_reduction_declares_its_partials_scratch():
    program = parse_text("""params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor s[N] f32
kernel rowsum {
  zero s
  for i in 0 .. N {
    for k in 0 .. K {
      s[i] += x[i, k]
    }
  }
}
schedule rowsum {
  split_reduction k of s blocks=4 -> kb, kk, s_partials
}
""")
    after = apply_op(program, "rowsum", program.schedules[0].ops[0])
    assert after.tensor("s_partials").scratch
    assert "tensor s_partials[4, N] f32 scratch" in print_program(after)
