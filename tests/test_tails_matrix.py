"""Every split tail strategy x partition policy, on an elementwise kernel and a row-sum
accumulation, without padding, with padded outputs and with everything padded, for N >= 1 and
N >= 8: the verdict (and exactly which obligation kinds are refuted, never an unknown); a legal
schedule runs (C) equal to the unscheduled kernel at sizes that are and are not multiples of
the factor, below it where allowed; a refutation's counterexample replays.

One program per (kernel, padding, N bound) holds the reference and one copy of the kernel per
(tail, partition), so each family compiles once.
"""
from __future__ import annotations

import functools

import pytest

from codegen.build import load_c
from verified_sched.analysis.full_tiles import full_tiles
from verified_sched.oracle.compare import compare_kernels
from verified_sched.dsl import parse_text
from verified_sched.core.errors import ScheduleError
from verified_sched.interp.scalar import KernelError
from verified_sched.ops import apply_op
from verified_sched.analysis.sizes import eval_int
from verified_sched.verify.driver import verify_program
from test_ops_support import run_interp

TAILS = ("guard", "round_up", "shift_inward", "predicate", "predicate_loads", "predicate_stores",
         "shift_inward_and_blend", "round_up_and_blend")
PARTS = ("auto", "never", "always", "serialize_edges", "unroll_edges")
PADS = ("none", "out", "both")  # no padding / padded output / output and input padded
KINDS = ("ew", "rs")
BOUNDS = (1, 8)

BODY = {
    "ew": "  for i in 0 .. N {\n    y[i] = 2 * x[i]\n  }\n",
    "rs": "  zero s\n  for i in 0 .. N {\n    for k in 0 .. K {\n      s[i] += x[i, k]\n    }\n  }\n",
}


def name(tail, part):
    return f"k_{tail}_{part}"


def family_text(kind, pad, nmin):
    """The reference kernel and one scheduled copy per (tail, partition)."""
    out_pad = "" if pad == "none" else " pad(7)"
    if kind == "ew":
        in_pad = " pad(7)" if pad == "both" else ""
        head = f"params N where N >= {nmin}\ntensor x[N] f32{in_pad}\ntensor y[N] f32{out_pad}\n"
    else:
        in_pad = " pad(7, 0)" if pad == "both" else ""
        head = f"params N, K where N >= {nmin}, K >= 1\ntensor x[N, K] f32{in_pad}\ntensor s[N] f32{out_pad}\n"
    parts = [head, "kernel ref {\n" + BODY[kind] + "}\n"]
    for tail in TAILS:
        for part in PARTS:
            k = name(tail, part)
            parts.append(f"kernel {k} {{\n{BODY[kind]}}}\n"
                         f"schedule {k} {{\n  split i by 8 -> io, ii tail={tail} partition={part}\n}}\n")
    return "\n".join(parts)


@functools.lru_cache(maxsize=None)
def family(kind, pad, nmin):
    """(program, scheduled program, {kernel: report}, C module before, C module after)."""
    program = parse_text(family_text(kind, pad, nmin))
    reports = {r.kernel: r for r in verify_program(program)}
    after = program
    for sched in program.schedules:
        try:
            after = apply_op(after, sched.kernel, sched.ops[0])
        except ScheduleError:
            pass  # the precondition refutation is checked by the verdict test
    # split as `vsched emit`/`run` and the oracle emit C: the tails' guards are the point
    return program, after, reports, load_c(program, split=full_tiles), load_c(after, split=full_tiles)


