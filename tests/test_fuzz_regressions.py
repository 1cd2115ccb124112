"""Regression tests for verifier and counterexample bugs found by `vsched fuzz` campaigns (each
named after its bug; the reproducers are in tests/cases/fuzz_*.vs)."""
from __future__ import annotations

from pathlib import Path

import pytest

from verified_sched.oracle.compare import compare_kernels
from verified_sched.dsl import parse_file, parse_text
from verified_sched.fuzz.check import check_example as _check_example
from verified_sched.interp.interpreter import run_kernel
from verified_sched.ops import apply_op
from verified_sched.analysis.sizes import example_sizes
from verified_sched.verify.driver import verify_program


def check_example(*args, **kw):
    """fuzz.check.check_example without its 5 s verify timeout (issue 23: under load it
    turned refutations into `unknown`)."""
    return _check_example(*args, **{"timeout": 600.0, **kw})


def _report(program):
    # no timeout in practice: a loaded machine must not turn a refutation into `unknown` (issue 23)
    return verify_program(program, timeout=600.0)[0]


def _status(report, op_index, kind):
    return [o.status for o in report.obligations if o.op_index == op_index and o.kind == kind]


def _interp(p):
    return lambda k, sizes, arrays: run_kernel(p, k, sizes, arrays, seed=0)


# ------------------------------------------------- local/shared scratch split into copies

ACC = """
params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor s[N] f32
tensor acc[1] f32 {mem}

kernel red {{
{init}  for i in 0 .. N {{
{reset}    for k in 0 .. K {{
      acc[0] += x[i, k]
    }}
    s[i] = acc[0]
  }}
}}

schedule red {{
  retype i as {axis}
}}
"""


def _acc(mem, axis, reset=True):
    return parse_text(ACC.format(mem=mem, axis=axis, init="" if reset else "  zero acc\n",
                                 reset="    acc[0] = 0.0\n" if reset else ""))


def test_privatize_local_acc_across_blocks(cases_dir):
    """A privatized `local` accumulator is one copy per thread: after retyping the row loop
    to block.x, the blocks' accesses of it never meet, so the dependences between them need
    not be kept (it used to be refuted with a dependence that did not replay)."""
    program = parse_file(cases_dir / "fuzz_privatize_local_acc_across_blocks.vs")
    rep = _report(program)
    assert rep.verdict == "legal"
    assert _status(rep, 2, "dependence") == ["proved"]
    out = check_example(program, "red", example_sizes(program, 2))
    assert out.verdict == "legal" and out.finding is None and out.sizes_run


def test_privatize_local_acc_across_blocks_reset_scratch_is_legal():
    """The same for a hand-written local (per thread) or shared (per block) accumulator reset
    in every iteration, moved onto blocks."""
    for mem in ("local", "shared"):
        program = _acc(mem, "block.x")
        rep = _report(program)
        assert rep.verdict == "legal", (mem, [o.message for o in rep.obligations if o.status != "proved"])
        out = check_example(program, "red", example_sizes(program, 2))
        assert out.finding is None and out.sizes_run


def test_privatize_local_acc_across_blocks_value_flow_is_still_refuted():
    """An accumulator carried from one iteration to the next (never reset) cannot be split
    into per-block copies: the value one block left is what the next one read. Refuted, and
    the interpreter (one local copy per thread, as the README's Semantics says) shows it."""
    program = _acc("local", "block.x", reset=False)
    rep = _report(program)
    assert rep.verdict == "illegal" and _status(rep, 1, "dependence") == ["refuted"]
    o = next(o for o in rep.obligations if o.kind == "dependence")
    sizes = o.counterexample.sizes
    after = apply_op(program, "red", program.schedule_for("red").ops[0])
    res = compare_kernels(program, "red", "red", sizes, 0, "random", _interp(program), _interp(after),
                          program_cand=after)
    assert not res.equal


def test_privatize_local_acc_across_blocks_shared_across_threads_is_still_refuted():
    """A shared accumulator is one copy per block: threads of a block do meet on it."""
    rep = _report(_acc("shared", "thread.x"))
    assert rep.verdict == "illegal"
    assert _status(rep, 1, "dependence") == ["refuted"] and _status(rep, 1, "race") == ["refuted"]


