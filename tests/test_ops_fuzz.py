"""Random op sequences on generated kernels: every op keeps the kernel well formed, the
simplifier is idempotent, and the ops that preserve semantics unconditionally (guarded
split tails with any partition policy, pad, partition, unroll, retype to serial/unrolled,
interchange of a kernel without dependences) run equal to the original (interpreter; C on
fewer examples) at sizes satisfying the constraints, on random inputs."""
from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from verified_sched.core import ir
from verified_sched.ops import schedule as S
from verified_sched.core.errors import ScheduleError
from verified_sched.ops import apply_op
from verified_sched.analysis.simplify import simplify_kernel
from verified_sched.analysis.sizes import example_sizes
from verified_sched.fuzz.strategies import programs
from verified_sched.analysis.wellformed import check_kernel
from test_ops_support import assert_same_results, run_c

SAFE_TAILS = ("guard", "predicate", "predicate_stores")


def _loops(kernel) -> list:
    names = [n.var for n in ir.walk(kernel.body) if isinstance(n, ir.For)]
    return sorted({n for n in names if names.count(n) == 1})


def _nested_pairs(kernel) -> list:
    """(outer, inner) loop names where inner is the only statement of outer's body."""
    out = []
    for n in ir.walk(kernel.body):
        if isinstance(n, ir.For) and len(n.body) == 1 and isinstance(n.body[0], ir.For):
            out.append((n.var, n.body[0].var))
    return out


def _no_dependences(program, kname) -> bool:
    from polyhedral.model import KernelModel
    return KernelModel(program, kname).dependences.is_empty()


@st.composite
def preserving_schedule(draw, program, max_ops=3):
    """(ops applied, program after); only ops that preserve semantics for every size."""
    kname = program.kernels[0].name
    current, applied = program, []
    fresh = iter(range(100))
    for _ in range(draw(st.integers(1, max_ops))):
        kernel = current.kernel(kname)
        loops = _loops(kernel)
        if not loops:
            break
        loop = draw(st.sampled_from(loops))
        kind = draw(st.sampled_from(("split", "split", "pad", "partition", "unroll", "retype",
                                     "interchange")))
        n = next(fresh)
        match kind:
            case "split":
                op = S.Split(loop, draw(st.integers(1, 5)), f"{loop}o{n}", f"{loop}i{n}",
                             draw(st.sampled_from(SAFE_TAILS)), draw(st.sampled_from(S.PARTITIONS)))
            case "pad":
                op = S.Pad(loop, draw(st.integers(1, 5)))
            case "partition":
                p = draw(st.sampled_from(program.params))
                bp = draw(st.sampled_from((ir.Int(draw(st.integers(0, 4))), ir.Var(p),
                                           ir.BinOp("-", ir.Var(p), ir.Int(1)))))
                op = S.Partition(loop, (bp,), (f"{loop}a{n}", f"{loop}b{n}"))
            case "unroll":
                op = S.Unroll(loop, draw(st.booleans()))
            case "retype":
                op = S.Retype(loop, draw(st.sampled_from(("serial", "unrolled"))))
            case _:
                pairs = _nested_pairs(kernel)
                if not pairs or not _no_dependences(current, kname):
                    continue
                op = S.Interchange(*draw(st.sampled_from(pairs)))
        try:
            after = apply_op(current, kname, op)
        except ScheduleError:
            continue
        check_kernel(after, after.kernel(kname))
        current, applied = after, applied + [op]
    return applied, current


FUZZ = settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@FUZZ
@given(st.data())
def test_random_ops_keep_kernels_well_formed(data):
    program = data.draw(programs(max_loops=3, schedule="loops", pad=True,
                                 parallel=data.draw(st.booleans()), dynamic=data.draw(st.booleans())))
    kname = program.kernels[0].name
    current = program
    for op in program.schedules[0].ops:
        try:
            current = apply_op(current, kname, op)
        except ScheduleError as e:
            assert e.loc is None or e.loc == op.loc
            assert e.message.startswith(S.op_name(op) + ":")
            # a malformed result is only expected where a retype/unroll strands a barrier
            assert "would not be well formed" not in e.message or "barrier" in e.message, e.message
            break
        kernel = current.kernel(kname)
        check_kernel(current, kernel)
        once = simplify_kernel(current, kernel)
        assert simplify_kernel(current, once) == once  # the simplifier is idempotent


@FUZZ
@given(st.data())
def test_preserving_ops_run_equal_in_interpreter(data):
    program = data.draw(programs(max_loops=3, max_tensors=2, pad=True))
    ops, after = data.draw(preserving_schedule(program))
    assume(ops)
    kname = program.kernels[0].name
    for sizes in example_sizes(program, count=3):
        assert_same_results(program, after, kname, sizes), ops


@settings(max_examples=10, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_preserving_ops_run_equal_in_c(data):
    program = data.draw(programs(max_loops=3, max_tensors=2, precisions=("f32", "i32")))
    ops, after = data.draw(preserving_schedule(program))
    assume(ops)
    kname = program.kernels[0].name
    for sizes in example_sizes(program, count=2):
        assert_same_results(program, after, kname, sizes, runner=run_c)
