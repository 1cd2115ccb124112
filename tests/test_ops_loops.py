"""interchange, retype, unroll, partition, pad, expand_zero: structure, semantics, preconditions."""
from __future__ import annotations

import pytest

from verified_sched.core.errors import ScheduleError
from test_ops_support import assert_same_results, body_of, scheduled, sids

MATMUL = """params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32 {pad}
kernel matmul {{
  zero c
  for i in 0 .. N {{
    for j in 0 .. M {{
      for k in 0 .. K {{
        c[i, j] += a[i, k] * b[k, j]
      }}
    }}
  }}
}}
schedule matmul {{
  {ops}
}}
"""


def mm(*ops, pad=""):
    return scheduled(MATMUL.format(ops="\n  ".join(ops), pad=pad))


MM_SIZES = [{"N": 1, "M": 1, "K": 1}, {"N": 3, "M": 5, "K": 2}, {"N": 9, "M": 10, "K": 3}]

# ---------------------------------------------------------------- interchange


def test_interchange_after_splits_composes():
    before, after, k = mm("split i by 4 -> io, ii", "split j by 3 -> jo, ji", "interchange ii, jo",
                          "retype ji as vectorized")
    assert body_of(after, k) == """\
zero c
for io in 0 .. floor((N + 3) / 4) {
  for jo in 0 .. floor((M + 2) / 3) {
    for ii in 0 .. 4 {
      for ji in 0 .. 3 : vectorized {
        for k in 0 .. K {
          if 4 * io + ii < N {
            if 3 * jo + ji < M {
              c[4 * io + ii, 3 * jo + ji] += a[4 * io + ii, k] * b[k, 3 * jo + ji]
            }
          }
        }
      }
    }
  }
}"""
    for sizes in MM_SIZES:
        assert_same_results(before, after, k, sizes)


def test_interchange_names_in_either_order():
    _, a1, k = mm("interchange i, j")
    _, a2, _ = mm("interchange j, i")
    assert body_of(a1, k) == body_of(a2, k)
    assert body_of(a1, k).splitlines()[1] == "for j in 0 .. M {"


def test_interchange_moves_invariant_guard_inward():
    text = """params N, M, T where N >= 1, M >= 1, T >= 0
tensor x[N, M] f32
kernel k {
  for i in 0 .. N {
    if T > 2 {
      for j in 0 .. M {
        x[i, j] = 1.0
      }
    }
  }
}
schedule k {
  interchange i, j
}
"""
    before, after, k = scheduled(text)
    assert body_of(after, k) == """\
for j in 0 .. M {
  for i in 0 .. N {
    if T > 2 {
      x[i, j] = 1.0
    }
  }
}"""
    assert_same_results(before, after, k, {"N": 2, "M": 3, "T": 3})


@pytest.mark.parametrize("body, message", [
    ("for i in 0 .. N {\n x[i, 0] = 1.0\n for j in 0 .. M {\n x[i, j] = 2.0\n }\n }",
     "not perfectly nested: the body of 'i' has 2 statements"),
    ("for i in 0 .. N {\n if i > 0 {\n for j in 0 .. M {\n x[i, j] = 2.0\n }\n }\n }",
     "a guard between them mentions 'i'"),
    ("for i in 0 .. N {\n for j in 0 .. i {\n x[i, j] = 2.0\n }\n }",
     "bounds depend on the outer iterator 'i'"),
    ("for i in 0 .. N {\n x[i, 0] = 1.0\n }\n for j in 0 .. M {\n x[0, j] = 1.0\n }",
     "neither encloses the other"),
])
def test_interchange_preconditions(body, message):
    text = f"""params N, M where N >= 1, M >= 1
tensor x[N, M] f32
kernel k {{
{body}
}}
schedule k {{
  interchange i, j
}}
"""
    with pytest.raises(ScheduleError, match=message):
        scheduled(text)


def test_interchange_missing_loop():
    with pytest.raises(ScheduleError, match="interchange: loop 'q': no loop named 'q'"):
        mm("interchange i, q")

# ---------------------------------------------------------------- retype


def test_retype_kinds():
    _, after, k = mm("retype j as thread.x", "retype i as block.x", "retype k as unrolled")
    body = body_of(after, k)
    assert "for i in 0 .. N : block.x {" in body and "for j in 0 .. M : thread.x {" in body
    assert "for k in 0 .. K : unrolled {" in body


