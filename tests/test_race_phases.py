"""Barrier phases, races and barrier uniformity (polyhedral/phases.py, race.py): decided for
all sizes by isl, cross-checked against brute-force GPU semantics (phases_brute.py) at small
sizes, and replayed under the emulator's race detector at the counterexample's sizes."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codegen.build import load_c
from verified_sched.core.dtypes import storage_shape
from codegen.emulate import RaceError, load_emulated
from verified_sched.verify.generic.race import race as race_check
from polyhedral import race
from polyhedral.model import KernelModel
from support.phases_brute import simulate
from verified_sched.dsl import parse_file, parse_text

CASES = Path(__file__).resolve().parent / "cases"
if not CASES.exists():
    CASES = Path(__file__).resolve().parent.parent / "examples"

TILED = """params TK where TK >= 1
tensor a[16, 16 * TK] f32
tensor c[4, 16] f32
tensor tile[16] f32 shared
kernel trailing { for b in 0 .. 4 : block.x { for ko in 0 .. TK {
  for t in 0 .. 16 : thread.x { tile[t] = a[t, 16 * ko + b] }
  barrier
  for t in 0 .. 16 : thread.x { c[b, t] = c[b, t] + tile[15 - t] }
  barrier } } }
kernel notrailing { for b in 0 .. 4 : block.x { for ko in 0 .. TK {
  for t in 0 .. 16 : thread.x { tile[t] = a[t, 16 * ko + b] }
  barrier
  for t in 0 .. 16 : thread.x { c[b, t] = c[b, t] + tile[15 - t] } } } }
kernel inner { for b in 0 .. 4 : block.x { for t in 0 .. 16 : thread.x { for ko in 0 .. TK {
  tile[t] = a[t, 16 * ko + b]
  barrier
  c[b, t] = c[b, t] + tile[15 - t]
  if TK > 2 { barrier } } } } }
kernel uniform_if { for b in 0 .. 4 : block.x { for t in 0 .. 16 : thread.x { for ko in 0 .. TK {
  tile[t] = a[t, 16 * ko + b]
  barrier
  c[b, t] = c[b, t] + tile[15 - t]
  if b < 4 { barrier } } } } }
kernel blockbound { for b in 0 .. 4 : block.x { for t in 0 .. 16 : thread.x { for ko in 0 .. TK + b {
  tile[t] = a[t, b]
  barrier
  c[b, t] = c[b, t] + tile[15 - t]
  barrier } } } }
kernel divloop { for b in 0 .. 4 : block.x { for t in 0 .. 16 : thread.x {
  for s in 0 .. t { barrier }
  c[b, t] = a[t, b] } } }
kernel partial_range { for b in 0 .. 4 : block.x {
  for t in 0 .. 16 : thread.x { tile[t] = a[t, b] }
  for t in 0 .. 15 : thread.x { barrier
    c[b, t] = tile[15 - t] } } }
kernel redundant { for b in 0 .. 4 : block.x {
  c[b, 3] = 1.0
  for t in 0 .. 16 : thread.x { c[b, t] = a[t, b] } } }
kernel leader { for b in 0 .. 4 : block.x {
  c[b, 0] = 1.0
  for t in 0 .. 16 : thread.x { c[b, t] = a[t, b] } } }
kernel blocks { for b in 0 .. 4 : block.x { for t in 0 .. 16 : thread.x { c[0, t] = a[t, b] } } }
kernel launches {
  for t in 0 .. 16 : thread.x { c[0, t] = a[t, 0] }
  for t in 0 .. 16 : thread.x { c[1, t] = c[0, 15 - t] } }
