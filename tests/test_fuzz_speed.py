"""The fuzz throughput work (issue 12 item 5) changes how things are computed, never what:
the iterative `ir.walk` visits the same nodes in the same order as the recursive definition,
the memo of `apply_op` gives results equal to applying the op again (and the verifier's
obligations are the same with and without it), and the shared budget watchdog aborts isl at
the deadline like a timer per scope did."""
from __future__ import annotations

import dataclasses
import threading
import time

import islpy as isl
from hypothesis import HealthCheck, given, seed, settings

from verified_sched.ops import apply_memo
from verified_sched.core import budget, budget_watchdog, ir
from verified_sched.dsl import parse_file
from verified_sched.fuzz.strategies import fuzz_examples
from verified_sched.ops import apply_op
from verified_sched.verify.driver import verify_program


def _walk_recursive(node):
    """The definition `ir.walk` implements: pre-order, tuples descended, `loc` skipped."""
    if isinstance(node, tuple):
        for v in node:
            yield from _walk_recursive(v)
        return
    if not isinstance(node, ir.Node):
        return
    yield node
    for f in dataclasses.fields(node):
        if f.name != "loc":
            yield from _walk_recursive(getattr(node, f.name))


def test_walk_visits_what_the_recursive_definition_visits(cases_dir):
    for path in sorted(cases_dir.glob("*.vs"))[:40]:
        program = parse_file(str(path))
        got, want = list(ir.walk(program)), list(_walk_recursive(program))
        assert len(got) == len(want) > 10
        assert all(a is b for a, b in zip(got, want)), path.name


def _ops(program, kernel):
    s = program.schedule_for(kernel)
    return s.ops if s else ()


def _obligations(program):
    return [(r.kernel, [(o.kind, o.op_index, o.status, o.message) for o in r.obligations])
            for r in verify_program(program, timeout=60)]


