"""fuse_epilogue: corpus verdicts, the plain-nest and privatize store-back sites, the shape
preconditions, the dependence refutation of a relaxed (non-elementwise) tail, and runs of legal
results against the unscheduled kernel (C and emulation, poisoned outputs)."""
from __future__ import annotations

import re

import pytest

from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.printer import print_kernel
from verified_sched.core.errors import ScheduleError
from verified_sched.ops import fuse_epilogue as fe
from verified_sched.verify.driver import OpContext, op_obligations, own_obligations

from test_privatize_ops import assert_runs_equal, refuted, report, scheduled

DENSE = """params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor bias[M] f32
tensor c[N, M] f32
tensor y[N, M] f32
kernel dense {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
  TAIL
}
"""
TAIL = """for p in 0 .. N {
    for q in 0 .. M {
      y[p, q] = BODY
    }
  }"""


def dense(body="max(c[p, q] + bias[q], 0)", ops="fuse_epilogue c", tail=TAIL):
    return parse_text(DENSE.replace("TAIL", tail.replace("BODY", body))
                      + "schedule dense {\n" + "".join(f"  {o}\n" for o in ops.split(";")) + "}\n")


def test_corpus_fuse_epilogue_is_legal_and_runs_equal(cases_dir):
    program = parse_file(cases_dir / "fuse_epilogue.vs")
    rep = report(program)
    assert rep["verdict"] == "legal", [o["message"] for o in rep["obligations"] if o["status"] != "proved"]
    after = scheduled(program, "dense")
    assert len(after.kernel("dense").body) == 2  # zero c; the fused nest
    text = print_kernel(after.kernel("dense"))
    assert re.search(r"\}\n\s+y\[i, j\] = max\(c\[i, j\] \+ bias\[j\], 0\)", text)  # after the k loop
    for sizes in ({"N": 1, "M": 1, "K": 1}, {"N": 3, "M": 5, "K": 7}):
        assert_runs_equal(program, "dense", sizes)


def test_corpus_neighbour_is_a_precondition_failure(cases_dir):
    rep = report(parse_file(cases_dir / "fuse_epilogue_neighbour.vs"))
    assert rep["verdict"] == "illegal"
    [o] = refuted(rep, ("precondition",))
    assert "fuse_epilogue" in o["message"]


def test_neighbour_read_is_not_elementwise():
    with pytest.raises(ScheduleError, match="not elementwise"):
        scheduled(dense("c[p, q] - c[p, 0]"), "dense")


def test_relaxed_neighbour_tail_is_refuted_by_dependence(cases_dir):
    """With the shape check off, the move of the corpus tail reading c[i, j + 1] is refuted by isl."""
    program = parse_file(cases_dir / "fuse_epilogue_neighbour.vs")
    op = program.schedule_for("dense").ops[0]
    after = fe.fuse(program, "dense", op, strict=False)
    ctx = OpContext(program, after, "dense", op, 1, "default", 10.0, float("inf"))
    obls = own_obligations(ctx) + op_obligations(ctx)
    deps = [o for o in obls if o.kind == "dependence"]
    assert deps and all(o.status == "refuted" for o in deps)
    cex = deps[0].counterexample.to_json()
    assert cex["params"]["M"] >= 2 and cex["cells"][0]["tensor"] == "c"
    assert "before its final value" in deps[0].message


def test_privatize_store_back_site():
    ops = "split j by 8 -> jo, ji;interchange ji, k;privatize c over k -> c_acc;fuse_epilogue c"
    program = dense(ops=ops)
    rep = report(program)
    assert rep["verdict"] == "legal", [o["message"] for o in rep["obligations"] if o["status"] != "proved"]
    text = print_kernel(scheduled(program, "dense").kernel("dense"))
    # per element, after the store-back, under its edge guard
    assert re.search(r"if 8 \* jo \+ ji_st < M \{\n\s+c\[i, 8 \* jo \+ ji_st\] = c_acc\[ji_st\]\n"
                     r"\s+y\[i, 8 \* jo \+ ji_st\] = max\(c\[i, 8 \* jo \+ ji_st\] \+ bias\[8 \* jo \+ ji_st\], 0\)",
                     text), text
    for sizes in ({"N": 2, "M": 13, "K": 3}, {"N": 1, "M": 8, "K": 1}):
        assert_runs_equal(program, "dense", sizes)