"""
# kernel -> (race, barrier_uniformity)
EXPECT = {"trailing": ("proved", "proved"), "notrailing": ("refuted", "proved"),
          "inner": ("refuted", "proved"), "uniform_if": ("proved", "proved"),
          "blockbound": ("proved", "proved"), "divloop": ("proved", "refuted"),
          "partial_range": ("refuted", "refuted"), "redundant": ("refuted", "proved"),
          "leader": ("proved", "proved"),  # outside thread loops: thread 0 only
          "blocks": ("refuted", "proved"), "launches": ("proved", "proved")}


def decide(program, name):
    m = KernelModel(program, name)
    return race_check(m), race.barrier_uniformity(m)


@pytest.fixture(scope="module")
def tiled():
    return parse_text(TILED)


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_tiled_kernels_decided_and_agree_with_brute_force(tiled, name):
    r, u = decide(tiled, name)
    assert (r.status, u.status) == EXPECT[name], (r.message, u.message)
    for tk in (1, 2, 3):
        out = simulate(tiled, name, {"TK": tk})
        assert bool(out.divergent) == (u.status == "refuted") or tk == 1 and name == "divloop"
        if r.status == "proved":
            assert not out.race, out.races[:2]
    if r.status == "refuted" and u.status != "refuted":  # divergent: phases have no meaning
        cex = r.counterexample.to_json()
        out = simulate(tiled, name, cex["params"])
        assert out.race
        tensors = {x[0] for x in out.races}
        assert {c["tensor"] for c in cex["cells"]} & tensors
        assert len(cex["threads"]) == 2 and cex["threads"][0] != cex["threads"][1]
    if u.status == "refuted":
        w = u.counterexample
        assert [t.reaches for t in w.threads] == [True, False]
        assert w.threads[0].thread != w.threads[1].thread


def test_missing_trailing_barrier_names_the_phase(tiled):
    r, _ = decide(tiled, "notrailing")
    cex = r.counterexample.to_json()
    assert cex["cells"][0]["tensor"] == "tile"
    kos = sorted(i["at"]["ko"] for i in cex["instances"])
    assert kos[1] == kos[0] + 1  # the compute of ko and the load of ko + 1
    assert cex["phase"] == kos[1]
    assert "same barrier phase" in r.message


def _arrays(program, sizes, seed=0):
    rng = np.random.default_rng(seed)
    return {t.name: rng.standard_normal(storage_shape(t, sizes)).astype(np.float32)
            for t in program.tensors if t.memory == "global"}


def _replays(program, name, cex):
    sizes = cex["params"]
    with pytest.raises(RaceError) as info:
        load_emulated(program, 0, detect_races=True, kernels=[name]).run(name, sizes, _arrays(program, sizes))
    return info.value


@pytest.mark.parametrize("name", ["notrailing", "inner", "blocks"])
def test_refuted_race_replays_under_the_detector(tiled, name):
    r, _ = decide(tiled, name)
    err = _replays(tiled, name, r.counterexample.to_json())
    assert err.tensor in {c["tensor"] for c in r.counterexample.to_json()["cells"]}


@pytest.mark.parametrize("name", ["trailing", "uniform_if", "blockbound", "launches"])
def test_proved_kernels_run_clean_and_equal_serial_c(tiled, name):
    sizes = {"TK": 3}
    ref = _arrays(tiled, sizes)
    if name in ("uniform_if", "blockbound"):
        # a barrier inside a thread loop: serial C has no phase semantics (test_corpus_interp_vs_c);
        # the five thread orders must agree with each other instead
        load_emulated(tiled, 99, kernels=[name]).run(name, sizes, ref)
    else:
        load_c(tiled).run(name, sizes, ref)
    for seed in range(5):
        arrays = _arrays(tiled, sizes)
        load_emulated(tiled, seed, detect_races=True, kernels=[name]).run(name, sizes, arrays)
        for t in ref:
            np.testing.assert_array_equal(arrays[t], ref[t])


def test_corpus_shared_with_barrier_is_proved():
    p = parse_file(CASES / "shared_with_barrier.vs")
    r, u = decide(p, "shift")
    assert r.status == "proved" and u.status == "proved"


def test_corpus_shared_missing_barrier_names_threads_and_cell():
    p = parse_file(CASES / "shared_missing_barrier.vs")
    r, _ = decide(p, "shift")
    assert r.status == "refuted"
    cex = r.counterexample.to_json()
    (cell,) = cex["cells"]
    assert cell["tensor"] == "t" and cex["phase"] == 0
    t1, t2 = (x["thread"]["thread.x"] for x in cex["threads"])
    assert t1 != t2 and cell["index"][0] in (t1, t2)
    err = _replays(p, "shift", cex)
    assert err.tensor == "t"


def test_corpus_barrier_divergent_names_two_threads():
    p = parse_file(CASES / "barrier_divergent.vs")
    _, u = decide(p, "shift")
    assert u.status == "refuted"
    reach, miss = u.counterexample.to_json()["threads"]
    assert reach["thread"]["thread.x"] < 32 <= miss["thread"]["thread.x"]
    assert "barrier_divergent.vs:" in u.message


def test_data_dependent_barrier_is_unknown():
    p = parse_text("""params N where N >= 1
tensor g[64] f32
tensor y[64] f32
tensor t[64] f32 shared
kernel k { for b in 0 .. 1 : block.x { for i in 0 .. 64 : thread.x {
  t[i] = g[i]
  if g[0] > 0 { barrier }
  y[i] = t[63 - i] } } }""")
    r, u = decide(p, "k")
    assert u.status == "unknown" and r.status == "unknown"