def test_interchange_and_expand_zero_privatize_local_acc_across_blocks(cases_dir):
    """Two more shapes of the same finding (an interchange or an expanded zero before the
    privatize): legal, and the campaign's check finds nothing."""
    for name in ("fuzz_interchange_privatize_local_acc_across_blocks", "fuzz_expand_zero_privatize_local_acc_across_blocks"):
        program = parse_file(cases_dir / f"{name}.vs")
        kernel = program.schedules[0].kernel
        assert _report(program).verdict == "legal", name
        assert check_example(program, kernel, example_sizes(program, 2)).finding is None, name


# ------------------------------------------------- refutations confirmed by running

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "fuzz"


def _coverage_of(report, op_index):
    return next(o for o in report.obligations if o.op_index == op_index and o.kind == "coverage")


def test_split_predicate_loads_before_failing_op_coverage():
    """A later op failing its precondition made verify return before confirming the earlier
    ops' refutations by running: the +0 stores of a predicate_loads tail stayed a coverage
    refutation no run replays. Now the runs agree, so it is unknown; the verdict is illegal by
    the failing op."""
    for name, op in (("fuzz_split_predicate_loads_before_failing_op_coverage", 1),
                     ("fuzz_split_predicate_loads_before_failing_split_coverage", 2)):
        program = parse_file(FIXTURES / f"{name}.vs")
        kernel = program.schedules[0].kernel
        rep = _report(program)
        cov = _coverage_of(rep, op)
        assert cov.status == "unknown" and "runs equal before and after the op" in cov.message, name
        assert rep.verdict == "illegal"
        assert {o.kind for o in rep.obligations if o.status == "refuted"} == {"precondition"}, name
        assert check_example(program, kernel, example_sizes(program, 2)).finding is None, name


def test_split_predicate_loads_vectorized_coverage():
    """In a kernel with a vectorized loop the coverage refutation was never run: now it is run
    compiled and interpreted in several orders, and unknown when all agree."""
    program = parse_file(FIXTURES / "fuzz_split_predicate_loads_vectorized_coverage.vs")
    rep = _report(program)
    cov = _coverage_of(rep, 3)
    assert cov.status == "unknown" and "orders of its parallel loops" in cov.message
    assert rep.verdict == "illegal" and _status(rep, 2, "dependence") == ["refuted"]
    assert check_example(program, "mm", example_sizes(program, 2)).finding is None


def test_coverage_refutation_in_parallel_kernel_that_a_run_shows_stays_refuted():
    """Confirmation by running never drops a refutation a run shows: in a kernel with a
    vectorized loop, a round_up tail's extra instances overwrite the last cell of each row
    with another value; still refuted (coverage, with its sizes), and the run replays it."""
    program = parse_text("""
params N, M where N >= 1, M >= 1
tensor y[M, N] f32
kernel k {
  for j in 0 .. M : vectorized {
    for i in 0 .. N {
      y[j, min(i, N - 1)] = i
    }
  }
}
schedule k {
  split i by 4 -> io, ii tail=round_up
}
""")
    rep = _report(program)
    cov = _coverage_of(rep, 1)
    assert rep.verdict == "illegal" and cov.status == "refuted" and cov.engine == "isl"
    after = apply_op(program, "k", program.schedule_for("k").ops[0])
    res = compare_kernels(program, "k", "k", cov.counterexample.sizes, 0, "random", _interp(program),
                          _interp(after), program_cand=after)
    assert not res.equal


def test_partition_blend_noop_dependence(cases_dir):
    """The `y[I] = y[I]` piece a partition leaves of a blended tail stands for no original
    instance: the dependence obligation no longer sees the main tile's instances run twice,
    out of order (legal, where it was refuted or unknown), and the runs agree."""
    program = parse_file(cases_dir / "fuzz_partition_blend_noop_dependence.vs")
    rep = _report(program)
    assert rep.verdict == "legal"
    assert _status(rep, 2, "dependence") == ["proved"] and _status(rep, 2, "coverage") == ["proved"]
    assert check_example(program, "st", example_sizes(program, 2)).finding is None


