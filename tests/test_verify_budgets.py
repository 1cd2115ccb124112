"""Resource budgets of `vsched verify` (verified_sched/core/budget.py, memlimit.py): isl's operation
budget, z3's per-query timeout and the deadline hold for every obligation of every op, generic
and op-specific; running out is `unknown` with the reason, never proved; `--max-memory` turns
an allocation blow-up into an unknown obligation or a clear error."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest
import z3

from verified_sched.core import budget, memlimit
from verified_sched.cli import main
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.errors import UsageError
from verified_sched.ops import apply_op
from verified_sched.verify.driver import own_obligations as op_obligations
from verified_sched.verify.driver import OpContext, verify_program

from conftest import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"
STENCIL = """params N, M where N >= 2, M >= 2
tensor x[N, M] f32
tensor A[N, M] f32
kernel skewed { for i in 1 .. N { for j in 0 .. M - 1 { A[i, j] = 0.5 * A[i - 1, j + 1] + x[i, j] } } }
schedule skewed { interchange i, j }
"""


def op_context(path, index: int, deadline: float = float("inf")) -> OpContext:
    """The context of op `index` (1-based) of the file's first schedule, applied unbudgeted."""
    program = parse_file(str(path))
    sched = program.schedules[0]
    current = program
    for op in sched.ops[:index - 1]:
        current = apply_op(current, sched.kernel, op)
    op = sched.ops[index - 1]
    after = apply_op(current, sched.kernel, op)
    return OpContext(current, after, sched.kernel, op, index, program.profile or "default", budget.DEFAULT_TIMEOUT,
                     deadline)


def test_tiny_isl_budget_makes_generic_obligations_unknown_with_the_reason(monkeypatch):
    monkeypatch.setattr(budget, "ISL_MAX_OPERATIONS", 20)
    (rep,) = verify_program(parse_text(STENCIL))
    assert rep.verdict == "unknown"
    unknown = [o for o in rep.obligations if o.status == "unknown"]
    assert unknown and all(budget.ISL_BUDGET in o.message for o in unknown)
    assert not [o for o in rep.obligations if o.status == "refuted"]
    # the default budget decides the same file (the refutation is real)
    monkeypatch.undo()
    (rep,) = verify_program(parse_text(STENCIL))
    assert rep.verdict == "illegal"


@pytest.mark.parametrize("path, index, kinds", [
    ("privatize_matmul.vs", 3, {"dataflow", "privatize_condition", "race"}),
    ("stage_shared_matmul.vs", None, {"dataflow"}),
    # its rewrite check fits in 20 operations since the isl parse cache; the coverage and
    # in-bounds queries run out
    ("winograd_exact.vs", 1, {"coverage", "in_bounds"}),
])
def test_op_specific_obligations_respect_the_isl_budget(monkeypatch, path, index, kinds):
    if index is None:  # the first stage op
        program = parse_file(str(EXAMPLES / path))
        index = 1 + next(k for k, op in enumerate(program.schedules[0].ops) if op.text().startswith("stage"))
    ctx = op_context(EXAMPLES / path, index)
    monkeypatch.setattr(budget, "ISL_MAX_OPERATIONS", 20)
    obs = op_obligations(ctx)
    by_kind = {}
    for o in obs:
        by_kind.setdefault(o.kind, []).append(o)
    for kind in kinds:
        assert any(o.status == "unknown" and budget.ISL_BUDGET in o.message for o in by_kind[kind]), by_kind[kind]
    assert all(o.status != "refuted" for o in obs)


def test_winograd_goals_each_respect_the_isl_budget(monkeypatch):
    """Each winograd goal is discharged in its own budget: with the goals built, a tiny isl
    budget makes the isl ones (coverage, in_bounds) unknown, each with the reason, while the
    structural profile and the z3 identity goals are still decided."""
    from verified_sched.verify.discharge import discharge
    from verified_sched.ops.winograd.exact import declared_ranges
    from verified_sched.ops.winograd.proofs import winograd_goals

    ctx = op_context(EXAMPLES / "winograd_exact.vs", 1)
    goals = winograd_goals(ctx.before, ctx.after, ctx.kernel, ctx.profile, ctx.timeout, declared_ranges(ctx.before))
    monkeypatch.setattr(budget, "ISL_MAX_OPERATIONS", 20)
    obs = discharge(goals, float("inf"), 1, "winograd")
    assert len(obs) == len(goals)
    isl_goals = [o for o in obs if o.kind in ("coverage", "in_bounds")]
    assert len(isl_goals) == 3 and all(o.status == "unknown" and budget.ISL_BUDGET in o.message for o in isl_goals)
    assert [o.status for o in obs if o.kind in ("profile", "equivalence")] == ["proved"] * 5