def test_split_output_loop_keeps_the_guard():
    program = dense(ops="split j by 4 -> jo, ji;fuse_epilogue c")
    rep = report(program)
    assert rep["verdict"] == "legal", [o["message"] for o in rep["obligations"] if o["status"] != "proved"]
    assert_runs_equal(program, "dense", {"N": 2, "M": 7, "K": 3})


def test_residual_tail_reading_its_own_target():
    program = dense("y[p, q] + c[p, q]")
    assert report(program)["verdict"] == "legal"
    assert_runs_equal(program, "dense", {"N": 2, "M": 3, "K": 2})


@pytest.mark.parametrize("ops,tail,body,message", [
    ("fuse_epilogue c shared", TAIL, "c[p, q]", "'shared' needs the tensor-core fragment site"),
    ("fuse_epilogue y", TAIL, "c[p, q]", "no statement follows the last write of 'y'"),
    ("fuse_epilogue a", TAIL, "c[p, q]", "'a' is never written"),
    ("fuse_epilogue c", TAIL.replace("y[p, q]", "y[q, p]"), "c[p, q]", "not the identity index"),
    ("fuse_epilogue c", TAIL.replace("0 .. N", "1 .. N"), "c[p, q]", "not over the dim 0 .. N"),
    ("fuse_epilogue c", TAIL.replace("for q in 0 .. M {", "for q in 0 .. M : vectorized {"), "c[p, q]",
     "is vectorized"),
    ("fuse_epilogue c", "for p in 0 .. N {\n    y[p, 0] = 1\n  }", "", "does not read it"),
    ("fuse_epilogue c", TAIL + "\n  for p in 0 .. N {\n    bias[0] = c[p, 0]\n  }", "c[p, q]",
     "a later statement also uses 'c'"),
    ("split j by 8 -> jo, ji;interchange ji, k;fuse_epilogue c", TAIL, "c[p, q]", "loop 'k' encloses"),
])
def test_preconditions(ops, tail, body, message):
    program = dense(body, ops=ops, tail=tail)
    with pytest.raises(ScheduleError, match=re.escape(message)) as e:
        scheduled(program, "dense")
    assert e.value.loc is not None and "fuse_epilogue" in e.value.message


TC = """params TN, TM where TN >= 1, TM >= 1
tensor a[16 * TN, 16] f32
tensor b[16, 16 * TM] f32
tensor c[16 * TN, 16 * TM] f32
tensor y[16 * TN, 16 * TM] f32
kernel matmul {
  zero c
  for i in 0 .. 16 * TN {
    for j in 0 .. 16 * TM {
      for k in 0 .. 16 {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
  for p in 0 .. 16 * TN {
    for q in 0 .. 16 * TM {
      y[p, q] = max(c[p, q], 0)
    }
  }
}
schedule matmul {
  split i by 16 -> bi, ii
  split j by 16 -> bj, ji
  interchange ii, bj
  retype bi as block.y
  retype bj as block.x
  LAST
}
"""


@pytest.mark.parametrize("shared", ["", " shared"])
def test_whole_k_tensor_core_site(shared):
    program = parse_text(TC.replace("LAST", "tensorize ii, ji, k simd=32\n  fuse_epilogue c" + shared))
    rep = report(program)
    assert rep["verdict"] == "legal", [o["message"] for o in rep["obligations"] if o["status"] != "proved"]
    text = print_kernel(scheduled(program, "matmul").kernel("matmul"))
    assert re.search(r"\}\n\s+if lane == 0 \{\n\s+for ii_ep in 0 \.\. 16", text), text
    assert_runs_equal(program, "matmul", {"TN": 2, "TM": 1})


def test_split_k_tensor_core_block_is_no_site():
    text = TC.replace("for k in 0 .. 16 {", "for k in 0 .. 32 {").replace("[16 * TN, 16]", "[16 * TN, 32]")
    program = parse_text(text.replace("[16, 16 * TM]", "[32, 16 * TM]")
                         .replace("LAST", "split k by 16 -> ko, ki\n  interchange ji, ko\n  interchange ii, ko\n"
                                          "  tensorize ii, ji, ki simd=32\n  fuse_epilogue c"))
    with pytest.raises(ScheduleError, match="loop 'ko' encloses the tensor-core block"):
        scheduled(program, "matmul")