def test_retype_hardware_needs_zero_start():
    text = MATMUL.format(ops="retype i as thread.x", pad="").replace("for i in 0 .. N", "for i in 1 .. N")
    with pytest.raises(ScheduleError, match="retype: loop 'i': a thread.x loop must start at 0"):
        scheduled(text)
    text = MATMUL.format(ops="retype i as vectorized", pad="").replace("for i in 0 .. N", "for i in 1 .. N")
    scheduled(text)  # vectorized loops may start anywhere


def test_retype_same_hardware_axis_twice():
    with pytest.raises(ScheduleError, match="axis 'thread.x': loop 'i' already has it"):
        mm("retype i as thread.x", "retype j as thread.x")

# ---------------------------------------------------------------- unroll


def test_unroll_annotates():
    _, after, k = mm("unroll k")
    assert "for k in 0 .. K : unrolled {" in body_of(after, k)


def test_unroll_materialize_copies_with_sids_and_provenance():
    before, after, k = mm("split k by 2 -> ko, ki", "unroll ki materialize")
    body = body_of(after, k)
    assert "for ki" not in body
    assert "c[i, j] += a[i, 2 * ko] * b[2 * ko, j]" in body
    assert "if 2 * ko + 1 < K {" in body
    assert sids(after, k) == ["S0#0", "S0#1"]
    from verified_sched.core.printer import expr_text
    from verified_sched.core.ir import Assign, walk
    provs = [dict((n, expr_text(e)) for n, e in s.provenance)
             for s in walk(after.kernel(k).body) if isinstance(s, Assign)]
    assert [p["k"] for p in provs] == ["2 * ko", "2 * ko + 1"]
    for sizes in MM_SIZES:
        assert_same_results(before, after, k, sizes)


def test_unroll_materialize_needs_constant_bounds():
    with pytest.raises(ScheduleError, match="unroll: loop 'k': materialize needs constant bounds"):
        mm("unroll k materialize")

# ---------------------------------------------------------------- partition

CONCAT = """params N, M where N >= 1, M >= 1
tensor a[N] f32
tensor b[M] f32
tensor y[N + M] f32
kernel concat {{
  for i in 0 .. N + M {{
    if i < N {{
      y[i] = a[i]
    }} else {{
      y[i] = b[i - N]
    }}
  }}
}}
schedule concat {{
  {op}
}}
"""
CONCAT_BODY = """\
for i0 in 0 .. N {
  y[i0] = a[i0]
}
for i1 in N .. N + M {
  y[i1] = b[i1 - N]
}"""


@pytest.mark.parametrize("op", ["partition i at N -> i0, i1", "partition i auto -> i0, i1"])
def test_partition_concat(op):
    before, after, k = scheduled(CONCAT.format(op=op))
    assert body_of(after, k) == CONCAT_BODY
    assert sids(after, k) == ["S0#0", "S1#1"]
    for n, m in ((1, 1), (3, 2), (2, 5)):
        assert_same_results(before, after, k, {"N": n, "M": m})


def test_partition_breakpoint_outside_range_is_clamped():
    # N + 2*M >= N + M always: the later segments are provably empty and disappear
    before, after, k = scheduled(CONCAT.format(op="partition i at N + 2 * M, 3 -> i0, i1, i2"))
    assert body_of(after, k).splitlines()[0] == "for i0 in 0 .. N + M {"
    assert body_of(after, k).count("for ") == 1
    # 3 may lie inside or outside 0 .. N + M: the clamp stays
    before, after, k = scheduled(CONCAT.format(op="partition i at 3 -> i0, i1"))
    body = body_of(after, k)
    assert "for i0 in 0 .. min(3, N + M) {" in body
    assert "for i1 in min(3, N + M) .. N + M {" in body
    for n, m in ((1, 1), (3, 2), (2, 5), (5, 1)):
        assert_same_results(before, after, k, {"N": n, "M": m})


def test_partition_name_count():
    from verified_sched.core.ir import Var
    from verified_sched.ops import apply_op
    from verified_sched.ops.schedule import Partition
    before, _, k = scheduled(CONCAT.format(op="partition i at N -> i0, i1"), upto=0)
    with pytest.raises(ScheduleError, match="1 breakpoint\\(s\\) make 2 segments, but 3 name"):
        apply_op(before, k, Partition("i", (Var("N"),), ("i0", "i1", "i2")))
    with pytest.raises(ScheduleError, match="auto found 1 breakpoint\\(s\\) \\(N\\), which needs 2 names, not 3"):
        scheduled(CONCAT.format(op="partition i auto -> i0, i1, i2"))


def test_partition_auto_without_guards():
    with pytest.raises(ScheduleError, match="auto found no guard"):
        mm("partition i auto -> i0, i1")


