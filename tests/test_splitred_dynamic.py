"""split_reduction, dynamic scatter form (embedding backward): verdicts, obligations on
hand-broken results, runs (C, emulation) with colliding rows, preconditions."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from codegen.build import load_c
from codegen.emulate import load_emulated
from verified_sched.core import ir
from verified_sched.verify.generic.independence import independence
from verified_sched.dsl import parse_text
from verified_sched.core.errors import ScheduleError
from verified_sched.ops import apply_op, apply_schedule
from verified_sched.verify.driver import OpContext, own_obligations, verify_program
from verified_sched.verify.kernel_report import file_report_json

HEAD = ("params N, V, D where N >= 1, V >= 1, D >= 1\ntensor ids[N] i32\ntensor g[N, D] f32\n"
        "tensor emb[V, D] f32\n")
RETYPE = "\n  retype nb as block.x"


def emb_src(update: str = "emb[ids[n], d] += g[n, d]", sched: str = RETYPE, head: str = HEAD,
            blocks: int = 4) -> str:
    return (head + "kernel embedding_backward {\n  zero emb\n  for n in 0 .. N {\n    for d in 0 .. D {\n"
            f"      {update}\n    }}\n  }}\n}}\nschedule embedding_backward {{\n"
            f"  split_reduction n of emb blocks={blocks} -> nb, ni, emb_partials{sched}\n}}\n")


GUARDED = ("params N, V, D, H where N >= 1, V >= 2, D >= 1, H >= 1\ntensor ids[N] i32\ntensor g[N, D] f32\n"
           "tensor cnt[N] f32\ntensor emb[V, D, H] f32\nkernel embedding_backward {\n  zero emb\n"
           "  for h in 0 .. H {\n    for n in 0 .. N {\n      cnt[n] = g[n, 0]\n      if n % 3 != 1 {\n"
           "        for d in 0 .. D {\n          if ids[n] >= 1 {\n"
           "            emb[ids[n] - 1, d, h] = fma(g[n, d], 2.0, emb[ids[n] - 1, d, h])\n"
           "          }\n        }\n      }\n    }\n  }\n}\n"
           "schedule embedding_backward {\n  split_reduction n of emb blocks=3 -> nb, ni, emb_partials\n"
           "  retype nb as block.x\n}\n")
K = "embedding_backward"


def scheduled(program, upto=None):
    return apply_schedule(program, K, upto)


def report(program, profile=None):
    return file_report_json(verify_program(program, profile=profile), "f")


def by_status(rep, status):
    return [o for o in rep["obligations"] if o["status"] == status]


def check_only_dynamic_bounds_open(rep):
    """Everything is proved except in_bounds of the data-dependent row, which isl cannot bound
    (polyhedral/checks.in_bounds: a dynamic index may leave storage) - before any op already."""
    for o in by_status(rep, "unknown"):
        assert o["kind"] == "in_bounds" and "dynamic index" in o["message"], o
    assert rep["verdict"] == ("legal" if not by_status(rep, "unknown") else "unknown")


# ---------------------------------------------------------------- verdicts


def test_default_profile_reassociates_and_block_loop_is_independent():
    rep = report(parse_text(emb_src()))
    assert not by_status(rep, "refuted") and rep["reassociates"] is True
    proved = {(o["op_index"], o["kind"]) for o in by_status(rep, "proved")}
    assert {(1, "injective_partials"), (1, "equivalence"), (1, "reassociation"), (1, "dependence"),
            (2, "independence"), (2, "race"), (2, "coverage"), (2, "dependence")} <= proved
    check_only_dynamic_bounds_open(rep)


def test_reproducible_refutes_reassociation_with_a_replayable_collision():
    rep = report(parse_text(emb_src()), profile="reproducible")
    assert rep["verdict"] == "illegal"
    bad = by_status(rep, "refuted")
    assert [o["kind"] for o in bad] == ["reassociation"]
    cex = bad[0]["counterexample"]
    a, b = cex["instances"]
    assert cex["params"]["N"] >= 2 and a["at"]["n"] != b["at"]["n"] and a["at"]["d"] == b["at"]["d"]
    # the data that makes them collide: both rows read 0
    assert sorted(x["index"][0] for x in cex["data"]) == sorted([a["at"]["n"], b["at"]["n"]])
    assert all(x["tensor"] == "ids" and x["value"] == 0 for x in cex["data"])
    assert cex["cells"] == [{"tensor": "emb", "index": [0, a["at"]["d"]]}]
    assert list(cex) == ["params", "instances", "data", "cells"]  # the report's key order as before
    assert a["writes"] == b["writes"] == {"tensor": "emb", "index": [0, a["at"]["d"]]}


def test_guarded_variant():
    p = parse_text(GUARDED)
    rep = report(p)
    assert not by_status(rep, "refuted") and rep["reassociates"] is True
    assert {o["kind"] for o in by_status(rep, "proved") if o["op_index"] == 1} >= {
        "injective_partials", "equivalence", "reassociation", "dependence"}
    check_only_dynamic_bounds_open(rep)
    # under reproducible the collision depends on the guard's data: not decided, never proved
    rep = report(p, profile="reproducible")
    red = [o for o in rep["obligations"] if o["kind"] == "reassociation" and o["op_index"] == 1]
    assert red[0]["status"] == "unknown" and rep["verdict"] == "unknown"


def test_result_shape():
    p = scheduled(parse_text(emb_src()))
    t = p.tensor("emb_partials")
    assert t.memory == "global" and t.dims == (ir.Int(4), ir.Var("V"), ir.Var("D")) and t.prec == "f32"
    body = p.kernel(K).body
    assert len(body) == 4 and body[1] == ir.Zero("emb_partials")  # zero emb, zero P, scatter, combine
    assert body[2].var == "nb" and body[2].axis == "block.x"
    comb = body[3]
    assert [comb.var, comb.body[0].var] == ["emb_c0", "emb_c1"] and comb.hi == ir.Var("V")
    st = comb.body[0].body[0]
    assert st.sid == "S0_combine"
    assert sorted(r.index[0].value for r in ir.reads(st.value) if r.tensor == "emb_partials") == [0, 1, 2, 3]
    scatter = [n for n in ir.walk(body[2]) if isinstance(n, ir.Assign)][0]
    assert scatter.tensor == "emb_partials" and scatter.index[0] == ir.Var("nb")
    assert isinstance(scatter.index[1], ir.Load) and scatter.index[1].tensor == "ids"


# ---------------------------------------------------------------- the obligations catch broken results


def _ctx(src, mutate, profile="default"):
    p = parse_text(src)
    before = p
    op = p.schedule_for(K).ops[0]
    after = mutate(apply_op(p, K, op))
    return OpContext(before, after, K, op, 1, profile, 10.0, float("inf"))


def _own(ctx) -> dict:
    """The op's own obligations on `ctx`, discharged, by kind."""
    return {o.kind: o for o in own_obligations(ctx)}


