"""Claims over scatters with data-dependent rows, by lifting the row (polyhedral/claims_lift.py;
issue 20: examples/embedding_backward's `claim scheduled == original` stayed unknown, its rows
`ids[n]` being data)."""
from __future__ import annotations

from test_claims_value import claim_reports, replays

HEAD = """profile {profile}
params N, V, D where N >= 1, V >= 1, D >= 1
tensor ids[N] i32
tensor ids2[N] i32
tensor g[N, D] f32
tensor emb[V, D] f32
tensor part[2, V, D] f32 scratch
"""
PLAIN = """kernel plain {
  zero emb
  for n in 0 .. N { for d in 0 .. D { if ids[n] >= 0 and ids[n] < V { emb[ids[n], d] += g[n, d] } } }
}
"""
TWO_PASS = """kernel two_pass {{
  zero emb
  zero part
  for nb in 0 .. 2 {{ for ni in 0 .. floor((N + 1) / 2) {{ for d in 0 .. D {{
    if 2 * ni + nb < N {{ if {guard} {{ part[nb, {row}, d] += {term} }} }}
  }} }} }}
  for c0 in 0 .. V {{ for c1 in 0 .. D {{ emb[c0, c1] += part[0, c0, c1] + part[1, c0, c1] }} }}
}}
"""
GUARD = "ids[2 * ni + nb] >= 0 and ids[2 * ni + nb] < V"


def claim(profile="default", guard=GUARD, row="ids[2 * ni + nb]", term="g[2 * ni + nb, d]", second=PLAIN):
    text = (HEAD.format(profile=profile) + TWO_PASS.format(guard=guard, row=row, term=term) + second +
            f"claim two_pass == {second.split()[1]}\n")
    return text, claim_reports(text)[0]


def test_scatter_split_into_blocks_is_proved_for_every_row_value():
    text, rep = claim()
    assert rep.verdict == "legal", [(o.kind, o.message) for o in rep.obligations]
    assert rep.reassociates and "for every value of ids" in rep.obligations[0].message


def test_same_scatter_in_another_loop_order_is_proved_bitwise():
    swapped = PLAIN.replace("plain", "swapped").replace("for n in 0 .. N { for d in 0 .. D {",
                                                         "for d in 0 .. D { for n in 0 .. N {")
    text = HEAD.format(profile="reproducible") + PLAIN + swapped + "claim plain == swapped\n"
    rep = claim_reports(text)[0]
    assert rep.verdict == "legal" and not rep.reassociates, [(o.kind, o.message) for o in rep.obligations]


def test_scatter_with_a_narrower_guard_is_refuted_and_replays():
    text, rep = claim(guard="ids[2 * ni + nb] >= 0 and ids[2 * ni + nb] < V - 1")
    assert rep.verdict == "illegal"
    assert replays(text, rep)


def test_scatter_with_a_wrong_term_or_row_tensor_is_never_proved():
    for kw in ({"term": "g[2 * ni + nb, 0]"}, {"row": "ids2[2 * ni + nb]",
                                                "guard": "ids2[2 * ni + nb] >= 0 and ids2[2 * ni + nb] < V"}):
        text, rep = claim(**kw)
        assert rep.verdict != "legal", kw


def test_unguarded_row_is_not_lifted():
    """Without a guard that keeps the row within the dimension a real row may fall outside the
    lifted ones: not lifted, unknown (the kernel's own in_bounds speaks for the access)."""
    _, rep = claim(guard="2 * ni + nb >= 0")
    assert rep.verdict != "legal"


def test_reproducible_refusal_under_lifting_is_not_a_refutation():
    """A lifted difference need not be real: only `proved` carries over; the rest is unknown
    (unless a run refutes)."""
    _, rep = claim(profile="reproducible")
    assert rep.verdict in ("unknown", "illegal")
    assert not any(o.status == "refuted" and o.engine != "run" for o in rep.obligations)