def test_privatize_reduction_loop_to_blocks_dependence(cases_dir):
    """A statement outside the block loop runs on block 0, in program order with block 0's
    instances: the refutation is no longer a pair at K=1 (which no run shows) but one that
    needs two blocks, and the interpreter (a local copy per block) replays it."""
    program = parse_file(cases_dir / "fuzz_privatize_reduction_loop_to_blocks_dependence.vs")
    rep = _report(program)
    o = next(o for o in rep.obligations if o.kind == "dependence" and o.status == "refuted")
    sizes = o.counterexample.sizes
    assert o.op_index == 3 and sizes["K"] >= 2
    ops = program.schedule_for("dense").ops
    after = program
    for op in ops:
        after = apply_op(after, "dense", op)
    res = compare_kernels(program, "dense", "dense", sizes, 0, "random", _interp(program), _interp(after),
                          program_cand=after)
    assert not res.equal


def test_statement_outside_block_loop_is_ordered_with_block_zero():
    """The order the dependence obligation uses: a statement after a block loop, outside it
    (same launch), runs after block 0's instances of the loop (program order on block 0) and
    unordered with the other blocks'."""
    import islpy as isl

    from polyhedral.model import KernelModel
    program = parse_text("""
params N where N >= 2
tensor x[N] f32
tensor y[N] f32
tensor s[1] f32
kernel k {
  for r in 0 .. 1 {
    for i in 0 .. N : block.x {
      y[i] = x[i]
    }
    s[0] = y[0]
  }
}
""")
    m = KernelModel(program, "k")
    inner, outer = m.stmts
    rel = isl.Map(m.space(f"{m.tup(inner, 'a')} -> {m.tup(outer, 'b')} : {m.before_pair(inner, outer)}"))
    rel = rel.intersect_domain(m.domains[inner.name]).intersect_range(m.domains[outer.name])
    pairs = {(p[0], p[1]) for p in _points(rel)}
    assert (0, 0) in pairs and (0, 1) not in pairs  # (r, i) of the block instance: only block 0
    back = isl.Map(m.space(f"{m.tup(outer, 'a')} -> {m.tup(inner, 'b')} : {m.before_pair(outer, inner)}"))
    assert back.intersect_domain(m.domains[outer.name]).intersect_range(m.domains[inner.name]).is_empty()


def _points(m):
    """The (r, i) of the domain points of a relation at N = 3."""
    import islpy as isl
    m = m.fix_val(isl.dim_type.param, 0, isl.Val.int_from_si(m.get_ctx(), 3)).domain()
    out = []
    m.foreach_point(lambda p: out.append(tuple(p.get_coordinate_val(isl.dim_type.set, k).to_python()
                                               for k in range(2))))
    return out


def test_unordered_dependence_on_blocks_replays_in_interpreter():
    """A dependence made unordered on hardware loops was replayed only by the emulator's race
    detector, which cannot show a value that no longer reaches its reader (a local written by
    block 1, read on block 0 through its own copy): the campaign reported a real refutation
    as a counterexample bug. The interpreter (a local copy per thread) now replays it first."""
    program = parse_text("""
params N where N >= 1
tensor x[N] f32
tensor s[1] f32
tensor acc[1] f32 local

kernel k {
  for r in 0 .. 1 {
    for i in 0 .. N {
      acc[0] = x[i]
    }
    s[0] = acc[0]
  }
}

schedule k {
  retype i as block.x
}
""")
    out = check_example(program, "k", example_sizes(program, 2))
    assert out.verdict == "illegal" and out.finding is None
    assert ("dependence", "replayed") in out.replays


