"""A dependence refuted because a vectorized loop leaves two instances of one hardware thread
unordered is not replayable here (no executor interleaves vector lanes): the fuzz check counts
it `skipped`, as on kernels without hardware loops. Regression: fuzz seed 20261204 (1800
examples) reported it as a refutation that does not replay (a `counterexample` finding): a
privatized accumulator shared by the lanes of `retype oh as vectorized` inside a `block.x`
loop; the refutation is right (the independence of the vectorized loop is refuted too)."""
from __future__ import annotations

from verified_sched.dsl import parse_text
from verified_sched.fuzz.check import check_example

SEED_20261204 = """profile approximate
params OH, OW where OH >= 2, OW >= 2
tensor a[1, OH + 2, OW + 2, 1] f32
tensor b[1, 3, 3, 1] f32
tensor d[1, OH, OW, 1] f32
kernel conv {
  zero d
  for n in 0 .. 1 {
    for oh in 0 .. OH {
      for ow in 0 .. OW {
        for f in 0 .. 1 {
          for kh in 0 .. 3 {
            for kw in 0 .. 3 {
              for c in 0 .. 1 {
                d[n, oh, ow, f] += a[n, oh + kh, ow + kw, c] * b[f, kh, kw, c]
              }
            }
          }
        }
      }
    }
  }
}
schedule conv {
  privatize d over kh -> d_acc0
  retype n as block.x
  retype oh as vectorized
}
"""


def test_seed_20261204_vector_lanes_dependence_is_skipped_not_a_finding():
    out = check_example(parse_text(SEED_20261204), "conv", [{"OH": 2, "OW": 2}], timeout=600.0)
    assert out.verdict == "illegal" and "dependence" in out.refuted_kinds
    assert out.finding is None
    assert ("dependence", "skipped") in out.replays
