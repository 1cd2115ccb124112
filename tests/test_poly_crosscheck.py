"""isl answers against brute-force enumeration at small concrete sizes, for every obligation
kind: in_bounds, coverage, dependence, reassociation, independence, race and contraction
equivalence. The isl side runs on the program with its sizes pinned by equality constraints,
so both sides decide the very same question; "unknown" answers are counted, never compared.
"""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from verified_sched.verify.generic.race import race as race_check
from polyhedral import checks, contraction, race
from polyhedral.model import KernelModel
from support import brute
from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.core.errors import ScheduleError
from verified_sched.ops import apply_op
from verified_sched.analysis.sizes import example_sizes
from verified_sched.fuzz.strategies import programs
from verified_sched.verify.generic.in_bounds import in_bounds
from verified_sched.verify.generic.independence import independence
from verified_sched.verify.driver import idempotent


def pinned(program, sizes):
    eqs = tuple(ir.Cmp("==", ir.Var(p), ir.Int(v)) for p, v in sizes.items())
    return dataclasses.replace(program, constraints=program.constraints + eqs)


def compare(status, ok, what):
    if status == "unknown":
        return 0
    assert (status == "proved") == ok, f"{what}: isl says {status}, brute force says {'ok' if ok else 'violated'}"
    return 1


def crosscheck_pair(before, after, kname, sizes, profile="default"):
    """Compare every generic obligation of one (before, after) pair at `sizes`."""
    b, a = pinned(before, sizes), pinned(after, sizes)
    mb, ma = KernelModel(b, kname, tag="B"), KernelModel(a, kname, tag="A")
    n = compare(in_bounds(ma).status, brute.in_bounds(ma, sizes), "in_bounds")
    idem = idempotent(ma)
    n += compare(checks.coverage(mb, ma, idem).status, brute.coverage(mb, ma, sizes, idem), "coverage")
    dep, red = checks.dependence(mb, ma, profile)
    kept, reversed_red = brute.dependence(mb, ma, sizes)
    if in_bounds(mb).status == "proved":
        n += compare(dep.status, kept, "dependence")
        if _plus(ma) and not _minmax(ma) and red.status == "proved":
            assert red.reassociates == reversed_red, "reassociation (default profile)"
            strict = checks.dependence(mb, ma, "reproducible")[1]
            n += compare(strict.status, not reversed_red, "reassociation (reproducible profile)")
    if ma.barriers:
        return n  # barrier phases: cross-checked by the phase analysis' own brute force
    for loop, inside, depth in checks.parallel_loops(ma):
        f = independence(ma, loop, inside, depth, "after")
        n += compare(f.status, brute.independence(ma, sizes, loop.key), f"independence of {loop.var}")
    hw_tops = {s.top for s in ma.stmts if s.hw()}
    if hw_tops and all(s.hw() for s in ma.stmts if s.top in hw_tops):
        # (statements run redundantly by every thread are the phase analysis' own business)
        n += compare(race_check(ma, "after").status, brute.race(ma, sizes), "race")
    return n


def _plus(model):
    return any(s.acc_op in ("+", "*") for s in model.stmts)


def _minmax(model):
    return any(s.acc_op in ("max", "min") for s in model.stmts)


def schedule_pairs(text):
    program = parse_text(text)
    sched = program.schedules[0]
    cur = program
    for op in sched.ops:
        nxt = apply_op(cur, sched.kernel, op)
        yield cur, nxt, sched.kernel
        cur = nxt


