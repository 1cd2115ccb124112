"""Claims whose reductions add one value several times to a cell (issue 9 item 0: the corpus
case fuzz_expand_zero_split_blend_coverage accumulates `+= 1` three times per cell).

Equal terms are compared by how many times each kernel adds them (peeling one term per value
and round, with the terms of every statement in one space), and their order cannot matter.
Regression: counting per statement would call 2 + 1 additions equal to 2.
"""
from __future__ import annotations

from test_claims_value import one_claim, replays


# a statement the contraction form does not take, so the value comparison decides
OTHER = "for i in 0 .. N { c[i] = max(b[i], 0.0) }\n"


def loop(n: int, body: str) -> str:
    return f"for k in 0 .. {n} {{ for i in 0 .. N {{ {body} }} }}\n"


def test_equal_terms_added_equally_often_are_proved():
    text, rep = one_claim("kernel first { zero y\n" + OTHER + loop(3, "y[i] += 1.0") + "}\n"
                          "kernel second { zero y\n" + OTHER + "for i in 0 .. N { for k in 0 .. 3 { y[i] += 1.0 } } }",
                          "reproducible")
    assert rep.verdict == "legal", [(o.kind, o.status, o.message) for o in rep.obligations]


def test_one_input_added_by_two_statements_counts_both():
    """2 + 1 additions of a[i] (two statements) against 3 (one): equal; against 2: refuted."""
    first = "kernel first { zero y\n" + OTHER + loop(2, "y[i] += a[i]") + loop(1, "y[i] += a[i]") + "}\n"
    text, rep = one_claim(first + "kernel second { zero y\n" + OTHER + loop(3, "y[i] += a[i]") + "}")
    assert rep.verdict == "legal", [(o.kind, o.status, o.message) for o in rep.obligations]
    text, rep = one_claim(first + "kernel second { zero y\n" + OTHER + loop(2, "y[i] += a[i]") + "}")
    assert rep.verdict == "illegal", [(o.kind, o.status, o.message) for o in rep.obligations]
    assert "more times" in rep.obligations[0].message
    assert replays(text, rep)


def test_a_constant_added_more_often_is_refuted_and_replays():
    text, rep = one_claim("kernel first { zero y\n" + OTHER + loop(3, "y[i] += 1.0") + "}\n"
                          "kernel second { zero y\n" + OTHER + loop(2, "y[i] += 1.0") + "}")
    assert rep.verdict == "illegal"
    assert replays(text, rep)