def test_privatize_vectorized_lanes_race():
    """A privatized local accumulator shared by the vectorized lanes of one thread: refuted as
    a race between lanes of one thread (named so, with its threads), which the campaign does
    not try to replay (no executor interleaves vector lanes), so no counterexample finding."""
    program = parse_file(FIXTURES / "fuzz_privatize_vectorized_lanes_race.vs")
    rep = _report(program)
    o = next(o for o in rep.obligations if o.kind == "race" and o.status == "refuted")
    t = o.counterexample.to_json()["threads"]
    assert o.op_index == 3 and len(t) == 2 and t[0] == t[1] and "vectorized lanes of one thread" in o.message
    out = check_example(program, "g", example_sizes(program, 2))
    assert out.verdict == "illegal" and out.finding is None and ("race", "skipped") in out.replays


def test_guarded_privatize_local_acc_across_threads():
    """With a data-dependent guard in the nest, the pairs between per-thread copies of the
    privatized accumulator that no value flows along are dropped too (the guarded writes are
    may-sources; the unguarded reload still kills): the dependence is proved."""
    program = parse_file(FIXTURES / "fuzz_guarded_privatize_local_acc_across_threads.vs")
    rep = _report(program)
    assert _status(rep, 3, "dependence") == ["proved"] and rep.verdict == "legal"
    assert check_example(program, "mm", example_sizes(program, 2)).finding is None


def test_guarded_local_value_across_blocks_is_still_refuted():
    """A guarded write to a local whose value a statement on block 0 reads may be the one it
    sees: that pair stays a dependence, never proved when the op moves the write to other
    blocks (isl: unknown, whether the guarded write runs depends on data). A run refutes it:
    the local's copies are per block and outlive an iteration of the serial loop around the
    block loop, so the kernel runs in the emulator, not serial C (issue 20;
    run_plan.serial_c_declines), where block 0's copy shows the difference."""
    program = parse_text("""
params N where N >= 1
tensor x[N] f32
tensor s[1] f32
tensor acc[1] f32 local

kernel k {
  for r in 0 .. 1 {
    for i in 0 .. N {
      if x[i] > 0 {
        acc[0] = x[i]
      }
    }
    s[0] = acc[0]
  }
}

schedule k {
  retype i as block.x
}
""")
    rep = _report(program)
    assert rep.verdict == "illegal" and _status(rep, 1, "dependence") == ["refuted"]
    assert next(o for o in rep.obligations if o.kind == "dependence").engine == "run"


# ------------------------------------------------- a refutation no run can show (all zero)

ZERO_ACC = """
params N, M, K where N >= 1, M >= 1, K >= 1

tensor x[N + 1] f32

kernel kern0 {
  zero x
  for i in 0 .. N {
    if i < 0 {
      x[i] = x[0]
    } else {
      for j in 0 .. N {
        x[0] = x[0]
      }
      x[0] += x[i]
    }
  }
  x[0] = x[0]
}

schedule kern0 {
  retype j as vectorized
  reverse i
}
"""


def test_reverse_of_all_zero_accumulation_is_a_vacuous_replay():
    """Found by `vsched fuzz --budget 600 --workers 2 --seed 1202`: `x[0] += x[i]` reversed
    over i is refuted (i = 0 doubles x[0], which x[1] then joins: the order changes the value),
    but every value of x comes from `zero x`, so every run leaves x all zero on both sides and
    no run can show it. The campaign counts such a replay as vacuous, not as a counterexample
    finding; the refutation stands (it is what the dependence obligation states)."""
    program = parse_text(ZERO_ACC)
    rep = _report(program)
    assert _status(rep, 2, "dependence") == ["refuted"]
    out = check_example(program, "kern0", example_sizes(program, 2))
    assert out.verdict == "illegal" and out.finding is None
    assert ("dependence", "vacuous") in out.replays


def test_the_same_reversal_with_input_data_replays():
    """Without `zero x` the input reaches x[0]: the reversal's refutation replays by running."""
    program = parse_text(ZERO_ACC.replace("  zero x\n", "", 1))
    out = check_example(program, "kern0", example_sizes(program, 2))
    assert out.verdict == "illegal" and out.finding is None
    assert ("dependence", "replayed") in out.replays


# ------------------------------------------------- isl's transitive closure overflowing the C stack