def _rewrite_kernel(fn):
    def mutate(prog):
        k = prog.kernel(K)
        return prog.with_kernel(dataclasses.replace(k, body=tuple(ir.rewrite(s, fn) for s in k.body)))
    return mutate


def test_equivalence_and_injectivity_refute_broken_results():
    src = emb_src(sched="")
    ok = _ctx(src, lambda p: p)
    assert _own(ok)["equivalence"].status == "proved" and _own(ok)["injective_partials"].status == "proved"

    def other_row(n):  # the scatter reads the row of the next instance
        if isinstance(n, ir.Load) and n.tensor == "ids" and not isinstance(n.index[0], ir.Int):
            return dataclasses.replace(n, index=(ir.BinOp("+", n.index[0], ir.Int(1)),))
        return None
    assert _own(_ctx(src, _rewrite_kernel(other_row)))["equivalence"].status == "refuted"

    def drop_block(n):  # the combine forgets block 3
        if isinstance(n, ir.Load) and n.tensor == "emb_partials" and n.index[0] == ir.Int(3):
            return dataclasses.replace(n, index=(ir.Int(2),) + n.index[1:])
        return None
    assert "block 3 never reach" in _own(_ctx(src, _rewrite_kernel(drop_block)))["equivalence"].message

    def one_slice(n):  # every block scatters into slice 0
        if isinstance(n, ir.Assign) and n.tensor == "emb_partials":
            idx = (ir.Int(0),) + n.index[1:]
            return dataclasses.replace(n, index=idx, value=ir.BinOp("+", ir.Load("emb_partials", idx),
                                                                      ir.accumulation(n)[1]))
        return None
    bad = _ctx(src, _rewrite_kernel(one_slice))
    inj = _own(bad)["injective_partials"]
    assert inj.status == "refuted" and inj.counterexample.to_json()["instances"][0]["at"]["nb"] != \
        inj.counterexample.to_json()["instances"][1]["at"]["nb"]
    assert _own(bad)["equivalence"].status == "unknown"  # not the shape its argument covers; never proved

    def no_zero(prog):  # the partials are never zeroed
        k = prog.kernel(K)
        return prog.with_kernel(dataclasses.replace(k, body=tuple(s for s in k.body if s != ir.Zero("emb_partials"))))
    assert "nothing zeroes emb_partials" in _own(_ctx(src, no_zero))["equivalence"].message

    def short_combine(n):  # the combine skips the last row of emb
        if isinstance(n, ir.For) and n.var == "emb_c0":
            return dataclasses.replace(n, hi=ir.BinOp("-", n.hi, ir.Int(1)))
        return None
    assert _own(_ctx(src, _rewrite_kernel(short_combine)))["equivalence"].status == "refuted"


