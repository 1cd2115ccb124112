"""Dependences decided on values (polyhedral/valuedeps.py): an op must keep every read's last
writer and every observable cell's final writer, not the order of every memory access pair.

Each kernel here fails with the memory-based check alone (`unknown`: it refutes a pair that
changes no value, and the runs at the file's sizes agree): the reversed WAW pair overwritten
later either way is legal; a reversed WAW pair whose value stays final, and a RAW pair whose
read gets another last writer, are illegal with a counterexample that `vsched run` replays.
"""
from __future__ import annotations

import contextlib
import io

import islpy as isl
import pytest

from polyhedral.checks import dependence
from polyhedral.model import KernelModel
from polyhedral.valuedeps import Unsupported, value_violations
from polyhedral.coverage import equal_stores
from verified_sched.cli import main
from verified_sched.dsl import parse_text
from verified_sched.ops import apply_op
from verified_sched.verify.driver import verify_program

HEAD = """params N, M where N >= 2, M >= 2
tensor x[N, M] f32
tensor y[N + M + 1] f32
tensor z[N, M] f32
tensor w[N, M] f32
"""

# every (i, j) writes y[i + j] and reads it back at once: across iterations the pairs on
# y[i + j] are memory-only; the interchange reverses them (i + j = c for two iterations)
NEST = """  for i in 0 .. N {
    for j in 0 .. M {
      y[i + j] = 2.0 * x[i, j]
      z[i, j] = y[i + j] + 1.0
%s    }
  }
"""


def kernel(extra_in_nest: str = "", after: str = "") -> str:
    return HEAD + "kernel k {\n" + NEST % extra_in_nest + after + "}\nschedule k { interchange i, j }\n"


OVERWRITTEN = kernel(after="  for c in 0 .. N + M + 1 {\n    y[c] = 0.0\n  }\n")
# cells below 20 are overwritten; above, S0's last write stays final (sizes N + M >= 22 only)
FINAL_LATE = kernel(after="  for c in 0 .. N + M + 1 {\n    if c < 20 {\n      y[c] = 0.0\n    }\n  }\n")
# a read of y[i + j + 1] (written by an earlier i, a later j) only where i + j >= 20
RAW_LATE = kernel("      if i + j >= 20 {\n        w[i, j] = y[i + j + 1]\n      }\n",
                  "  for c in 0 .. N + M + 1 {\n    y[c] = 0.0\n  }\n")


def report(text: str, profile=None):
    return verify_program(parse_text(text), profile=profile)[-1]


def dep(rep):
    return next(o for o in rep.obligations if o.kind == "dependence" and o.op_index == 1)


def replays(text: str, params: dict, tmp_path) -> bool:
    """`vsched run FILE --size ...` reports a difference (exit 1)."""
    path = tmp_path / "k.vs"
    path.write_text(text)
    size = ",".join(f"{k}={v}" for k, v in params.items())
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["run", str(path), "--size", size])
    return code == 1 and "DIFFERENT" in out.getvalue()


def test_reversed_waw_overwritten_later_either_way_is_legal():
    rep = report(OVERWRITTEN)
    assert rep.verdict == "legal", [(o.kind, o.message) for o in rep.obligations if o.status != "proved"]
    d = dep(rep)
    assert d.status == "proved" and "keeps its last writer" in d.message


def test_reversed_waw_whose_final_value_is_observed_is_illegal_and_replays(tmp_path):
    rep = report(FINAL_LATE)
    d = dep(rep)
    assert rep.verdict == "illegal" and d.status == "refuted", d.message
    cex = d.counterexample.to_json()
    assert cex["kind"] == "WAW" and cex["value"] == "final"
    assert cex["cells"][0]["tensor"] == "y" and cex["cells"][0]["index"][0] >= 20
    assert "final value" in d.message
    assert replays(FINAL_LATE, cex["params"], tmp_path)


def test_raw_reorder_that_changes_the_reads_last_writer_is_illegal_and_replays(tmp_path):
    rep = report(RAW_LATE)
    d = dep(rep)
    assert rep.verdict == "illegal" and d.status == "refuted", d.message
    cex = d.counterexample.to_json()
    assert cex["kind"] == "RAW" and cex["value"] == "flow"
    first, second = cex["instances"]
    assert first["stmt"] == "S0" and second["stmt"] == "S2"  # the read that now sees another writer
    assert replays(RAW_LATE, cex["params"], tmp_path)


def test_memory_only_pairs_alone_are_still_reported_as_changed_orders():
    """The memory-based violations exist (the op does change those orders): the value-based
    rule is what decides, and it says how many statement pairs change order."""
    program = parse_text(OVERWRITTEN)
    after = apply_op(program, "k", program.schedule_for("k").ops[0])
    d, r = dependence(KernelModel(program, "k", tag="B"), KernelModel(after, "k", tag="A"), "default")
    assert d.status == "proved" and "memory-only dependences in" in d.message and r.status == "proved"


WAR_CLOBBER = """params N where N >= 2
tensor x[N] f32
tensor t[N + 1] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    for j in 0 .. 2 {
      if j == 0 {
        t[i] = x[i]
      }
      if j == 1 {
        y[i] = t[i + 1]
      }
    }
  }
}
schedule k { interchange i, j }
"""


def test_write_moved_before_a_read_of_another_value_is_refuted_and_replays(tmp_path):
    """y[i] reads t[i + 1] before iteration i + 1 writes it (the cell's entry value); after
    the interchange every t is written first: the read sees a later write (a clobber)."""
    rep = report(WAR_CLOBBER)
    d = dep(rep)
    assert d.status == "refuted" and d.counterexample.to_json()["value"] == "clobber", d.message
    assert d.counterexample.to_json()["kind"] == "WAR"
    assert replays(WAR_CLOBBER, d.counterexample.sizes, tmp_path)