ISL_CLOSURE_CRASH = """
params N, M where N >= 2, M >= 1

tensor x[N + 3 * M + 4] f32

kernel kern0 {
  for i in 0 .. M + 1 : unrolled {
    if i + i <= M {
      x[floor(i / 2)] += where(i + i == N - 1 or i % 2 != 0, x[3 * i + 2], i * x[floor(i / 2)])
      x[floor(i / 2)] = max(x[floor(i / 2)], max(x[i], bf16(x[i % 4])))
    } else {
      if not (i % 2 == N - 1) {
        x[floor(i / 2)] = 0.25 - where(i + i != N, x[2 * i + 1], N)
      }
      x[i + N] += where(i + i > N and i % 2 < M, f16(M), x[i] / 2.0)
    }
    x[2 * i + 2] = fma(f32(0.25 + -3), x[M - i] + x[2], x[2 * i + 2])
  }
  x[1] = min(x[1], 0.5)
}

schedule kern0 {
  reverse i
  reverse i
  stage x over i -> x_tile0 swizzle=b128
}
"""


def test_reverse_reverse_stage_value_flow_closure_does_not_crash_isl():
    """Found by `vsched fuzz --budget 600 --workers 2 --seed 1202` (twice; the second time
    written as a crash reproducer by fuzz/crashes.py): the value-based dependence check asked
    isl for the transitive closure of a value flow of 98 pieces with 172 integer divisions, and
    isl's recursion overflowed the C stack (SIGSEGV, also with a 1 GiB stack). Such a closure is
    no longer attempted (valuedeps.closure_of: TooComplex); the dependence is decided on memory
    order, refuted, and the refutation replays."""
    program = parse_text(ISL_CLOSURE_CRASH)
    rep = _report(program)
    assert _status(rep, 2, "dependence") == ["refuted"]
    out = check_example(program, "kern0", [{"N": 5, "M": 9}, {"N": 5, "M": 2}])
    assert out.verdict == "illegal" and out.finding is None
    assert ("dependence", "replayed") in out.replays


def test_closure_of_refuses_a_relation_of_too_many_pieces():
    import islpy as isl

    from polyhedral.valuedeps import CLOSURE_PIECES, closure_of
    from polyhedral.valueflow import TooComplex

    small = isl.UnionMap("[N] -> { S[i] -> S[i + 1] : 0 <= i < N }")
    closure, exact = closure_of(small)
    assert exact and closure.is_equal(isl.UnionMap("[N] -> { S[i] -> S[j] : 0 <= i < j <= N }"))
    many = " ; ".join(f"S[{k}] -> S[{k + 1}]" for k in range(CLOSURE_PIECES + 1))
    with pytest.raises(TooComplex, match="too complex"):
        closure_of(isl.UnionMap("{ " + many + " }"))


# ------------------------------------------------- a local tensor across launches

LOCAL_ACROSS_LAUNCHES = """
params N, K where N >= 1, K >= 1

tensor x[N, K] f32
tensor s[N] f32

kernel red {
  for i in 0 .. N {
    for k in 0 .. K {
      s[i] += x[i, k]
    }
  }
}

schedule red {
  interchange i, k
  privatize s over k -> s_acc0
  retype i_ld as serial
  retype i_ld as block.x
}
"""


def test_local_accumulator_loaded_in_a_block_launch_is_gone_in_the_next_launch():
    """Found by `vsched fuzz --budget 600 --workers 2 --seed 1202`: privatize's load loop
    retyped to block.x becomes its own launch, whose local copies of s_acc0 die with it (the
    emulator and CUDA); the accumulation, a later launch, read poison, yet the schedule was
    proved legal. A shared/local value crossing a hardware launch's boundary is the `dataflow`
    goal (generic/launch_scope.py): issue 20 item 6, refuted with a run that replays."""
    program = parse_text(LOCAL_ACROSS_LAUNCHES)
    rep = _report(program)
    assert rep.verdict == "illegal" and _status(rep, 4, "dataflow") == ["refuted"]
    assert _status(rep, 3, "dataflow") == []  # all serial: one storage across launches, no goal
    out = check_example(program, "red", [{"N": 1, "K": 1}])
    assert out.verdict == "illegal" and out.finding is None