@seed(3)
@settings(max_examples=12, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(fuzz_examples(ops=("split", "interchange", "retype", "unroll", "partition", "pad", "stage"), max_ops=3))
def test_apply_memo_gives_what_applying_again_gives(ex):
    ops = _ops(ex.program, ex.kernel)
    plain = [ex.program]
    for op in ops:
        plain.append(apply_op(plain[-1], ex.kernel, op))
    with apply_memo.active():
        before = apply_memo.stats()["hits"]
        for _ in range(2):  # the second pass is all hits
            cur = ex.program
            for k, op in enumerate(ops, start=1):
                cur = apply_op(cur, ex.kernel, op)
                assert cur == plain[k] and cur.schedules == plain[k].schedules
        assert apply_memo.stats()["hits"] - before >= len(ops)
        # a program without the schedule (as the strategy applies them) hits the same entries
        bare = dataclasses.replace(ex.program, schedules=())
        cur = bare
        for op in ops:
            cur = apply_op(cur, ex.kernel, op)
        assert cur.schedules == () and cur == dataclasses.replace(plain[-1], schedules=())
    assert apply_memo.stats()["entries"] == 0  # emptied when the outermost scope ends


@seed(5)
@settings(max_examples=6, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(fuzz_examples(max_ops=3))
def test_verify_obligations_same_with_a_warm_memo(ex):
    cold = _obligations(ex.program)
    with apply_memo.active():
        cur = ex.program
        try:
            for op in _ops(ex.program, ex.kernel):
                cur = apply_op(cur, ex.kernel, op)
        except Exception:  # noqa: BLE001 - a precondition failure: verify reports it too
            pass
        warm = _obligations(ex.program)
    assert warm == cold


def test_apply_memo_keys_on_the_apply_function(monkeypatch, cases_dir):
    """A monkeypatched op (a planted bug) never gets the real op's memoized result."""
    import dataclasses

    from verified_sched.ops.registry import module_for as op_module

    program = parse_file(str(cases_dir / "matmul_tiled.vs"))
    kernel = program.schedules[0].kernel
    op = program.schedules[0].ops[0]
    mod = op_module(op)
    with apply_memo.active():
        real = apply_op(program, kernel, op)
        monkeypatch.setattr(mod, "SPEC", dataclasses.replace(mod.SPEC, apply=lambda p, k, o: p))
        assert apply_op(program, kernel, op) is program
        assert real != program


def test_watchdog_aborts_isl_at_the_deadline():
    """Past the scope's deadline the watchdog has aborted isl: its next operation fails (and
    the scope's exit resumes it)."""
    import pytest

    with budget.scope(time.perf_counter() + 0.05):
        assert not isl.BasicSet("{ [i] : 0 <= i < 2 }").is_empty()
        time.sleep(0.2)
        give_up = time.perf_counter() + 10  # a loaded machine may wake the watchdog late
        with pytest.raises(isl.Error):
            while time.perf_counter() < give_up:
                isl.BasicSet("{ [i] : 0 <= i < 2 }").is_empty()
                time.sleep(0.05)
        assert budget.exhausted()
    assert not isl.BasicSet("{ [i] : 0 <= i < 2 }").is_empty()


def test_watchdog_fires_callbacks_in_deadline_order_and_skips_cancelled():
    fired = []
    now = time.perf_counter()
    a = budget_watchdog.add(now + 0.2, lambda: fired.append("late"))
    b = budget_watchdog.add(now + 0.05, lambda: fired.append("early"))
    c = budget_watchdog.add(now + 0.1, lambda: fired.append("cancelled"))
    budget_watchdog.cancel(c)
    deadline = time.perf_counter() + 5
    while len(fired) < 2 and time.perf_counter() < deadline:
        time.sleep(0.01)
    assert fired == ["early", "late"]
    assert a is not None and b is not None
    assert sum(t.name == "vsched-budget-watchdog" for t in threading.enumerate()) <= 1


def test_many_scopes_start_one_thread():
    before = threading.active_count()
    for _ in range(200):
        with budget.scope(time.perf_counter() + 30):
            pass
    assert threading.active_count() <= before + 1


GPU_OPS = ("split", "interchange", "retype", "unroll", "partition", "stage", "privatize", "split_reduction")


def _models(program, kernel):
    """The kernel model of every prefix of the schedule."""
    from polyhedral.model import KernelModel

    cur, out = program, [KernelModel(program, kernel, tag="K")]
    for op in _ops(program, kernel):
        try:
            cur = apply_op(cur, kernel, op)
        except Exception:  # noqa: BLE001 - a precondition failure ends the prefixes
            break
        out.append(KernelModel(cur, kernel, tag="A"))
    return out


@seed(7)
@settings(max_examples=15, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(fuzz_examples(ops=GPU_OPS, shapes=("gpu", "matmul", "reduction", "tiled", "random"), max_ops=3))
def test_restricted_pair_relations_equal_the_full_ones(ex):
    """dependences (conflicts within program order) and the race relations (conflicts within
    same block / other thread, other block) built per conflicting statement pair are the sets
    the intersections with the relations over every statement pair give."""
    from polyhedral.phases import Phases, other_block_cond, same_block_other_thread_cond

    for m in _models(ex.program, ex.kernel):
        assert m.dependences.is_equal(m.conflicts.intersect(m.before))
        if not any(lp.axis in ir.HW_AXES for st in m.stmts for lp in st.loops):
            continue
        ph = Phases(m)
        if ph.unsupported:
            continue
        conf = ph.xconflicts
        assert ph.restrict_pairs(conf, same_block_other_thread_cond).is_equal(
            conf.intersect(ph.same_block_other_thread))
        assert ph.restrict_pairs(conf, other_block_cond).is_equal(conf.intersect(ph.other_block))


def test_restricted_pair_relations_on_the_gpu_corpus(cases_dir):
    from polyhedral.phases import Phases, other_block_cond, same_block_other_thread_cond

    checked = 0
    for path in sorted(cases_dir.glob("*.vs")):
        program = parse_file(str(path))
        for k in program.kernels:
            for m in _models(program, k.name):
                assert m.dependences.is_equal(m.conflicts.intersect(m.before)), path.name
                if not any(lp.axis in ir.HW_AXES for st in m.stmts for lp in st.loops):
                    continue
                ph = Phases(m)
                if ph.unsupported:
                    continue
                conf = ph.xconflicts
                assert ph.restrict_pairs(conf, same_block_other_thread_cond).is_equal(
                    conf.intersect(ph.same_block_other_thread)), path.name
                assert ph.restrict_pairs(conf, other_block_cond).is_equal(
                    conf.intersect(ph.other_block)), path.name
                checked += 1
    assert checked >= 10


def test_watchdog_thread_exits_when_idle():
    """No obligation running: no extra thread soon after (the gate forks its workers only from
    a process without threads). Regression: a cancelled deadline did not wake the thread, which
    slept until that deadline (30 s here before; an hour now, so the old code fails)."""
    with budget.scope(time.perf_counter() + 3600):
        assert any(t.name == "vsched-budget-watchdog" for t in threading.enumerate())
    deadline = time.perf_counter() + budget_watchdog.IDLE + 60  # generous: a loaded machine starves the thread
    while any(t.name == "vsched-budget-watchdog" for t in threading.enumerate()) and time.perf_counter() < deadline:
        time.sleep(0.05)
    assert not any(t.name == "vsched-budget-watchdog" for t in threading.enumerate())


def test_watchdog_survives_a_deadline_too_far_to_wait_for():
    """Regression (CI warning: OverflowError 'timestamp out of range for platform time_t' in
    the vsched-budget-watchdog thread): a deadline such as 1e300 or inf killed the thread, and
    every budget after it went unwatched. A near deadline registered after it still fires."""
    import math

    fired = threading.Event()
    far = [budget_watchdog.add(time.perf_counter() + 1e300, lambda: None),
           budget_watchdog.add(math.inf, lambda: None)]
    near = budget_watchdog.add(time.perf_counter() + 0.05, fired.set)
    try:
        assert fired.wait(60), "the near deadline did not fire"
        assert any(t.name == "vsched-budget-watchdog" and t.is_alive() for t in threading.enumerate())
    finally:
        for tok in far + [near]:
            budget_watchdog.cancel(tok)
