"""split: every tail strategy and partition policy (structure, semantics, preconditions)."""
from __future__ import annotations

import pytest

from verified_sched.core.errors import ScheduleError
from test_ops_support import assert_same_results, body_of, scheduled, sids

ACC = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32 {pad}
kernel k {{
  for i in 0 .. N {{
    y[i] = y[i] + x[i]
  }}
}}
schedule k {{
  {op}
}}
"""


def split(op: str, pad: str = ""):
    return scheduled(ACC.format(op=op, pad=pad))


def test_guard_on_leaf_and_provenance():
    before, after, k = split("split i by 4 -> io, ii")
    assert body_of(after, k) == """\
for io in 0 .. floor((N + 3) / 4) {
  for ii in 0 .. 4 {
    if 4 * io + ii < N {
      y[4 * io + ii] += x[4 * io + ii]
    }
  }
}"""
    (assign,) = [n for n in __import__("verified_sched.core.ir", fromlist=["walk"]).walk(after.kernel(k).body)
                 if type(n).__name__ == "Assign"]
    assert assign.sid == "S0"
    name, expr = assign.provenance[0]
    assert name == "i"
    from verified_sched.core.printer import expr_text
    assert expr_text(expr) == "4 * io + ii"


def test_guard_folds_when_factor_divides():
    text = ACC.replace("params N where N >= 1", "params N where N >= 1, N == 4 * T").replace(
        "params N", "params N, T")
    _, after, k = scheduled(text.format(op="split i by 4 -> io, ii", pad=""))
    assert "if" not in body_of(after, k)


@pytest.mark.parametrize("tail", ["guard", "predicate", "predicate_stores"])
def test_guarded_tails_render_leaf_guard(tail):
    _, after, k = split(f"split i by 4 -> io, ii tail={tail}")
    assert "if 4 * io + ii < N {" in body_of(after, k)


def test_round_up_has_no_guard():
    _, after, k = split("split i by 4 -> io, ii tail=round_up")
    assert body_of(after, k) == """\
for io in 0 .. floor((N + 3) / 4) {
  for ii in 0 .. 4 {
    y[4 * io + ii] += x[4 * io + ii]
  }
}"""


def test_predicate_loads_masks_loads_only():
    _, after, k = split("split i by 4 -> io, ii tail=predicate_loads")
    assert body_of(after, k).splitlines()[2].strip() == (
        "y[4 * io + ii] = where(4 * io + ii < N, y[4 * io + ii], 0.0) + "
        "where(4 * io + ii < N, x[4 * io + ii], 0.0)")


def test_round_up_and_blend_keeps_old_value():
    _, after, k = split("split i by 4 -> io, ii tail=round_up_and_blend")
    assert body_of(after, k).splitlines()[2].strip() == (
        "y[4 * io + ii] = where(4 * io + ii < N, y[4 * io + ii] + x[4 * io + ii], y[4 * io + ii])")


def test_shift_inward_min_in_index_and_provenance():
    _, after, k = split("split i by 4 -> io, ii tail=shift_inward")
    body = body_of(after, k)
    assert "y[min(4 * io, N - 4) + ii] += x[min(4 * io, N - 4) + ii]" in body
    from verified_sched.core.printer import expr_text
    from verified_sched.core.ir import Assign, walk
    (a,) = [n for n in walk(after.kernel(k).body) if isinstance(n, Assign)]
    assert expr_text(a.provenance[0][1]) == "min(4 * io, N - 4) + ii"


def test_shift_inward_and_blend_marks_new_lanes():
    _, after, k = split("split i by 4 -> io, ii tail=shift_inward_and_blend")
    line = body_of(after, k).splitlines()[2].strip()
    assert line.startswith("y[min(4 * io, N - 4) + ii] = where(min(4 * io, N - 4) + ii >= 4 * io, ")
    assert line.endswith(", y[min(4 * io, N - 4) + ii])")


def test_partition_always_main_and_tail():
    _, after, k = split("split i by 4 -> io, ii partition=always")
    assert body_of(after, k) == """\
for io in 0 .. floor(N / 4) {
  for ii in 0 .. 4 {
    y[4 * io + ii] += x[4 * io + ii]
  }
}
for io_tail in floor(N / 4) .. floor((N + 3) / 4) {
  for ii_tail in 0 .. 4 {
    if 4 * io_tail + ii_tail < N {
      y[4 * io_tail + ii_tail] += x[4 * io_tail + ii_tail]
    }
  }
}"""
    assert sids(after, k) == ["S0#0", "S0#1"]


def test_partition_always_shift_inward_folds_min_in_both_segments():
    _, after, k = split("split i by 4 -> io, ii tail=shift_inward partition=always")
    body = body_of(after, k)
    assert "min" not in body
    assert "y[N + ii_tail - 4] += x[N + ii_tail - 4]" in body


def test_serialize_and_unroll_edges():
    text = ACC.replace("for i in 0 .. N {", "for i in 0 .. N : vectorized {")
    _, after, k = scheduled(text.format(op="split i by 4 -> io, ii partition=serialize_edges", pad=""))
    body = body_of(after, k)
    assert "for io in 0 .. floor(N / 4) : vectorized {" in body
    assert "for io_tail in floor(N / 4) .. floor((N + 3) / 4) {" in body
    _, after, k = split("split i by 4 -> io, ii partition=unroll_edges")
    assert "for ii_tail in 0 .. 4 : unrolled {" in body_of(after, k)


def test_auto_and_never_keep_one_nest():
    for policy in ("auto", "never"):
        _, after, k = split(f"split i by 4 -> io, ii partition={policy}")
        assert body_of(after, k).count("for io") == 1


def test_edges_without_tail_keep_one_nest():
    _, after, k = split("split i by 4 -> io, ii tail=round_up partition=serialize_edges")
    assert "tail" not in body_of(after, k)


# ---------------------------------------------------------------- semantics (interpreter)

SIZES = [{"N": 1}, {"N": 4}, {"N": 7}, {"N": 9}]


@pytest.mark.parametrize("tail", ["guard", "predicate", "predicate_stores"])
@pytest.mark.parametrize("policy", ["auto", "always", "serialize_edges", "unroll_edges"])
def test_guarded_tails_preserve_semantics(tail, policy):
    before, after, k = split(f"split i by 4 -> io, ii tail={tail} partition={policy}")
    for sizes in SIZES:
        assert_same_results(before, after, k, sizes)


@pytest.mark.parametrize("tail", ["round_up", "predicate_loads", "round_up_and_blend"])
def test_round_up_family_with_padding(tail):
    before, after, k = scheduled(ACC.format(op=f"split i by 4 -> io, ii tail={tail}", pad="pad(3)")
                                 .replace("tensor x[N] f32", "tensor x[N] f32 pad(3)"))
    for sizes in SIZES:
        assert_same_results(before, after, k, sizes)


def test_shift_inward_on_idempotent_body():
    text = """params N where N >= 4