def test_block_independence_is_decided_not_vacuous():
    """The generic independence check proves the block loop because the block index is the
    first partial coordinate; with every block scattering into slice 0 it cannot."""
    from polyhedral import checks as generic
    from polyhedral.model import KernelModel
    p = parse_text(emb_src())
    split, retype = p.schedule_for(K).ops

    def one_slice(n):
        if isinstance(n, ir.Assign) and n.tensor == "emb_partials":
            idx = (ir.Int(0),) + n.index[1:]
            return dataclasses.replace(n, index=idx, value=ir.BinOp("+", ir.Load("emb_partials", idx),
                                                                      ir.accumulation(n)[1]))
        return None
    got = []
    for mutate in (lambda q: q, _rewrite_kernel(one_slice)):
        m = KernelModel(apply_op(mutate(apply_op(p, K, split)), K, retype), K)
        [(loop, inside, depth)] = generic.parallel_loops(m)
        got.append((loop.var, independence(m, loop, inside, depth).status))
    assert got == [("nb", "proved"), ("nb", "unknown")]


# ---------------------------------------------------------------- runs


def _inputs(program, sizes, seed):
    rng = np.random.default_rng(seed)
    n, v, d = sizes["N"], sizes["V"], sizes["D"]
    ids = rng.integers(0, v, size=n).astype(np.int32)
    ids[: min(n, 3)] = ids[0]  # collisions guaranteed (and across blocks: n = 0, 1, 2)
    ids[-1] = v - 1  # the last row is used too
    arrays = {"ids": ids, "g": rng.uniform(-1, 1, size=(n, d)).astype(np.float32)}
    for t in program.tensors:
        if t.name not in arrays:
            shape = tuple(int(x.value) if isinstance(x, ir.Int) else sizes[x.name] for x in t.dims)
            arrays[t.name] = np.full(shape, np.nan, np.float32)  # poison: zeroed by the kernel
    return arrays


def _run(program, runner, sizes, seed):
    arrays = _inputs(program, sizes, seed)
    runner(K, dict(sizes), arrays)
    return arrays["emb"]


@pytest.mark.parametrize("sizes", [{"N": 37, "V": 5, "D": 3}, {"N": 3, "V": 1, "D": 2}, {"N": 1, "V": 4, "D": 1},
                                   {"N": 64, "V": 9, "D": 5}])
def test_runs_equal_unscheduled_and_bitwise_across_renderings(sizes):
    p = parse_text(emb_src())
    serial, parallel = scheduled(p, 1), scheduled(p)
    unsplit = _run(p, load_c(p).run, sizes, 1)
    assert not np.isnan(unsplit).any() and np.abs(unsplit).max() > 0
    outs = [_run(serial, load_c(serial).run, sizes, 1), _run(parallel, load_c(parallel).run, sizes, 1),
            _run(parallel, load_emulated(parallel, seed=3).run, sizes, 1),
            _run(parallel, load_emulated(parallel, seed=9, detect_races=True).run, sizes, 1)]
    for o in outs[1:]:
        assert np.array_equal(o.view(np.uint32), outs[0].view(np.uint32))
    np.testing.assert_allclose(outs[0], unsplit, rtol=1e-5, atol=1e-5)