# the nest's stores to y[c] are reversed; a later loop reads every y[c], then y is cleared
OVERWRITE_SEEN = HEAD + """kernel k {
  for i in 0 .. N {
    for j in 0 .. M {
      y[i + j] = 2.0 * x[i, j]
    }
  }
  for c in 0 .. N {
    z[c, 0] = y[c]
  }
  for d in 0 .. N + M + 1 {
    y[d] = 0.0
  }
}
schedule k { interchange i, j }
"""


def test_reversed_waw_seen_by_a_later_read_names_the_read_and_replays(tmp_path):
    rep = report(OVERWRITE_SEEN)
    d = dep(rep)
    assert d.status == "refuted" and d.counterexample.to_json()["value"] == "overwrite", d.message
    cex = d.counterexample.to_json()
    assert cex["kind"] == "WAW" and cex["observed_by"]["stmt"] == "S1"
    # the report's key order as before the typed counterexample (observed_by after the kind)
    assert list(cex) == ["params", "instances", "cells", "order", "kind", "observed_by", "value"]
    c = cex["cells"][0]["index"][0]
    assert cex["observed_by"]["original"] == {"c": c}
    assert f"before S1(c={c}) read the cell" in d.message
    assert replays(OVERWRITE_SEEN, cex["params"], tmp_path)


def test_data_dependent_kernels_keep_the_memory_based_verdict():
    text = HEAD.replace("tensor w[N, M] f32", "tensor w[N, M] f32\ntensor g[N] f32") + (
        "kernel k {\n  for i in 0 .. N {\n    for j in 0 .. M {\n      if g[i] > 0.0 {\n"
        "        y[i + j] = 2.0 * x[i, j]\n      }\n    }\n  }\n}\nschedule k { interchange i, j }\n")
    program = parse_text(text)
    after = apply_op(program, "k", program.schedule_for("k").ops[0])
    b, a = KernelModel(program, "k", tag="B"), KernelModel(after, "k", tag="A")
    with pytest.raises(Unsupported):
        value_violations(b, a, a.before, equal_stores(b), isl.UnionMap.empty(a.domain.get_space()))
    assert report(text).verdict != "legal"  # never proved on a model that is not exact


# ---------------------------------------------------------------- shift_inward recomputation

SHIFT_INWARD_WAW = """params N where N >= 8
tensor x[N] f32
tensor y[N + 1] f32
kernel k {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
    y[i + 1] = 3.0 * x[i]
  }
}
schedule k {
  split i by 8 -> io, ii tail=shift_inward
  pad io to 2
}
"""

# a recomputed store read by the next lane, then a round_up split whose extra lanes leave
# storage (so runs at many sizes fail and cannot confirm anything)
SHIFT_INWARD_RAW_ROUND_UP = """params N where N >= 8
tensor x[N] f32
tensor t[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    t[i] = 2.0 * x[i]
    y[i] = t[max(i - 1, 0)] + 1.0
  }
}
schedule k {
  split i by 8 -> io, ii tail=shift_inward
  split ii by 3 -> iio, iii tail=round_up
  pad io to 2
}
"""


def test_shift_inward_recompute_waw_not_replaying_is_not_a_violation():
    """The soundness properties (explore profile) found a WAW refutation that no run showed:
    shift_inward's last tile recomputes S1(i=3) after S0(i=4) stored y[4], then recomputes
    S0(i=4) too. Every observable cell keeps a copy of its final writer as last store."""
    rep = report(SHIFT_INWARD_WAW)
    assert rep.verdict == "legal", [(o.op_index, o.kind, o.message) for o in rep.obligations if o.status != "proved"]
    assert all(o.status == "proved" for o in rep.obligations if o.kind == "dependence")


def test_shift_inward_recomputed_read_source_is_any_copy():
    """A read whose last writer is recomputed later (a copy of the same instance, same value)
    still sees a copy of it: no dependence is refuted (before: refuted at N=9, and with the
    round_up lanes out of storage no run could confirm or clear it); what is refuted is the
    out-of-storage store, which replays."""
    rep = report(SHIFT_INWARD_RAW_ROUND_UP)
    assert not [o for o in rep.obligations if o.kind == "dependence" and o.status == "refuted"]
    refuted = [o for o in rep.obligations if o.status == "refuted"]
    assert refuted and {o.kind for o in refuted} == {"in_bounds"}


PARTIAL_SUM_SEEN = """params N, M where N >= 1, M >= 1
tensor x[N, M] f32
tensor a[N + M + 2] f32
tensor b[N + M + 2] f32
kernel k {
  for i in 0 .. N {
    for j in 0 .. M {
      a[i + j] = 2.0 * x[i, j] + a[i + j]
      b[i] = 2.0 * x[i, j] + a[j]
    }
  }
}
schedule k {
  interchange i, j
}
"""


def test_partial_sum_read_outside_the_reduction_reordered_is_refuted_and_replays(tmp_path):
    """Found by the explore profile of test_value_dependences_fuzz: the interchange reorders
    the accumulations into a[c] (a reassociation) but S1 reads a[j] mid-way, so it sees other
    terms; it was proved when reversed accumulations were exempt whoever read them."""
    rep = report(PARTIAL_SUM_SEEN)
    d = dep(rep)
    assert rep.verdict == "illegal" and d.status == "refuted", d.message
    assert replays(PARTIAL_SUM_SEEN, d.counterexample.sizes, tmp_path)