@pytest.mark.parametrize("path, index", [("privatize_matmul.vs", 3), ("winograd_exact.vs", 1)])
def test_op_specific_obligations_past_the_deadline_are_unknown(path, index):
    ctx = op_context(EXAMPLES / path, index, deadline=time.perf_counter() - 1.0)
    obs = op_obligations(ctx)
    decided = [o for o in obs if o.engine != "structural"]
    assert decided and all(o.status == "unknown" and budget.DEADLINE in o.message for o in decided)


def test_verify_with_zero_timeout_proves_nothing_and_names_the_deadline():
    (rep,) = verify_program(parse_file(str(EXAMPLES / "privatize_matmul.vs")), timeout=0.0)
    assert rep.verdict == "unknown"
    assert all(o.status == "unknown" and budget.DEADLINE in o.message for o in rep.obligations)


def _fermat(n: int = 3):
    x, y, z = z3.Ints("x y z")
    return [x > 0, y > 0, z > 0], x ** n + y ** n != z ** n


def test_z3_query_timeout_is_capped_by_the_deadline():
    from smt.solver import decide
    facts, goal = _fermat()
    with budget.scope(time.perf_counter() + 0.2):
        assert budget.z3_timeout_ms(10.0) <= 200
        d = decide(facts, goal, timeout=60.0)
    assert d.status == "unknown" and d.reason == budget.Z3_TIMEOUT
    assert budget.z3_timeout_ms(10.0) == 10_000  # outside every obligation: the query's own timeout


def test_z3_obligation_of_an_op_is_unknown_on_timeout(monkeypatch):
    """stage's swizzle bijection (z3): a query that runs out of time (z3 answers unknown,
    reason timeout) makes the obligation `unknown` with the z3 timeout reason; the query gets
    the budget's timeout. (A real 1 ms query was flaky: z3 may finish the bit-vector part first.)"""
    path = REPO_ROOT / "tests" / "cases" / "stage_swizzle_matmul.vs"
    program = parse_file(str(path))
    index = 1 + next(k for k, op in enumerate(program.schedules[0].ops) if "swizzle" in op.text())
    ctx = op_context(path, index)
    (ob,) = [o for o in op_obligations(ctx) if o.kind == "bijection"]
    assert ob.status == "proved"
    monkeypatch.setattr(budget, "z3_timeout_ms", lambda timeout=None: 1)
    import smt.solver

    asked = []

    class TimedOut(z3.Solver):  # z3 running out of its query time, deterministically
        def check(self, *args):
            return z3.unknown

        def reason_unknown(self):
            return "timeout"

    def timed_out_solver(timeout):
        asked.append(budget.z3_timeout_ms(timeout))
        return TimedOut()
    monkeypatch.setattr(smt.solver, "solver", timed_out_solver)
    (ob,) = [o for o in op_obligations(ctx) if o.kind == "bijection"]
    assert ob.status == "unknown" and budget.Z3_TIMEOUT in ob.message
    assert asked == [1]  # the query was given the (patched) budget's timeout


def test_z3_exception_reasons():
    assert budget.unknown_reason(z3.Z3Exception("canceled")) == budget.Z3_TIMEOUT
    assert "memory limit of" in budget.unknown_reason(z3.Z3Exception(b"out of memory".decode()))
    assert budget.unknown_reason(ValueError("x")) is None


def test_hundred_deep_nest_ends_within_its_budget_as_unknown():
    """Regression (issue: 100-deep nests took 12 s to verify, past the timeout): the simplifier
    of the op and every obligation stop on the isl budget or the deadline."""
    n = 100
    heads = "".join(f"for i{d} in 0 .. N {{ " for d in range(n))
    text = (f"params N where N >= 1\ntensor a[N] f32\nkernel deep {{ {heads}a[i0] += 1.0 {'} ' * n}}}\n"
            "schedule deep { interchange i0, i1 }\n")
    (rep,) = verify_program(parse_text(text), timeout=2.0)
    assert rep.verdict == "unknown"
    assert all(o.status in ("proved", "unknown") for o in rep.obligations)
    reasons = (budget.ISL_BUDGET, budget.DEADLINE)
    assert any(o.status == "unknown" and any(r in o.message for r in reasons) for o in rep.obligations)


# ---------------------------------------------------------------- --max-memory


@pytest.mark.parametrize("text, value", [("4G", 4 << 30), ("512M", 512 << 20), ("1.5g", 3 << 29),
                                         ("4GiB", 4 << 30), ("1000000", 1000000), ("64k", 65536)])
def test_parse_bytes(text, value):
    assert memlimit.parse_bytes(text) == value


@pytest.mark.parametrize("text", ["", "abc", "-1G", "4X", "0"])
def test_parse_bytes_rejects(text):
    with pytest.raises(UsageError):
        memlimit.parse_bytes(text)