def test_reference_is_the_plain_scatter():
    """The C reference itself against numpy (so the comparison above is not vacuous)."""
    p = parse_text(emb_src())
    sizes = {"N": 20, "V": 6, "D": 4}
    arrays = _inputs(p, sizes, 5)
    want = np.zeros((6, 4), np.float64)
    np.add.at(want, arrays["ids"], arrays["g"].astype(np.float64))
    out = _run(p, load_c(p).run, sizes, 5)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_guarded_variant_runs_equal():
    p = parse_text(GUARDED)
    serial, parallel = scheduled(p, 1), scheduled(p)
    sizes = {"N": 23, "V": 5, "D": 3, "H": 2}
    outs = []
    for prog, runner in ((p, load_c(p).run), (serial, load_c(serial).run),
                         (parallel, load_emulated(parallel, seed=4, detect_races=True).run)):
        arrays = _inputs(prog, sizes, 2)
        arrays["ids"][4] = 0  # a row the guard skips
        runner(K, dict(sizes), arrays)
        outs.append((arrays["emb"], arrays["cnt"]))
    (emb0, cnt0), (emb1, cnt1), (emb2, cnt2) = outs
    assert not np.isnan(emb0).any() and np.abs(emb0).max() > 0
    assert np.array_equal(emb1.view(np.uint32), emb2.view(np.uint32))
    np.testing.assert_allclose(emb1, emb0, rtol=1e-5, atol=1e-5)
    assert np.array_equal(cnt0, cnt1) and np.array_equal(cnt0, cnt2)


def test_offset_loop_padded_i32_target_bitwise_equal_to_unsplit():
    """Integer sums regroup exactly; the combine covers the padding cells too (storage dims)."""
    src = ("params N, V, D where N >= 2, V >= 1, D >= 1\ntensor ids[N] i32\ntensor g[N, D] i32\n"
           "tensor emb[V, D] i32 pad(2, 1)\nkernel embedding_backward {\n  for n in 1 .. N {\n"
           "    for d in 0 .. D {\n      emb[ids[n], d] += g[n, d] * g[n - 1, d]\n    }\n  }\n}\n"
           "schedule embedding_backward {\n  split_reduction n of emb blocks=3 -> nb, ni, emb_partials\n"
           "  retype nb as block.x\n}\n")
    p = parse_text(src)
    check_only_dynamic_bounds_open(report(p))
    after = scheduled(p)
    assert after.tensor("emb_partials").dims[1:] == p.tensor("emb").storage_dims()
    n, v, d = 29, 4, 3
    rng = np.random.default_rng(7)
    ids = rng.integers(0, v + 2, size=n).astype(np.int32)  # rows in the padding too
    ids[1:4] = 5
    g = rng.integers(-9, 10, size=(n, d)).astype(np.int32)
    start = rng.integers(-50, 50, size=(v + 2, d + 1)).astype(np.int32)  # accumulates onto old values
    outs = []
    for prog, runner in ((p, load_c(p).run), (after, load_c(after).run), (after, load_emulated(after, seed=2).run)):
        arrays = {"ids": ids.copy(), "g": g.copy(), "emb": start.copy()}
        if prog is after:
            arrays["emb_partials"] = np.full((3, v + 2, d + 1), -77, np.int32)
        runner(K, {"N": n, "V": v, "D": d}, arrays)
        outs.append(arrays["emb"])
    want = start.copy()
    np.add.at(want[:, :d], ids[1:], g[1:] * g[:-1])
    assert np.array_equal(outs[0][:, :d], want[:, :d]) and not np.array_equal(want, start)
    assert all(np.array_equal(o, outs[0]) for o in outs[1:])


# ---------------------------------------------------------------- preconditions


@pytest.mark.parametrize("update, msg", [
    ("emb[ids[n], d] = max(emb[ids[n], d], g[n, d])", "needs an add accumulation (+ or fma); this one "
                                                       "accumulates with max"),
    ("emb[ids[n], d] = emb[ids[n], d] * g[n, d]", "accumulates with *"),
    ("emb[ids[n], d] += g[n, d] * emb[0, d]", "nothing else in the statement holding loop 'n' may access it"),
    ("emb[ids[n], d] += g[n, d]\n      emb[ids[n], d] += g[n, d]", "must hold exactly one store to it (found 2)"),
    ("emb[ids[n], d] = g[n, d]", "not an accumulation"),
])
def test_preconditions(update, msg):
    p = parse_text(emb_src(update))
    with pytest.raises(ScheduleError) as e:
        scheduled(p)
    assert msg in e.value.message and e.value.loc is not None
    rep = report(p)
    pre = [o for o in rep["obligations"] if o["kind"] == "precondition" and o["status"] == "refuted"]
    assert rep["verdict"] == "illegal" and msg in pre[0]["message"]


