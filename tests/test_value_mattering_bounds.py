"""The instances whose reads matter, by bounds instead of isl's transitive closure
(polyhedral/valuedeps.py, `_Mattering.bounds`): a value flow of many pieces can keep isl's
closure busy past the deadline (fuzz example s31337/slow02: more than two minutes), while a
few iterations of F(X) = seeds | reads(X) from below and from above bound the set, and the
violations with the bounds decide the obligation whenever none are found above or some below.
"""
from __future__ import annotations

import islpy as isl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polyhedral import valuedeps
from polyhedral.bounded import CpuLimit
from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program
from test_value_dependences_fuzz import kernels


class _Model:
    def __init__(self, domain):
        self.domain = domain


def _mattering(reads: isl.UnionMap, seeds: isl.UnionSet, domain: isl.UnionSet):
    mat = object.__new__(valuedeps._Mattering)
    mat.m, mat.reads, mat.seeds = _Model(domain), reads, seeds
    return mat


STEP = st.tuples(st.sampled_from(("S0", "S1")), st.sampled_from(("S0", "S1")), st.integers(-2, 2),
                 st.sampled_from(("", "i >= 3", "i <= 5", "i mod 2 = 0")))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=st.lists(STEP, min_size=1, max_size=5), seed_at=st.sampled_from(("N - 1", "0", "3")))
def test_bounds_enclose_the_reachable_instances(steps, seed_at):
    """below <= seeds | seeds.apply(closure) <= above, on random relations between two
    statements; equal bounds are the set itself (where isl's closure is exact)."""
    domain = isl.UnionSet("[N] -> { S0[i] : 0 <= i < N; S1[i] : 0 <= i < N }")
    text = "; ".join(f"{a}[i] -> {b}[i + ({d})]" + (f" : {c}" if c else "") for a, b, d, c in steps)
    reads = isl.UnionMap(f"[N] -> {{ {text} }}").intersect_domain(domain).intersect_range(domain)
    seeds = isl.UnionSet(f"[N] -> {{ S0[i] : i = {seed_at} }}").intersect(domain)
    closure, exact = reads.transitive_closure()
    below, above = _mattering(reads, seeds, domain).bounds()
    assert below.is_subset(above)
    if exact:
        reach = seeds.union(seeds.apply(closure))
        assert below.is_subset(reach) and reach.is_subset(above)
        if below.is_equal(above):
            assert below.is_equal(reach)


def _dependences(text: str, bounds: bool, monkeypatch) -> list:
    """(op, status) of every dependence obligation, with the bounds forced (`bounds`: as for a
    value flow of many pieces whose closure is slow) or isl's closure as for a small one."""
    orig = valuedeps._Mattering.exact

    def slow(self, cpu_limit=None):
        if cpu_limit is not None:
            raise CpuLimit("as a slow closure")
        return orig(self)
    with monkeypatch.context() as mp:
        if bounds:
            mp.setattr(valuedeps._Mattering, "cheap_closure", property(lambda self: self.trivial))
            mp.setattr(valuedeps._Mattering, "exact", slow)
        rep = verify_program(parse_text(text), timeout=60)[-1]
    return [(o.op_index, o.status) for o in rep.obligations if o.kind == "dependence"]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=kernels())
def test_bounds_decide_as_the_closure(text, monkeypatch):
    """The dependence verdicts with the bounds (then the closure where they decide nothing)
    are the verdicts with isl's closure."""
    assert _dependences(text, True, monkeypatch) == _dependences(text, False, monkeypatch)


# fuzz example s31337/slow02 (vsched fuzz --seed 31337): the value flow's closure (28 pieces)
# ran past the 5 s deadline (isl alone: over two minutes), the dependence of `reverse k` unknown
S31337_SLOW02 = """params N where N >= 2

tensor x[3 * N + 3, 3 * N + 2, 2 * N + 2] f32 pad(1, 0, 0)
tensor y[3 * N + 2] f32

kernel kern0 {
  for i in 0 .. N + 1 : unrolled {
    for j in 0 .. i + 1 {
      for k in 0 .. N + 2 {
        y[floor(i / 2)] += -1.5 * min(y[k + j], j)
      }
      y[max(j - 2, 0)] *= x[3 * i + 1, 3 * j + 1, i + j]
    }
    if i % 2 > N or i % 2 == 3 {
      if i + i < N or i + i >= 1 {
        y[3 * i + 1] *= -2 + i
        y[min(i, i)] *= y[min(i, i)]
      } else {
        y[max(i - 2, 0)] = min(y[max(i - 2, 0)], min(f32(y[min(i, i)]), y[N - i]))
      }
      y[1] = x[N - i, i % 2, N - i]
    }
  }
  y[0] *= min(x[2, 0, 1], -3) / 0.5
}

schedule kern0 {
  pad j to 8
  reverse k
}
"""


def test_s31337_slow02_reverse_k_is_refuted_by_value_without_the_closure(monkeypatch):
    """The reads below the mattering instances already see a changed value: refuted by value
    (the counterexample replays); isl's closure of the value flow only gets its quick try
    (QUICK_CLOSURE_CPU), never the whole budget."""
    calls = []
    orig = valuedeps._Mattering.exact
    monkeypatch.setattr(valuedeps._Mattering, "exact",
                        lambda self, cpu_limit=None: calls.append(cpu_limit) or orig(self, cpu_limit))
    rep = verify_program(parse_text(S31337_SLOW02), timeout=60)[-1]
    dep = [o for o in rep.obligations if o.kind == "dependence" and o.op_index == 2]
    assert [o.status for o in dep] == ["refuted"]
    assert "the value changes" in dep[0].message
    assert None not in calls
