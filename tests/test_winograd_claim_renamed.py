"""`claim A == B` where A is the Winograd rewrite of B up to the names of loop iterators
(issue 20: cases/fuzz_partition_winograd_renamed_provenance, whose partition renames the
batch loop before the rewrite, stayed unknown: the value comparison of the rewritten nest ran
out of isl's budget). The winograd claim hook compares the bodies up to a consistent renaming
of bound iterators (ops/winograd/claim.py `_alpha`); any other difference is not the rewrite."""
from __future__ import annotations

from pathlib import Path

from support.claims_corpus import claim_reports, scheduled_claim
from verified_sched.dsl import parse_text
from verified_sched.ops.winograd.claim import _alpha, _anonymous, rewrite_pair

CASES = Path(__file__).resolve().parent / "cases"
TEXT = scheduled_claim(CASES / "winograd_odd.vs")


def own(text):
    return next(r for r in claim_reports(text) if r.kernel.endswith("_original"))


def body(src: str):
    head = "params N where N >= 1\ntensor x[N, N] f32\ntensor y[N, N] f32\n"
    return _anonymous(parse_text(head + "kernel k {\n" + src + "\n}\n").kernel("k").body)


def test_alpha_renaming_of_loop_iterators_is_equal():
    a = body("for i in 0 .. N { for j in i .. N { y[i, j] = x[j, i] } }")
    b = body("for p in 0 .. N { for q in p .. N { y[p, q] = x[q, p] } }")
    assert a != b and _alpha(a) == _alpha(b)


def test_alpha_keeps_swapped_uses_and_parameters_apart():
    a = body("for i in 0 .. N { for j in 0 .. N { y[i, j] = x[j, i] } }")
    assert _alpha(a) != _alpha(body("for i in 0 .. N { for j in 0 .. N { y[j, i] = x[j, i] } }"))
    # a use of the size parameter is not a use of the iterator
    c = body("for i in 0 .. N { for j in 0 .. N { y[i, j] = x[N - 1, i] } }")
    assert _alpha(a) != _alpha(c)


def test_winograd_rewrite_with_renamed_loops_is_the_rewrite():
    renamed = TEXT.replace("th_v", "zz_v").replace("tw_y", "ww_y")
    assert renamed != TEXT
    program = parse_text(renamed)
    assert rewrite_pair(program, "conv", "conv_original") is not None
    assert own(renamed).verdict == "legal"


def test_winograd_rewrite_with_one_use_renamed_is_not_the_rewrite():
    old = "a_wV[0, 0, n_v, th_v, tw_v, c_v] = a[n_v, 2 * th_v, 2 * tw_v, c_v]"
    assert old in TEXT
    wrong = TEXT.replace(old, "a_wV[0, 0, n_v, th_v, tw_v, c_v] = a[n_v, 2 * tw_v, 2 * th_v, c_v]")
    # not the rewrite: the claim goes to the value comparison (test_claims_value's winograd test)
    assert rewrite_pair(parse_text(wrong), "conv", "conv_original") is None
