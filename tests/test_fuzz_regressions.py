"""Regression tests for verifier and counterexample bugs found by `vsched fuzz` campaigns (each
named after its bug; the reproducers are in tests/cases/fuzz_*.vs)."""
from __future__ import annotations

from codegen.oracle import compare_kernels
from verified_sched.dsl import parse_file, parse_text
from verified_sched.fuzz.check import check_example
from verified_sched.interp import run_kernel
from verified_sched.ops import apply_op
from verified_sched.sizes import example_sizes
from verified_sched.verify import verify_program


def _report(program):
    return verify_program(program)[0]


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
    sizes = o.counterexample["params"]
    after = apply_op(program, "red", program.schedule_for("red").ops[0])
    res = compare_kernels(program, "red", "red", sizes, 0, "random", _interp(program), _interp(after),
                          program_cand=after)
    assert not res.equal


def test_privatize_local_acc_across_blocks_shared_across_threads_is_still_refuted():
    """A shared accumulator is one copy per block: threads of a block do meet on it."""
    rep = _report(_acc("shared", "thread.x"))
    assert rep.verdict == "illegal"
    assert _status(rep, 1, "dependence") == ["refuted"] and _status(rep, 1, "race") == ["refuted"]
