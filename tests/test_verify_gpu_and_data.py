"""Hardware order and "may" facts: threads are unordered across enclosing serial loops,
barriers order one block only, and data-dependent guards or indices never prove or refute
by assumption (they make a conflict "unknown", and coverage demands the same guard)."""
from __future__ import annotations

from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program


def obligations(text):
    return [o for r in verify_program(parse_text(text)) for o in r.obligations]


def kinds(obls, status):
    return {o.kind for o in obls if o.status == status}


def test_threads_are_unordered_across_an_enclosing_serial_loop():
    # thread t writes y[t + 1] in iteration k and thread t + 1 reads it in iteration k + 1
    obls = obligations("""params K where K >= 2
tensor y[65] f32
kernel k { for k in 0 .. K { for t in 0 .. 64 : thread.x { y[t + 1] = y[t] + 1.0 } } }""")
    assert "independence" in kinds(obls, "refuted")


def test_barrier_does_not_order_blocks():
    obls = obligations("""params B where B >= 2
tensor x[B, 64] f32
tensor y[64] f32
tensor t[64] f32 shared
kernel k { for b in 0 .. B : block.x {
  for i in 0 .. 64 : thread.x { t[i] = x[b, i] }
  barrier
  for i in 0 .. 64 : thread.x { y[i] = t[63 - i] } } }""")
    race = next(o for o in obls if o.kind == "race")
    assert race.status == "refuted" and "blocks" in race.message


def test_barrier_phases_order_one_block_and_same_phase_conflicts_race():
    text = """params B where B >= 1
tensor x[B, 64] f32
tensor y[B, 64] f32
tensor t[64] f32 shared
kernel k { for b in 0 .. B : block.x {
  for i in 0 .. 64 : thread.x { t[i] = x[b, i] }
  barrier
  for i in 0 .. 64 : thread.x { y[b, i] = t[63 - i] } } }"""
    race = next(o for o in obligations(text) if o.kind == "race")
    assert race.status == "proved"
    race = next(o for o in obligations(text.replace("barrier\n", "")) if o.kind == "race")
    assert race.status == "refuted"


def test_data_guard_conflict_is_unknown_and_guarded_split_is_proved():
    text = """params N where N >= 2
tensor g[N] f32
tensor y[N] f32
kernel k { for i in 0 .. N { if g[i] > 0 { y[0] = y[0] + g[i] } } }
schedule k { split i by 4 -> io, ii }"""
    obls = obligations(text)
    cov = [o for o in obls if o.kind == "coverage"]
    assert cov and all(o.status == "proved" for o in cov)
    par = obligations(text.replace("split i by 4 -> io, ii", "retype i as vectorized"))
    ind = next(o for o in par if o.kind == "independence" and o.op_index == 1)
    assert ind.status == "unknown"  # the two iterations conflict only if both guards hold


def test_dynamic_index_in_bounds_is_unknown():
    obls = obligations("""params N where N >= 1
tensor idx[N] i32
tensor x[N] f32
tensor y[N] f32
kernel k { for i in 0 .. N { y[i] = x[idx[i]] } }""")
    assert next(o for o in obls if o.kind == "in_bounds").status == "unknown"