def expected(kind, tail, part, pad, nmin) -> set:
    """The obligation kinds that must be refuted (empty: legal)."""
    if tail == "round_up" and part == "always":
        return {"precondition"}  # nothing to partition: round_up has no guard
    if tail in ("shift_inward", "shift_inward_and_blend"):
        bad = {"in_bounds"} if nmin < 8 else set()  # the shifted tile starts before 0
        if tail == "shift_inward" and kind == "rs":
            bad.add("coverage")  # a recomputed lane accumulates twice (a blend lane stores back)
        return bad
    # which storage must absorb the extra lanes of the rounded-up tile
    needs = {"guard": "none", "predicate": "none", "predicate_loads": "out", "round_up_and_blend": "out",
             "predicate_stores": "none", "round_up": "both"}[tail]
    return set() if PADS.index(pad) >= PADS.index(needs) else {"in_bounds"}


def sizes_for(kind, nmin):
    ns = (1, 5, 8, 13, 16) if nmin == 1 else (8, 13, 16, 21)
    return [{"N": n} if kind == "ew" else {"N": n, "K": 1 + n % 3} for n in ns]


# family-major order (the same cases and ids): consecutive tests share one family, so under
# xdist a worker's batch of tests builds few families (each is verified and compiled per worker)
CASES = [(kind, tail, part, pad, nmin) for kind in KINDS for pad in PADS for nmin in BOUNDS for tail in TAILS
         for part in PARTS]


def _id(case):
    kind, tail, part, pad, nmin = case
    return f"{kind}-{tail}-{part}-pad_{pad}-N{nmin}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_verdict(case):
    kind, tail, part, pad, nmin = case
    _, _, reports, _, _ = family(kind, pad, nmin)
    rep = reports[name(tail, part)]
    unknown = [f"{o.kind}: {o.message}" for o in rep.obligations if o.status == "unknown"]
    assert not unknown, unknown
    refuted = {o.kind for o in rep.obligations if o.status == "refuted"}
    want = expected(*case)
    assert refuted == want, [f"{o.kind}: {o.message}" for o in rep.obligations if o.status == "refuted"]
    assert rep.verdict == ("illegal" if want else "legal")


LEGAL = [c for c in CASES if not expected(*c)]
ILLEGAL = [c for c in CASES if expected(*c)]


@pytest.mark.parametrize("case", LEGAL, ids=[_id(c) for c in LEGAL])
def test_legal_schedule_runs_equal(case):
    kind, tail, part, pad, nmin = case
    program, after, _, mod_b, mod_a = family(kind, pad, nmin)
    for seed, sizes in enumerate(sizes_for(kind, nmin)):
        rep = compare_kernels(program, "ref", name(tail, part), sizes, seed=seed, program_cand=after,
                              runner_ref=mod_b.run, runner_cand=mod_a.run)
        assert rep.ok, rep.text()


def _outside(program, cell, params) -> bool:
    dims = [eval_int(d, params) for d in program.tensor(cell["tensor"]).storage_dims()]
    return any(not 0 <= c < d for c, d in zip(cell["index"], dims))


@pytest.mark.parametrize("case", ILLEGAL, ids=[_id(c) for c in ILLEGAL])
def test_refutation_replays(case):
    kind, tail, part, pad, nmin = case
    program, after, reports, mod_b, mod_a = family(kind, pad, nmin)
    k = name(tail, part)
    replayed = 0
    for o in reports[k].obligations:
        if o.status != "refuted":
            continue
        cex = None if o.counterexample is None else o.counterexample.to_json()
        if o.kind == "precondition" and not cex:
            assert "nothing to partition" in o.message  # the op does not apply
            replayed += 1
            continue
        params = cex["params"]
        if o.kind == "coverage":
            rep = compare_kernels(program, "ref", k, params, program_cand=after,
                                  runner_ref=mod_b.run, runner_cand=mod_a.run)
            assert not rep.equal, f"kernels agree at {params}: {o.message}"
        else:  # in_bounds, or the shifted tile's precondition: running it leaves storage
            if o.kind == "in_bounds":
                assert _outside(program, cex["cells"][0], params), o.message
            with pytest.raises(KernelError, match="out of bounds"):
                run_interp(after, k, params)
        replayed += 1
    assert replayed >= 1
