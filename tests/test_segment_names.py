"""Loops in partitioned segments get distinct names (issue 25 item 1): an op that duplicates a
loop into segments names the loops inside a later segment apart, `v_SEG` (SEG `tail` for
split's partitioned tail, the segment's own name for partition's segments after the first),
so a later op can name each segment's loop: `split ... partition=always` then
`interchange ji, k` on the main segment works (it was refused: both segments had a `k`)."""
from __future__ import annotations

import pytest

from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.core.printer import print_kernel
from verified_sched.ops import apply_schedule
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json
from test_ops_support import assert_same_results

MATMUL = """params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
kernel matmul {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}
schedule matmul {
  OPS
}
"""


def _loops(program, kernel="matmul") -> list:
    return [n.var for n in ir.walk(program.kernel(kernel).body) if isinstance(n, ir.For)]


def _program(ops: str):
    return parse_text(MATMUL.replace("OPS", ops), "m.vs")


@pytest.mark.parametrize("policy", ["always", "serialize_edges", "unroll_edges"])
def test_split_partition_then_interchange_of_the_main_segment(policy):
    """Regression (issue 25): `partition=always` then `interchange ji, k` was refused
    ("2 loops are named 'k'")."""
    p = _program(f"split j by 4 -> jo, ji partition={policy}\n  interchange ji, k\n  retype ji as vectorized")
    after = apply_schedule(p, "matmul")
    assert _loops(after) == ["i", "jo", "k", "ji", "jo_tail", "ji_tail", "k_tail"]
    rep = file_report_json(verify_program(p), "m.vs")
    assert rep["verdict"] == "legal", rep
    for m in (4, 6):
        assert_same_results(p, after, "matmul", {"N": 2, "M": m, "K": 3})


def test_the_tail_segment_is_addressable_too():
    p = _program("split j by 4 -> jo, ji partition=always\n  interchange ji_tail, k_tail")
    after = apply_schedule(p, "matmul")
    assert _loops(after) == ["i", "jo", "ji", "k", "jo_tail", "k_tail", "ji_tail"]
    assert file_report_json(verify_program(p), "m.vs")["verdict"] == "legal"


def test_partition_names_the_loops_of_later_segments_after_the_segment():
    p = _program("partition i at 2 -> i0, i1")
    after = apply_schedule(p, "matmul")
    assert _loops(after) == ["i0", "j", "k", "i1", "j_i1", "k_i1"]
    assert "c[i1, j_i1] += a[i1, k_i1] * b[k_i1, j_i1]" in print_kernel(after.kernel("matmul"))
    q = _program("partition i at 2 -> i0, i1\n  interchange j, k\n  interchange j_i1, k_i1")
    assert file_report_json(verify_program(q), "m.vs")["verdict"] == "legal"
    assert_same_results(q, apply_schedule(q, "matmul"), "matmul", {"N": 4, "M": 3, "K": 2})


def test_segment_names_avoid_names_in_use():
    # a loop already named k_tail elsewhere: the tail's copy takes the next fresh name
    text = MATMUL.replace("  }\n}\nschedule", "  }\n  for k_tail in 0 .. K {\n    c[0, 0] += 1.0\n  }\n}\nschedule")
    p = parse_text(text.replace("OPS", "split j by 4 -> jo, ji partition=always"), "m.vs")
    names = _loops(apply_schedule(p, "matmul"))
    assert "k_tail1" in names and names.count("k_tail") == 1