def test_cli_rejects_a_malformed_max_memory(capsys):
    assert main(["verify", "--max-memory", "lots", str(EXAMPLES / "matmul.vs")]) == 2
    assert "--max-memory" in capsys.readouterr().err


def test_default_limit_is_a_fraction_of_ram():
    total = memlimit.physical_memory()
    now = memlimit.address_space()
    assert total and now > 0
    assert 0 <= memlimit.default_limit() - now - int(total * memlimit.DEFAULT_FRACTION) < 256 << 20


def test_cli_verify_under_a_cap_restores_the_limit(capsys):
    import resource
    before = resource.getrlimit(resource.RLIMIT_AS)
    assert main(["verify", "--max-memory", "8G", str(EXAMPLES / "matmul.vs")]) == 0
    assert resource.getrlimit(resource.RLIMIT_AS) == before


SCRIPT = textwrap.dedent("""
    import resource, sys
    import islpy as isl, numpy as np, z3
    from verified_sched.core import budget, memlimit
    from verified_sched.core.errors import VschedError
    vm = int(open('/proc/self/statm').read().split()[0]) * resource.getpagesize()
    with memlimit.capped(vm + 300 * 2**20, "testing"):
        try:
            with memlimit.guard("allocating a big array"):
                np.ones(2**30)
        except VschedError as e:
            print("numpy:", e)
        big = " ; ".join(f"S{j}[" + ",".join(f"x{k}" for k in range(40)) + "] : "
                         + " and ".join(f"x{k} >= {j}" for k in range(40)) for j in range(4000))
        _, reason = budget.guarded(lambda: [isl.UnionSet(big) for _ in range(200)], float("inf"))
        print("isl:", reason)
        try:
            ys = [z3.Int(f"y{k}") for k in range(200000)]
            s = z3.Solver()
            s.add(z3.Sum(ys) > 5, *[y * y > 3 for y in ys])
            print("z3:", s.check(), budget.z3_unknown(s.reason_unknown()))
        except z3.Z3Exception as e:
            print("z3:", budget.unknown_reason(e))
    print("after:", resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY)
""")


def test_isl_z3_numpy_under_a_small_address_space_cap():
    """Under RLIMIT_AS, every engine fails cleanly (no crash, no OOM kill): numpy and isl
    with the memory message, z3 with an exception or unknown."""
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300,
                       cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr
    lines = dict(line.split(": ", 1) for line in r.stdout.splitlines())
    assert lines["numpy"].startswith("memory limit of ") and "while allocating a big array" in lines["numpy"]
    assert "memory limit of" in lines["isl"]
    assert "memory limit of" in lines["z3"] or "unknown" in lines["z3"]
    assert lines["after"] == "True"


def test_cli_verify_with_a_tiny_cap_never_tracebacks():
    # 36M, not 60M: a file that needs no z3 proof no longer loads z3 (core/budget._stoppers), and
    # privatize_matmul.vs then verifies within 60M
    r = subprocess.run([sys.executable, "-m", "verified_sched", "verify", "--max-memory", "36M",
                        str(EXAMPLES / "privatize_matmul.vs")], capture_output=True, text=True, timeout=300,
                       cwd=REPO_ROOT)
    assert "Traceback" not in r.stderr
    assert r.returncode != 0
    assert "memory limit of 37748736 bytes exceeded" in r.stdout + r.stderr


def test_thousands_of_params_end_unknown_on_the_budget_not_minutes_later():
    """Regression (issue: a file of 10,000 params took 17 s and 3 GB in one obligation): isl's
    budget shrinks with the parameter count, so each obligation runs out quickly."""
    n = 2000
    names = ", ".join(f"P{k}" for k in range(n))
    text = (f"params {names} where " + ", ".join(f"P{k} >= 1" for k in range(n)) + "\n"
            "tensor a[P0, P1] f32\nkernel many { for i in 0 .. P0 { for j in 0 .. P1 { a[i, j] = 2.0 } } }\n"
            "schedule many { split i by 4 -> io, ii }\n")
    (rep,) = verify_program(parse_text(text))
    assert rep.verdict == "unknown"
    assert all(o.status == "unknown" for o in rep.obligations)
    assert all(budget.ISL_BUDGET in o.message or budget.DEADLINE in o.message for o in rep.obligations)


def test_operation_budget_shrinks_only_for_very_many_params():
    with budget.program(3):
        assert budget.operations() == budget.ISL_MAX_OPERATIONS
    with budget.program(budget.WIDE_PARAMS * 4):
        assert budget.operations() == budget.ISL_MAX_OPERATIONS // 16
    assert budget.operations() == budget.ISL_MAX_OPERATIONS
