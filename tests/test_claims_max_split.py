"""`claim scheduled == original` for a max reduction split into partial maxes (issue 20: "a
reproducible max split_reduction" stayed unknown). Each partial max starts from the cell's
own start value (split_reduction copies it into the partials), and the combine takes the max
of the partials: max is idempotent, so the partial maxes' terms, their start values and the
combine's form one set of terms with the original start value (claims_value.families)."""
from __future__ import annotations

from test_claims_value import claim_reports, replays

SPLIT = """profile reproducible
params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor s[N] f32
tensor p[4, N] {prec} scratch
kernel split {{
  for i in 0 .. N {{ s[i] = -1000.0 }}
  for i in 0 .. N {{
    for kb in 0 .. 4 {{
      p[kb, i] = {start}
      for kk in 0 .. floor((K + 3) / 4) {{ if 4 * kk + kb < K {{ p[kb, i] = max(p[kb, i], x[i, 4 * kk + kb]) }} }}
    }}
  }}
  for i in 0 .. N {{ s[i] = max(s[i], max(max(p[0, i], p[1, i]), max(p[2, i], {last}))) }}
}}
kernel whole {{
  for i in 0 .. N {{ s[i] = -1000.0 }}
  for i in 0 .. N {{ for k in 0 .. K {{ s[i] = max(s[i], x[i, k]) }} }}
}}
claim split == whole
"""


def claim(prec="f32", start="s[i]", last="p[3, i]"):
    text = SPLIT.format(prec=prec, start=start, last=last)
    return text, claim_reports(text)[0]


def test_max_split_into_partial_maxes_is_proved_under_reproducible():
    _, rep = claim()
    assert rep.verdict == "legal", [(o.kind, o.message) for o in rep.obligations]
    assert not rep.reassociates


def test_max_split_with_wrong_partials_is_refuted_and_replays():
    for kw in ({"start": "0.0"}, {"last": "p[2, i]"}, {"prec": "f16"}):
        text, rep = claim(**kw)
        assert rep.verdict == "illegal", (kw, [(o.kind, o.message) for o in rep.obligations])
        assert replays(text, rep)