tensor x[N] f32
tensor y[N] f32
kernel relu {
  for i in 0 .. N {
    y[i] = max(x[i], 0)
  }
}
schedule relu {
  split i by 4 -> io, ii tail=shift_inward
}
"""
    before, after, k = scheduled(text)
    for n in (4, 5, 9):
        assert_same_results(before, after, k, {"N": n})


@pytest.mark.parametrize("policy", ["never", "always"])
def test_shift_inward_and_blend_accumulation(policy):
    before, after, k = scheduled(ACC.replace("N >= 1", "N >= 4").format(
        op=f"split i by 4 -> io, ii tail=shift_inward_and_blend partition={policy}", pad=""))
    for n in (4, 6, 9):
        assert_same_results(before, after, k, {"N": n})


# ---------------------------------------------------------------- preconditions


def test_missing_loop():
    with pytest.raises(ScheduleError, match="split: loop 'q': no loop named 'q'"):
        split("split q by 4 -> qo, qi")


@pytest.mark.parametrize("tail", ["guard", "predicate", "shift_inward_and_blend"])
@pytest.mark.parametrize("policy", ["auto", "always"])
def test_split_of_a_loop_not_from_zero_tiles_from_its_lower_bound(tail, policy):
    """Regression (issue 23): `for i in 1 .. N` could not be split ("split needs a loop from 0";
    the suggested partition keeps the lower bound). The tiles now start at the lower bound."""
    text = ACC.replace("for i in 0 .. N", "for i in 1 .. N").replace("N >= 1", "N >= 6")
    before, after, k = scheduled(text.format(op=f"split i by 4 -> io, ii tail={tail} partition={policy}", pad=""))
    assert "for io in 0 .. " in body_of(after, k)
    for n in (6, 9, 10):
        assert_same_results(before, after, k, {"N": n})


def test_split_from_lower_bound_body():
    text = ACC.replace("for i in 0 .. N", "for i in 1 .. N")
    _, after, k = scheduled(text.format(op="split i by 4 -> io, ii", pad=""))
    assert body_of(after, k) == """\
for io in 0 .. floor((N + 2) / 4) {
  for ii in 0 .. 4 {
    if 4 * io + ii + 1 < N {
      y[4 * io + ii + 1] += x[4 * io + ii + 1]
    }
  }
}"""


def test_partition_always_nothing_to_partition():
    with pytest.raises(ScheduleError, match="nothing to partition"):
        split("split i by 4 -> io, ii tail=round_up partition=always")
    text = ACC.replace("params N where N >= 1", "params N, T where T >= 1, N == 8 * T")
    with pytest.raises(ScheduleError, match="4 divides the extent N"):
        scheduled(text.format(op="split i by 4 -> io, ii partition=always", pad=""))


def test_names_must_be_fresh():
    with pytest.raises(ScheduleError, match="new loop 'x': name already used"):
        split("split i by 4 -> x, ii")
    from verified_sched.ops import apply_op
    from verified_sched.ops.schedule import Split
    before, _, k = split("split i by 4 -> io, ii")
    with pytest.raises(ScheduleError, match="distinct names"):
        apply_op(before, k, Split("i", 4, "a", "a"))


def test_factor_validated_by_apply():
    from verified_sched.ops import apply_op
    from verified_sched.ops.schedule import Split
    before, _, k = split("split i by 4 -> io, ii")
    with pytest.raises(ScheduleError, match="factor 0: must be a positive integer"):
        apply_op(before, k, Split("i", 0, "io", "ii"))


def test_reuses_loop_name_for_outer():
    _, after, k = split("split i by 4 -> i, ii")
    assert "for i in 0 .. floor((N + 3) / 4) {" in body_of(after, k)


@pytest.mark.parametrize("tail", ["predicate_loads", "round_up_and_blend"])
def test_masked_loads_touch_no_memory(tail):
    """x is not padded: the masked (lazy where) loads of the extra lanes must not read it;
    only the stores of y reach its padding."""
    from test_ops_support import run_c
    text = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32 pad(3)
kernel k {
  for i in 0 .. N {
    y[i] = max(x[i], 0) + y[i]
  }
}
schedule k {
  split i by 4 -> io, ii tail=%s
}
""" % tail
    before, after, k = scheduled(text)
    for n in (1, 5, 8):
        assert_same_results(before, after, k, {"N": n})
        assert_same_results(before, after, k, {"N": n}, runner=run_c)
