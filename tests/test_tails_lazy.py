"""Lazy evaluation in the polyhedral model: a read inside `where(c, a, b)` (or right of `and`/
`or`) is made only where its branch is taken, so in_bounds checks it there and dependences do
not see it elsewhere; a blend store `t[I] = where(c, v, t[I])` takes effect only under c, but
its accesses still count for in_bounds and independence."""
from __future__ import annotations

import dataclasses

import pytest

from verified_sched.oracle.compare import compare_kernels
from polyhedral import checks
from polyhedral.model import KernelModel
from verified_sched.dsl import parse_text
from verified_sched.core.errors import ScheduleError
from verified_sched.interp.scalar import KernelError
from verified_sched.ops import apply_op, apply_schedule
from verified_sched.verify.generic.in_bounds import in_bounds
from verified_sched.verify.driver import verify_program
from test_ops_support import run_interp

ELEMENTWISE = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32 pad(7)
kernel k {{
  for i in 0 .. N {{
    y[i] = 2 * x[i]
  }}
}}
kernel ref {{
  for i in 0 .. N {{
    y[i] = 2 * x[i]
  }}
}}
schedule k {{
  split i by 8 -> io, ii tail={tail}
}}
"""


def obligations(text, kernel="k"):
    rep = next(r for r in verify_program(parse_text(text)) if r.kernel == kernel)
    return rep, {(o.op_index, o.kind): o for o in rep.obligations}


def scheduled(text, kernel="k"):
    program = parse_text(text)
    return program, apply_schedule(program, kernel)


def test_predicate_loads_lazy_read_is_not_out_of_bounds():
    """x unpadded, y pad(7): the masked load `where(p, x[i], 0)` is never made where p fails,
    so x[7] at N = 1 is not read (it was a false counterexample: it did not replay)."""
    text = ELEMENTWISE.format(tail="predicate_loads")
    rep, obl = obligations(text)
    assert obl[(1, "in_bounds")].status == "proved", obl[(1, "in_bounds")].message
    assert rep.verdict == "legal", [(o.kind, o.message) for o in rep.obligations if o.status != "proved"]
    program, after = scheduled(text)
    model = KernelModel(after, "k")
    (st,) = model.stmts
    (xread,) = [a for a in st.accesses if a.tensor == "x"]
    assert xread.context  # evaluated under the mask only
    for n in (1, 5, 8, 13):
        run_interp(after, "k", {"N": n})  # raises on any access outside storage
        r = compare_kernels(program, "ref", "k", {"N": n}, seed=n, program_cand=after)
        assert r.ok, r.text()


def test_unmasked_read_is_still_out_of_bounds_and_replays():
    """The same kernel split with round_up reads x[7] at N = 1 for real."""
    text = ELEMENTWISE.format(tail="round_up")
    _, obl = obligations(text)
    o = obl[(1, "in_bounds")]
    assert o.status == "refuted" and o.counterexample.to_json()["cells"][0]["tensor"] == "x"
    _, after = scheduled(text)
    with pytest.raises(KernelError, match="out of bounds"):
        run_interp(after, "k", o.counterexample.sizes)


KERNEL = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {{
  for i in 0 .. N {{
    y[i] = {value}
  }}
}}
"""


@pytest.mark.parametrize("value", [
    "where(i > 0, where(i < N - 1, x[i - 1] + x[i + 1], 0), 0)",  # nested: both conditions
    "where(i + 1 >= N, 0, x[i + 1])",  # the second branch: under not c
    "where(i + 1 < N and x[i + 1] > 0, 1, 0)",  # `and` evaluates its right side under the left
    "where(i + 1 >= N or x[i + 1] > 0, 1, 0)",  # `or` under not the left
])
def test_lazy_reads_are_in_bounds(value):
    text = KERNEL.format(value=value)
    _, obl = obligations(text)
    assert obl[(0, "in_bounds")].status == "proved", obl[(0, "in_bounds")].message
    program = parse_text(text)
    for n in (1, 2, 5):
        run_interp(program, "k", {"N": n})


@pytest.mark.parametrize("value", [
    "where(i > 0, x[i + 1], 0)",
    "where(i > 0, where(i < N, x[i + 1], 0), 0)",
    "where(i + 1 > N, 0, x[i + 1])",
    "where(i > 0 and x[i + 1] > 0, 1, 0)",
])
def test_reads_in_a_taken_branch_are_refuted_and_replay(value):
    text = KERNEL.format(value=value)
    _, obl = obligations(text)
    o = obl[(0, "in_bounds")]
    assert o.status == "refuted"
    with pytest.raises(KernelError, match="out of bounds"):
        run_interp(parse_text(text), "k", o.counterexample.sizes)


def test_a_read_in_a_branch_never_taken_makes_no_dependence():
    """`a[i - 1, j + 1]` is read only where i < 0, i.e. never: interchanging is legal (a
    dependence from that read would be a false refutation)."""
    text = """params N, M where N >= 1, M >= 1
tensor a[N, M] f32
tensor b[N, M] f32
kernel k {
  for i in 0 .. N {
    for j in 0 .. M {
      a[i, j] = where(i < 0, a[i - 1, j + 1], b[i, j])
    }
  }
}
schedule k {
  interchange i, j
}
"""
    rep, obl = obligations(text)
    assert obl[(1, "dependence")].status == "proved"
    assert rep.verdict == "legal"


