"""Regression (fuzz seed 4242, a `counterexample` finding): the fuzz check replayed a refuted
obligation with random inputs only, not with the input values its counterexample names. A
`split ... tail=predicate_loads` of `s[0] += x[i, k]` runs an extra instance that adds 0.0
(the masked load): it turns a -0.0 sum into +0.0, which the verifier refutes with `inputs:
special` (a run shows it) — random inputs never give a -0.0 sum, so the replay "failed" and
the campaign reported a correct refutation as a bad counterexample. The replay now runs the
counterexample's own inputs first."""
from verified_sched.dsl import parse_text
from verified_sched.fuzz import check

TEXT = """params N, K where N >= 1, K >= 1

tensor x[N, K] f32
tensor s[N] f32

kernel red {
  for i in 0 .. N {
    for k in 0 .. K {
      s[0] += x[i, k]
    }
  }
}

schedule red {
  split i by 2 -> io0, ii0 tail=predicate_loads
}
"""


def test_a_refutation_by_special_inputs_replays_with_them():
    program = parse_text(TEXT)
    out = check.check_example(program, "red", [{"N": 1, "K": 1}, {"N": 3, "K": 5}])
    assert out.verdict == "illegal" and "coverage" in out.refuted_kinds
    cov = [o for o in next(r for r in check.verify_program(program) if r.kernel == "red").obligations
           if o.kind == "coverage"]
    assert cov[0].status == "refuted" and cov[0].counterexample.instance.inputs  # (values matter here)
    assert ("coverage", "replayed") in out.replays
    assert out.finding is None
