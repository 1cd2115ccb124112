"""Reports: the JSON object (one per file), the human text, obligation data,
preconditions as refuted obligations, the kernel with no schedule, and timeouts as unknown."""
from __future__ import annotations

import json

import pytest

from verified_sched.dsl import parse_text
from verified_sched.core.file_report import verdict_of
from verified_sched.core.obligations import Obligation
from verified_sched.verify.driver import OpContext, verify_program
from verified_sched.verify.kernel_report import file_report_json, format_report

STENCIL = """params N, M where N >= 2, M >= 2
tensor x[N, M] f32
tensor A[N, M] f32
kernel skewed { for i in 1 .. N { for j in 0 .. M - 1 { A[i, j] = 0.5 * A[i - 1, j + 1] + x[i, j] } } }
schedule skewed { interchange i, j }
"""


def test_json_object_has_the_contract_fields():
    reps = verify_program(parse_text(STENCIL), filename="s.vs")
    obj = file_report_json(reps, "s.vs")
    assert set(obj) == {"file", "kernel", "verdict", "reassociates", "obligations"}
    assert obj["verdict"] == "illegal" and obj["file"] == "s.vs"
    for o in obj["obligations"]:
        assert set(o) == {"op_index", "op", "kind", "status", "engine", "seconds", "message", "counterexample"}
        assert o["engine"] in ("isl", "z3", "structural", "run")
    dep = next(o for o in obj["obligations"] if o["kind"] == "dependence" and o["status"] == "refuted")
    assert dep["op"] == "interchange i, j" and dep["op_index"] == 1
    cex = dep["counterexample"]
    assert cex["params"] and len(cex["instances"]) == 2 and cex["order"]["after"].startswith("the second")
    json.dumps(obj)  # plain data only


def test_human_report_reads_at_a_glance():
    rep = verify_program(parse_text(STENCIL))[0]
    text = format_report(rep)
    assert "ILLEGAL" in text and "[1] interchange i, j" in text
    assert "refuted  dependence" in text
    assert "sizes: N=" in text and "runs before" in text and "cell: A[" in text


def test_precondition_failure_is_a_refuted_obligation():
    rep = verify_program(parse_text(STENCIL.replace("interchange i, j", "interchange i, q")))[0]
    pre = [o for o in rep.obligations if o.kind == "precondition"]
    assert pre and pre[-1].status == "refuted" and "q" in pre[-1].message
    assert rep.verdict == "illegal"


def test_kernel_without_schedule_and_claim_op_text():
    text = STENCIL.split("schedule")[0] + "kernel other { for i in 1 .. N { for j in 0 .. M - 1 {" \
        " A[i, j] = 0.5 * A[i - 1, j + 1] + x[i, j] } } }\nclaim skewed == other\n"
    reps = verify_program(parse_text(text))
    claim = reps[0]
    assert all(o.op == "claim skewed == other" for o in claim.obligations)
    assert [r.kernel for r in reps[1:]] == ["skewed", "other"]
    assert all(o.op_index == 0 and o.kind == "in_bounds" for r in reps[1:] for o in r.obligations)


def test_timeout_gives_unknown_never_proved():
    rep = verify_program(parse_text(STENCIL), timeout=0.0)[0]
    assert rep.verdict in ("unknown", "illegal")
    assert all(o.status != "proved" or o.kind == "precondition" for o in rep.obligations[1:])


def test_verdict_rules_and_kind_validation():
    mk = lambda s: Obligation("coverage", 1, "op", "", "isl", s)
    verdict = lambda obls: verdict_of(o.status for o in obls)
    assert verdict([mk("proved")]) == "legal"
    assert verdict([mk("proved"), mk("unknown")]) == "unknown"
    assert verdict([mk("unknown"), mk("refuted")]) == "illegal"
    with pytest.raises(ValueError):
        Obligation("nonsense", 1, "op", "", "isl", "proved")


def test_op_context_exposes_models_and_short_names():
    p = parse_text(STENCIL)
    from verified_sched.ops import apply_op
    op = p.schedules[0].ops[0]
    ctx = OpContext(p, apply_op(p, "skewed", op), "skewed", op, 1, "default", 10.0)
    assert ctx.before is p and ctx.kernel == "skewed"
    assert ctx.model_after.stmts and ctx.model_before.stmts[0].sid == "S0"