CASES = {
    "stencil_bad": ("""params N, M where N >= 2, M >= 2
tensor x[N, M] f32
tensor A[N, M] f32
kernel k { for i in 1 .. N { for j in 0 .. M - 1 { A[i, j] = 0.5 * A[i - 1, j + 1] + x[i, j] } } }
schedule k { interchange i, j }""", [{"N": 3, "M": 3}, {"N": 2, "M": 2}, {"N": 4, "M": 2}]),
    "stencil_ok": ("""params N, M where N >= 2, M >= 1
tensor x[N, M] f32
tensor A[N, M] f32
kernel k { for i in 1 .. N { for j in 0 .. M { A[i, j] = 0.5 * A[i - 1, j] + x[i, j] } } }
schedule k { interchange i, j }""", [{"N": 3, "M": 3}, {"N": 2, "M": 1}]),
    "rowsum_shift": ("""params N, K where N >= 8, K >= 1
tensor x[N, K] f32
tensor s[N] f32
kernel k { zero s
 for i in 0 .. N { for k in 0 .. K { s[i] += x[i, k] } } }
schedule k { split i by 8 -> io, ii tail=shift_inward }""", [{"N": 8, "K": 1}, {"N": 9, "K": 2}]),
    "relu_shift": ("""params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k { for i in 0 .. N { y[i] = max(x[i], 0) } }
schedule k { split i by 4 -> io, ii tail=shift_inward }""", [{"N": 3}, {"N": 4}, {"N": 7}]),
    "round_up": ("""params N, M where N >= 1, M >= 1
tensor a[N, M] f32
tensor c[N, M] f32
kernel k { for i in 0 .. N { for j in 0 .. M { c[i, j] = a[i, j] } } }
schedule k { split j by 4 -> jo, ji tail=round_up }""", [{"N": 2, "M": 3}, {"N": 1, "M": 4}]),
    "round_up_padded": ("""params N, M where N >= 1, M >= 1
tensor a[N, M] f32 pad(0, 3)
tensor c[N, M] f32 pad(0, 3)
kernel k { zero c
 for i in 0 .. N { for j in 0 .. M { c[i, j] += a[i, j] } } }
schedule k { split j by 4 -> jo, ji tail=round_up }""", [{"N": 2, "M": 3}, {"N": 1, "M": 5}]),
    "prefix_vec": ("""params N where N >= 2
tensor x[N] f32
tensor y[N] f32
kernel k { y[0] = x[0]
 for i in 1 .. N { y[i] = y[i - 1] + x[i] } }
schedule k { retype i as vectorized }""", [{"N": 2}, {"N": 5}]),
    "sum_interchange": ("""params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor s[N] f32
kernel k { zero s
 for i in 0 .. N { for k in 0 .. K { s[i] += x[i, k] } } }
schedule k { interchange i, k }""", [{"N": 2, "K": 2}, {"N": 1, "K": 3}]),
    "rowsum_thread": ("""params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor s[N] f32
kernel k { zero s
 for i in 0 .. N { for k in 0 .. K { s[i] += x[i, k] } } }
schedule k { retype k as thread.x }""", [{"N": 2, "K": 2}, {"N": 2, "K": 1}]),
    "rows_thread": ("""params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor s[N] f32
kernel k { zero s
 for i in 0 .. N { for k in 0 .. K { s[i] += x[i, k] } } }
schedule k { retype i as block.x }""", [{"N": 3, "K": 2}]),
    "skew_vec": ("""params N where N >= 2
tensor y[N + 1, N + 1] f32
kernel k { for i in 0 .. N { for j in 0 .. N { y[i + 1, j] = y[i, j + 1] + 1.0 } } }
schedule k { retype j as vectorized }""", [{"N": 2}, {"N": 3}]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_like_pairs_agree_with_brute_force(name):
    text, size_sets = CASES[name]
    compared = 0
    for before, after, k in schedule_pairs(text):
        for sizes in size_sets:
            compared += crosscheck_pair(before, after, k, sizes)
    assert compared > 0


def test_proofs_pinned_to_a_size_agree_with_symbolic_refutation_sizes():
    """A symbolic refutation's sizes, pinned, still refute; other sizes may prove."""
    text, _ = CASES["rowsum_shift"]
    (before, after, k), = list(schedule_pairs(text))
    f = checks.coverage(KernelModel(before, k, tag="B"), KernelModel(after, k, tag="A"), lambda s: False)
    assert f.status == "refuted"
    sizes = f.counterexample.sizes
    assert not brute.coverage(KernelModel(before, k, tag="B"), KernelModel(after, k, tag="A"), sizes, lambda s: False)
    # N = 8 and N = 16 divide: no recomputation, brute force and isl both say covered
    for n in (8, 16):
        assert crosscheck_pair(before, after, k, {"N": n, "K": 1}) >= 3


GPU = {
    "shared_phases": ("""params B where B >= 1
tensor x[B, 8] f32
tensor y[B, 8] f32
tensor t[8] f32 shared
kernel k { for b in 0 .. B : block.x {
  for i in 0 .. 8 : thread.x { t[i] = x[b, i] }
  barrier
  for i in 0 .. 8 : thread.x { y[b, i] = t[7 - i] } } }""", [{"B": 1}, {"B": 2}]),
    "shared_one_phase": ("""params B where B >= 1
tensor x[B, 8] f32
tensor y[B, 8] f32
tensor t[8] f32 shared
kernel k { for b in 0 .. B : block.x {
  for i in 0 .. 8 : thread.x { t[i] = x[b, i]
    barrier
    y[b, i] = t[7 - i] }
  for i in 0 .. 8 : thread.x { t[i] = y[b, i] } } }""", [{"B": 1}, {"B": 2}]),
    "no_barrier": ("""params B where B >= 1
tensor x[B, 8] f32
tensor y[B, 8] f32
tensor t[8] f32 shared
kernel k { for b in 0 .. B : block.x {
  for i in 0 .. 8 : thread.x { t[i] = x[b, i] }
  for i in 0 .. 7 : thread.x { y[b, i] = t[i + 1] } } }""", [{"B": 1}, {"B": 2}]),
    "divergent": ("""params B where B >= 1
tensor x[B, 8] f32
tensor t[8] f32 shared
kernel k { for b in 0 .. B : block.x { for i in 0 .. 8 : thread.x {
  t[i] = x[b, i]
  if i < 4 { barrier } } } }""", [{"B": 1}]),
}


@pytest.mark.parametrize("name", sorted(GPU))
def test_gpu_kernels_agree_with_brute_force(name):
    """Races and thread-loop independence with straight-line barriers (whose phase is the count
    of barriers before a statement, which the brute force uses), kernel by kernel."""
    text, size_sets = GPU[name]
    program = parse_text(text)
    for sizes in size_sets:
        m = KernelModel(pinned(program, sizes), "k")
        if m.barriers:
            uni = race.barrier_uniformity(m)
            if name == "divergent":
                assert uni.status == "refuted"
                continue
            assert uni.status == "proved"
        exact = True
        assert compare(race_check(m, "kernel").status, brute.race(m, sizes, exact), "race")
        for loop, inside, depth in checks.parallel_loops(m):
            f = independence(m, loop, inside, depth, "kernel")
            compare(f.status, brute.independence(m, sizes, loop.key, exact), f"independence of {loop.var}")


CLAIMS = """params N, K where N >= 1, K >= 1
tensor a[N, K] f32
tensor b[K] f32
tensor c[N] f32
kernel full { zero c
 for i in 0 .. N { for k in 0 .. K { c[i] += a[i, k] * b[k] } } }
kernel rev { zero c
 for k in 0 .. K { for i in 0 .. N { c[i] += b[k] * a[i, k] } } }
kernel short { zero c
 for i in 0 .. N { for k in 0 .. K - 1 { c[i] += a[i, k] * b[k] } } }
kernel twice { zero c
 for i in 0 .. N { for k in 0 .. K { c[i] += a[i, k] * b[k] }
   if i < 1 { c[i] += a[i, 0] * b[0] } } }
kernel split { zero c
 for i in 0 .. N { for k in 0 .. K { if k < 2 { c[i] += a[i, k] * b[k] } else { c[i] += a[i, k] * b[k] } } } }
"""


@pytest.mark.parametrize("other", ["rev", "short", "twice", "split"])
@pytest.mark.parametrize("sizes", [{"N": 1, "K": 1}, {"N": 2, "K": 3}])
def test_contraction_equivalence_agrees_with_term_multisets(other, sizes):
    p = pinned(parse_text(CLAIMS), sizes)
    ma, mb = KernelModel(p, "full", tag="A"), KernelModel(p, other, tag="B")
    res = dict(contraction.equivalence(ma, mb, "default"))
    same = brute.terms(ma, sizes) == brute.terms(mb, sizes)
    compare(res["equivalence"].status, same, f"full == {other}")


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_nests_and_schedules_agree_with_brute_force(data):
    program = data.draw(programs(max_tensors=2, max_loops=3, parallel=True, data_guards=False,
                                 schedule="loops", precisions=("f32",)))
    sched = program.schedules[0] if program.schedules else None
    assume(sched is not None and sched.ops)
    sizes = data.draw(st.sampled_from(example_sizes(program, count=3)))
    assume(all(v <= 6 for v in sizes.values()))
    cur = program
    for op in sched.ops:
        try:
            nxt = apply_op(cur, sched.kernel, op)
        except ScheduleError:
            break
        crosscheck_pair(cur, nxt, sched.kernel, sizes, program.profile or "default")
        cur = nxt


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_nests_with_data_guards_and_dynamic_indices_agree(data):
    """Data-dependent guards and indices: isl decides over the "may" model (or says unknown);
    whatever it decides agrees with enumeration, which takes every data guard as true."""
    program = data.draw(programs(max_tensors=2, max_loops=3, parallel=True, data_guards=True, dynamic=True,
                                 schedule="loops", precisions=("f32",)))
    sched = program.schedules[0] if program.schedules else None
    assume(sched is not None and sched.ops)
    sizes = data.draw(st.sampled_from(example_sizes(program, count=3)))
    assume(all(v <= 5 for v in sizes.values()))
    cur = program
    for op in sched.ops:
        try:
            nxt = apply_op(cur, sched.kernel, op)
        except ScheduleError:
            break
        crosscheck_pair(cur, nxt, sched.kernel, sizes, program.profile or "default")
        cur = nxt
