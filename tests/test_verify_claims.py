"""Claims: contraction equivalence with multiplicities, the supported shape, the summation
order, and unknown (never proved) outside the shape."""
from __future__ import annotations

import pytest

from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program

HEAD = """params N, K where N >= 1, K >= 2
tensor a[N, K] f32
tensor b[K] f32
tensor c[N] f32
tensor d[N] f32
kernel ref { zero c
 for i in 0 .. N { for k in 0 .. K { c[i] += a[i, k] * b[k] } } }
"""


def claim(other: str, profile: str = "") -> dict:
    text = (f"profile {profile}\n" if profile else "") + HEAD + other + "\nclaim ref == other\n"
    rep = verify_program(parse_text(text))[0]
    return {o.kind: o for o in rep.obligations}


def test_same_terms_in_another_order_is_proved_and_reassociates():
    obl = claim("kernel other { zero c\n for k in 0 .. K { for i in 0 .. N { c[i] += b[K - 1 - k] * a[i, K - 1 - k] } } }")
    assert obl["equivalence"].status == "proved"
    assert obl["reassociation"].status == "proved" and obl["reassociation"].reassociates


def test_reversed_sum_is_refused_under_reproducible():
    obl = claim("kernel other { zero c\n for i in 0 .. N { for k in 0 .. K { c[i] += a[i, K - 1 - k] * b[K - 1 - k] } } }",
                "reproducible")
    assert obl["equivalence"].status == "proved" and obl["reassociation"].status == "refuted"


def test_a_term_counted_twice_is_refuted():
    obl = claim("kernel other { zero c\n for i in 0 .. N { for k in 0 .. K { c[i] += a[i, k] * b[k] }\n"
                " c[i] += a[i, 1] * b[1] } }")
    e = obl["equivalence"]
    assert e.status == "refuted" and e.counterexample.to_json()["extra_in"] == "other"
    assert "a[" in e.counterexample.to_json()["term"] and e.counterexample.to_json()["cells"][0]["tensor"] == "c"
    assert list(e.counterexample.to_json()) == ["params", "cells", "term", "extra_in", "instances"]  # keys as before


def test_missing_zero_is_refuted():
    obl = claim("kernel other { for i in 0 .. N { for k in 0 .. K { c[i] += a[i, k] * b[k] } } }")
    assert obl["equivalence"].status == "refuted"


def test_wrong_factor_is_refuted_with_cell_and_term():
    obl = claim("kernel other { zero c\n for i in 0 .. N { for k in 0 .. K { c[i] += a[i, k] * b[0] } } }")
    e = obl["equivalence"]
    assert e.status == "refuted" and e.counterexample.to_json()["cells"][0]["tensor"] == "c"


@pytest.mark.parametrize("other", [
    # also writes d, which ref leaves as it was: an observable difference
    "kernel other { zero c\n for i in 0 .. N { for k in 0 .. K { c[i] += a[i, k] * b[k] } }\n"
    " for i in 0 .. N { d[i] = c[i] } }",
    # a different term
    "kernel other { zero c\n for i in 0 .. N { for k in 0 .. K { c[i] += max(a[i, k], b[k]) } } }",
])
def test_different_values_are_refuted_with_a_cell(other):
    e = claim(other)["equivalence"]
    assert e.status == "refuted" and e.counterexample.to_json()["cells"] and e.counterexample.instance.sizes is not None


@pytest.mark.parametrize("other", [
    # data-dependent guard
    "kernel other { zero c\n for i in 0 .. N { for k in 0 .. K { if b[k] > 0 { c[i] += a[i, k] * b[k] } } } }",
])
def test_outside_the_shape_is_unknown_never_proved(other):
    """Not decided by the value comparison; a run then shows the kernels differ (issue 20:
    an unknown claim is refuted by running), never proved."""
    e = claim(other)["equivalence"]
    assert e.status == "refuted" and e.engine == "run" and e.counterexample.sizes