def test_partition_auto_two_flips():
    text = """params N where N >= 4
tensor x[N] f32
kernel k {
  for i in 0 .. N {
    if i >= 1 and i < N - 1 {
      x[i] = 1.0
    } else {
      x[i] = 0.0
    }
  }
}
schedule k {
  partition i auto -> i0, i1, i2
}
"""
    before, after, k = scheduled(text)
    assert body_of(after, k) == """\
for i0 in 0 .. 1 {
  x[i0] = 0.0
}
for i1 in 1 .. N - 1 {
  x[i1] = 1.0
}
for i2 in N - 1 .. N {
  x[i2] = 0.0
}"""
    for n in (4, 7):
        assert_same_results(before, after, k, {"N": n})

# ---------------------------------------------------------------- pad


def test_pad_then_split_divides():
    text = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel scale {
  for i in 0 .. N {
    y[i] = 2 * x[i]
  }
}
schedule scale {
  pad i to 32
  split i by 32 -> io, ii
}
"""
    before, mid, k = scheduled(text, upto=1)
    assert body_of(mid, k) == """\
for i in 0 .. 32 * floor((N + 31) / 32) {
  if i < N {
    y[i] = 2 * x[i]
  }
}"""
    _, after, _ = scheduled(text)
    assert body_of(after, k) == """\
for io in 0 .. floor((N + 31) / 32) {
  for ii in 0 .. 32 {
    if 32 * io + ii < N {
      y[32 * io + ii] = 2 * x[32 * io + ii]
    }
  }
}"""
    for n in (1, 31, 33):
        assert_same_results(before, after, k, {"N": n})


def test_pad_identity_when_divides():
    before, after, k = scheduled("""params N, T where T >= 1, N == 8 * T
tensor x[N] f32
kernel k {
  for i in 0 .. N {
    x[i] = 1.0
  }
}
schedule k {
  pad i to 4
}
""")
    assert after.kernel(k) == before.kernel(k)


def test_pad_needs_zero_start():
    text = MATMUL.format(ops="pad i to 4", pad="").replace("for i in 0 .. N", "for i in 1 .. N")
    with pytest.raises(ScheduleError, match="pad: loop 'i': starts at a value other than 0"):
        scheduled(text)

# ---------------------------------------------------------------- expand_zero


def test_expand_zero_storage_dims():
    before, after, k = mm("expand_zero c -> zi, zj", pad="pad(0, 3)")
    assert body_of(after, k).splitlines()[:5] == [
        "for zi in 0 .. N {", "  for zj in 0 .. M + 3 {", "    c[zi, zj] = 0.0", "  }", "}"]
    assert sids(after, k)[0] == "Z_c"
    for sizes in MM_SIZES:
        assert_same_results(before, after, k, sizes)


def test_expand_zero_preconditions():
    with pytest.raises(ScheduleError, match="names: tensor 'c' has 2 dimension\\(s\\) but 1 name"):
        mm("expand_zero c -> z")
    with pytest.raises(ScheduleError, match="has no `zero a`"):
        mm("expand_zero a -> z0, z1")
    with pytest.raises(ScheduleError, match="name 'i': name already used"):
        mm("expand_zero c -> i, z")


def test_malformed_result_is_a_precondition_failure():
    text = """params N where N >= 1
tensor t[64] f32 shared
tensor y[N] f32
kernel k {
  for b in 0 .. N : block.x {
    for i in 0 .. 64 : thread.x {
      t[i] = 1.0
      barrier
      y[b] = t[63 - i]
    }
  }
}
schedule k {
  retype i as vectorized
}
"""
    with pytest.raises(ScheduleError, match="retype: the result would not be well formed: barrier under"):
        scheduled(text)


def test_partition_auto_finds_last_full_tile_of_remainder_guard():
    text = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    y[i] = 2 * x[i]
  }
}
schedule k {
  pad i to 8
  split i by 8 -> io, ii
  partition io auto -> full, edge
}
"""
    before, after, k = scheduled(text)
    assert body_of(after, k) == """\
for full in 0 .. floor(N / 8) {
  for ii in 0 .. 8 {
    y[8 * full + ii] = 2 * x[8 * full + ii]
  }
}
for edge in floor(N / 8) .. floor((N + 7) / 8) {
  for ii_edge in 0 .. 8 {
    if 8 * edge + ii_edge < N {
      y[8 * edge + ii_edge] = 2 * x[8 * edge + ii_edge]
    }
  }
}"""
    for n in (1, 8, 13):
        assert_same_results(before, after, k, {"N": n})