# ---------------------------------------------------------------- generated scatters (hypothesis)


def _fuzz_source(blocks, lo, guard, outer, update, parallel):
    head = ("params N, V, D, H where N >= 2, V >= 1, D >= 1, H >= 1\ntensor ids[N] i32\ntensor g[N, D] f32\n"
            "tensor emb[V, D, H] f32\n")
    row, cell = "ids[n]", "emb[ids[n], d, h]" if outer else "emb[ids[n], d, 0]"
    term = "g[n, d]" if update == "+" else None
    stmt = f"{cell} += {term}" if term else f"{cell} = fma(g[n, d], 0.5, {cell})"
    stmt = {"none": stmt, "affine": f"if d <= n {{ {stmt} }}", "data": f"if {row} < V - 1 {{ {stmt} }}"}[guard]
    body = f"for n in {lo} .. N {{\n for d in 0 .. D {{\n {stmt}\n }}\n}}"
    if outer:
        body = f"for h in 0 .. H {{\n{body}\n}}"
    sched = f"split_reduction n of emb blocks={blocks} -> nb, ni, ep" + ("\n  retype nb as block.x" if parallel else "")
    return head + f"kernel {K} {{\n  zero emb\n{body}\n}}\nschedule {K} {{\n  {sched}\n}}\n"


@settings(max_examples=25, deadline=None)
@given(blocks=hst.integers(1, 6), lo=hst.sampled_from([0, 1]), guard=hst.sampled_from(["none", "affine", "data"]),
       outer=hst.booleans(), update=hst.sampled_from(["+", "fma"]), parallel=hst.booleans(),
       profile=hst.sampled_from(["default", "reproducible"]),
       sizes=hst.tuples(hst.integers(2, 13), hst.integers(1, 4), hst.integers(1, 3), hst.integers(1, 2)),
       seed=hst.integers(0, 99))
def test_generated_scatters(blocks, lo, guard, outer, update, parallel, profile, sizes, seed):
    from verified_sched.interp.interpreter import run_kernel
    p = parse_text(_fuzz_source(blocks, lo, guard, outer, update, parallel))
    rep = report(p, profile)
    red = [o for o in rep["obligations"] if o["kind"] == "reassociation" and o["op_index"] == 1][0]
    others = [o for o in rep["obligations"] if o is not red]
    assert not [o for o in others if o["status"] == "refuted"], others
    for o in others:
        assert o["status"] == "proved" or (o["kind"] == "in_bounds" and "dynamic index" in o["message"]), o
    if profile == "default":
        assert red["status"] == "proved"
    elif guard == "data":
        # isl cannot decide it; a run may refute it (a real bitwise difference, replayable)
        assert red["status"] == "unknown" or (red["status"] == "refuted" and red["engine"] == "run"
                                              and red["counterexample"]["params"]), red
    else:  # replay: with the given rows both instances add to one cell
        assert red["status"] == "refuted"
        cex = red["counterexample"]
        a, b = cex["instances"]
        rows = {x["index"][0]: x["value"] for x in cex["data"]}
        assert rows[a["at"]["n"]] == rows[b["at"]["n"]] and a["at"] != b["at"]
        assert a["at"]["d"] == b["at"]["d"] and a["at"].get("h") == b["at"].get("h")
    after = scheduled(p)
    n, v, d, h = sizes
    env = {"N": n, "V": v, "D": d, "H": h}
    rng = np.random.default_rng(seed)
    base = {"ids": rng.integers(0, v, size=n).astype(np.int32),
            "g": rng.uniform(-1, 1, size=(n, d)).astype(np.float32)}
    base["ids"][:2] = base["ids"][-1]
    outs = []
    for prog in (p, after):
        arrays = {**{k: x.copy() for k, x in base.items()}, "emb": np.full((v, d, h), np.nan, np.float32)}
        if prog is after:
            arrays["ep"] = np.full((blocks, v, d, h), np.nan, np.float32)
        run_kernel(prog, K, env, arrays)
        outs.append(arrays["emb"])
    assert not np.isnan(outs[0]).any()
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-5)