def test_blend_no_op_lanes_still_count_for_independence():
    """shift_inward_and_blend under a vectorized io: a duplicate lane stores back a cell the
    previous tile writes, concurrently (read-modify-write): a real conflict."""
    text = """params N where N >= 8
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    y[i] = 2 * x[i]
  }
}
schedule k {
  split i by 8 -> io, ii tail=shift_inward_and_blend
  retype io as vectorized
}
"""
    rep, obl = obligations(text)
    assert obl[(1, "coverage")].status == "proved"  # sequentially, the duplicate store is a no-op
    o = obl[(2, "independence")]
    assert o.status == "refuted" and o.counterexample.to_json()["cells"][0]["tensor"] == "y"
    n = o.counterexample.sizes["N"]
    assert n % 8  # only a partial last tile has duplicate lanes


def test_round_up_and_blend_extra_lanes_are_independent():
    text = ELEMENTWISE.format(tail="round_up_and_blend").replace(
        "tail=round_up_and_blend", "tail=round_up_and_blend\n  retype io as vectorized")
    rep, _ = obligations(text)
    assert rep.verdict == "legal", [(o.kind, o.message) for o in rep.obligations if o.status != "proved"]


def test_blend_store_is_effective_only_under_its_condition():
    """The model restricts a blend's stores and provenance to its condition, not its reads."""
    _, after = scheduled(ELEMENTWISE.format(tail="round_up_and_blend"))
    model = KernelModel(after, "k")
    (st,) = model.stmts
    assert st.blend is not None
    dom, eff = model.domains[st.name], model.effective_domains[st.name]
    assert eff.is_strict_subset(dom)  # the lanes past N are no-op stores
    assert model.store_map(st).domain().is_equal(eff)
    assert not model.reads.intersect_domain(model.domain.subtract(eff)).is_empty()  # they read y
    assert in_bounds(model).status == "proved"  # y pad(7) holds the extra lanes


@pytest.mark.parametrize("tail", ["predicate_loads", "round_up_and_blend", "shift_inward_and_blend",
                                  "predicate_stores", "round_up", "shift_inward"])
@pytest.mark.parametrize("kind", ["ew", "rs"])
def test_tails_agree_with_brute_force(kind, tail):
    """isl's in_bounds, coverage, dependence and independence answers on the tails equal
    enumeration at small pinned sizes (lazy reads and blend stores modelled alike)."""
    from test_poly_crosscheck import crosscheck_pair
    from test_tails_matrix import family_text
    compared = 0
    for ops in (f"tail={tail} partition=never\n  retype io as vectorized", f"tail={tail} partition=always"):
        text = family_text(kind, "out", 1).replace(f"tail={tail} partition=never", ops)
        k = f"k_{tail}_never" if "never" in ops else f"k_{tail}_always"
        program = parse_text(text)
        program = dataclasses.replace(program, schedules=(program.schedule_for(k),))
        try:
            pairs = list(schedule_pairs_of(program, k))
        except ScheduleError:
            continue  # round_up has nothing to partition
        for before, after, _ in pairs:
            for n in (3, 8, 13):
                sizes = {"N": n} if kind == "ew" else {"N": n, "K": 2}
                compared += crosscheck_pair(before, after, k, sizes)
    assert compared > 0


def schedule_pairs_of(program, kernel):
    cur = program
    for op in program.schedule_for(kernel).ops:
        nxt = apply_op(cur, kernel, op)
        yield cur, nxt, kernel
        cur = nxt


NESTED = """params N, M where N >= 8, M >= 4
tensor x[N, M] f32
tensor y[N, M] f32 pad(7, 3)
kernel k {{
  for i in 0 .. N {{
    for j in 0 .. M {{
      y[i, j] = y[i, j] + x[i, j]
    }}
  }}
}}
kernel ref {{
  for i in 0 .. N {{
    for j in 0 .. M {{
      y[i, j] = y[i, j] + x[i, j]
    }}
  }}
}}
schedule k {{
  split i by 8 -> io, ii tail={tail}
  split j by 4 -> jo, ji tail={tail}
  interchange ii, jo
}}
"""


@pytest.mark.parametrize("tail", ["round_up_and_blend", "shift_inward_and_blend", "predicate_loads"])
def test_two_tails_compose(tail):
    """Splitting both loops nests the masks (or blends): `where(c2, where(c1, v, t[I]), t[I])`
    is effective under c1 and c2 together."""
    text = NESTED.format(tail=tail)
    rep, _ = obligations(text)
    assert rep.verdict == "legal", [(o.kind, o.message) for o in rep.obligations if o.status != "proved"]
    program, after = scheduled(text)
    for n, m in ((8, 4), (13, 6), (21, 9)):
        r = compare_kernels(program, "ref", "k", {"N": n, "M": m}, seed=n, program_cand=after)
        assert r.ok, r.text()
