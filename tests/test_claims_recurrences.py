"""Claims over in-place recurrences and sums split into rounds (issue 20: `claim scheduled ==
original` proved for every legal corpus kernel; verified_sched/values/claims_value.py, polyhedral/valueexpr.py).

A recurrence cut into two statements (partition): an instance's value is met as a reference
(`Ref`) in one kernel and expanded (`At`) in the other; the pair must be among the instance
pairs the comparison matched, as for two references."""
from __future__ import annotations

from test_claims_value import claim_reports, replays

PREFIX = """params N where N >= 2
tensor x[N] f32
kernel split {{
  for i0 in 1 .. min(8, N) {{ x[i0] = x[i0 - 1] + x[i0] }}
  for i1 in min(8, N) .. N {{ {second} }}
}}
kernel whole {{
  for i in 1 .. N {{ x[i] = x[i - 1] + x[i] }}
}}
claim split == whole
"""


def prefix(second: str = "x[i1] = x[i1 - 1] + x[i1]", profile: str = "default"):
    text = f"profile {profile}\n" + PREFIX.format(second=second)
    return text, claim_reports(text)[0]


def test_recurrence_partitioned_into_two_statements_is_proved():
    for profile in ("default", "reproducible"):
        _, rep = prefix(profile=profile)
        assert rep.verdict == "legal", [(o.kind, o.message) for o in rep.obligations]
        assert not rep.reassociates


def test_partitioned_recurrence_with_a_wrong_second_segment_is_refuted_and_replays():
    for second in ("x[i1] = x[i1 - 1] + x[i1 - 1]", "x[i1] = x[i1 - 1] * x[i1]", "x[i1] = x[i1] + x[i1 - 1] * 0.5"):
        text, rep = prefix(second)
        assert rep.verdict == "illegal", (second, [(o.kind, o.message) for o in rep.obligations])
        assert replays(text, rep)


def test_partitioned_recurrence_with_segments_swapped_is_refuted_and_replays():
    text = ("params N where N >= 2\ntensor x[N] f32\nkernel split {\n"
            "  for i1 in min(8, N) .. N { x[i1] = x[i1 - 1] + x[i1] }\n"
            "  for i0 in 1 .. min(8, N) { x[i0] = x[i0 - 1] + x[i0] }\n}\n"
            "kernel whole {\n  for i in 1 .. N { x[i] = x[i - 1] + x[i] }\n}\nclaim split == whole\n")
    rep = claim_reports(text)[0]
    assert rep.verdict == "illegal"
    assert replays(text, rep)


def test_recurrence_through_a_copy_statement_is_proved():
    """A plain copy `y[I] = y[I]` (a partitioned blend's kept piece) between the two segments:
    its instances stand for the recurrence's values (fuzz_partition_blend_noop_dependence)."""
    text = ("params N where N >= 2\ntensor x[N] f32\nkernel split {\n"
            "  for i0 in 1 .. min(8, N) { x[i0] = x[i0 - 1] + x[i0] }\n"
            "  for c in min(7, N - 1) .. min(8, N) { x[c] = x[c] }\n"
            "  for i1 in min(8, N) .. N { x[i1] = x[i1 - 1] + x[i1] }\n}\n"
            "kernel whole {\n  for i in 1 .. N { x[i] = x[i - 1] + x[i] }\n}\nclaim split == whole\n")
    rep = claim_reports(text)[0]
    assert rep.verdict == "legal", [(o.kind, o.message) for o in rep.obligations]


ROUNDS = """profile {profile}
params N, K where N >= 1, K >= 1
tensor a[N, K] f32
tensor s[N] f32
tensor acc[1] {prec} local
kernel rounds {{
  zero s
  for ko in 0 .. floor((K + 3) / 4) {{
    for i in 0 .. N {{
      acc[0] = {load}
      for ki in 0 .. 4 {{ if 4 * ko + ki < K {{ acc[0] += a[i, {k}] }} }}
      s[i] = acc[0]
    }}
  }}
}}
kernel plain {{
  zero s
  for i in 0 .. N {{ for k in 0 .. K {{ s[i] += a[i, k] }} }}
}}
claim rounds == plain
"""


def rounds(profile="reproducible", prec="f32", load="s[i]", k="4 * ko + ki", outer="for ko in 0 .. floor((K + 3) / 4)"):
    text = ROUNDS.format(profile=profile, prec=prec, load=load, k=k)
    text = text.replace("for ko in 0 .. floor((K + 3) / 4)", outer)
    return text, claim_reports(text)[0]


def test_sum_in_rounds_through_a_private_accumulator_is_one_sum():
    """examples/sgemm_register_tile: k split outside a privatized tile; each round loads the
    previous round's result through two exact copies (acc = s, s = acc): one sum, same order."""
    _, rep = rounds()
    assert rep.verdict == "legal", [(o.kind, o.message) for o in rep.obligations]
    assert not rep.reassociates and any("bitwise" in o.message for o in rep.obligations)


def test_sum_in_rounds_that_drops_a_round_is_refuted_and_replays():
    text, rep = rounds(outer="for ko in 1 .. floor((K + 3) / 4)")
    assert rep.verdict == "illegal"
    assert replays(text, rep)


def test_sum_in_rounds_with_a_wrong_term_is_refuted_and_replays():
    text, rep = rounds(k="4 * ko")
    assert rep.verdict == "illegal"
    assert replays(text, rep)


def test_sum_in_rounds_whose_copy_is_not_exact_is_not_one_sum():
    """A rounding copy (an f16 accumulator) or a scaled reload breaks the chain: refuted."""
    for kw in ({"prec": "f16"}, {"load": "s[i] * 2.0"}):
        text, rep = rounds(**kw)
        assert rep.verdict == "illegal", (kw, [(o.kind, o.message) for o in rep.obligations])
        assert replays(text, rep)


def test_sum_in_rounds_in_reverse_is_a_reassociation():
    outer = "for kr in 0 .. floor((K + 3) / 4)"
    k = "4 * (floor((K + 3) / 4) - 1 - kr) + ki"
    text = ROUNDS.format(profile="reproducible", prec="f32", load="s[i]", k=k)
    text = text.replace("for ko in 0 .. floor((K + 3) / 4)", outer).replace("4 * ko + ki < K", f"{k} < K")
    rep = claim_reports(text)[0]
    assert rep.verdict == "illegal"
    assert [o.kind for o in rep.obligations if o.status == "refuted"] == ["reassociation"]
    rep = claim_reports(text.replace("profile reproducible", "profile default"))[0]
    assert rep.verdict == "legal" and rep.reassociates
