"""split_reduction: corpus verdicts, preconditions, obligations and runs (C, emulation)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from codegen.build import load_c
from codegen.emulate import load_emulated
from verified_sched.oracle.compare import compare_kernels
from verified_sched.core import ir
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.errors import ScheduleError
from verified_sched.ops import apply_op
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json
from support.scheduling import scheduled

HEAD = "params N, K where N >= 1, K >= 1\ntensor x[N, K] f32\ntensor y[K] f32\ntensor s[N] f32\n"


def rowsum(update: str = "s[i] += x[i, k]", sched: str = "split_reduction k of s blocks=4 -> kb, kk, sp",
           init: str = "zero s", extra: str = "") -> str:
    return (HEAD + extra + f"kernel r {{\n  {init}\n  for i in 0 .. N {{\n    for k in 0 .. K {{\n"
            f"      {update}\n    }}\n  }}\n}}\nschedule r {{\n  {sched}\n}}\n")


def report(program, profile=None):
    return file_report_json(verify_program(program, profile=profile), "f")


def kinds(rep, status):
    return {o["kind"] for o in rep["obligations"] if o["status"] == status}


# ---------------------------------------------------------------- corpus


def test_corpus_split_reduction_legal_and_reported(cases_dir):
    rep = report(parse_file(cases_dir / "split_reduction.vs"))
    assert rep["verdict"] == "legal" and rep["reassociates"] is True
    assert {"injective_partials", "equivalence", "reassociation", "independence"} <= kinds(rep, "proved")
    assert not kinds(rep, "unknown")


def test_corpus_split_reduction_reproducible_refuted(cases_dir):
    rep = report(parse_file(cases_dir / "split_reduction_reproducible.vs"))
    assert rep["verdict"] == "illegal"
    bad = [o for o in rep["obligations"] if o["status"] == "refuted"]
    assert [o["kind"] for o in bad] == ["reassociation"]
    cex = bad[0]["counterexample"]
    assert cex["params"]["K"] >= 2 and len(cex["instances"]) == 2
    # replay: both original instances write the same cell of s
    a, b = cex["instances"]
    assert a["at"]["i"] == b["at"]["i"] and a["at"]["k"] != b["at"]["k"]


def test_max_min_are_exact_even_when_reproducible():
    for op in ("max", "min"):
        p = parse_text(rowsum(f"s[i] = {op}(s[i], x[i, k])", init="zero s").replace("kernel r", "profile reproducible\nkernel r"))
        rep = report(p)
        assert rep["verdict"] == "legal", rep


# ---------------------------------------------------------------- shape of the result


def test_result_shape():
    p = scheduled(parse_text(rowsum()))
    t = p.tensor("sp")
    assert t.memory == "global" and t.dims == (ir.Int(4), ir.Var("N")) and t.prec == "f32"
    body = p.kernel("r").body
    assert len(body) == 3  # zero, the partial pass, the combine
    comb = body[2]
    assert isinstance(comb, ir.For) and comb.var == "i_c"
    st = comb.body[0]
    assert st.sid.endswith("_combine") and ir.accumulation(st)[0] == "+"
    assert sorted(r.index[0].value for r in ir.reads(st.value) if r.tensor == "sp") == [0, 1, 2, 3]


# ---------------------------------------------------------------- preconditions


@pytest.mark.parametrize("src, msg", [
    (rowsum(sched="split_reduction q of s blocks=4 -> kb, kk, sp"), "no loop named 'q'"),
    (rowsum(sched="split_reduction k of z blocks=4 -> kb, kk, sp"), "tensor 'z'"),
    (rowsum(sched="split_reduction k of s blocks=4 -> kb, kk, x"), "already used"),
    (rowsum(sched="split_reduction k of s blocks=4 -> i, kk, sp"), "already used"),
    (rowsum("s[i] = x[i, k]"), "not an accumulation"),
    (rowsum("s[i] = s[i] - x[i, k]"), "not an accumulation"),
    (rowsum("s[k % 2] += x[i, k]"), "depends on k"),
    (rowsum("s[i] += x[i, k] * s[0]"), "nothing else"),
])
def test_preconditions(src, msg):
    p = parse_text(src)
    with pytest.raises(ScheduleError) as e:
        scheduled(p)
    assert msg in e.value.message and e.value.loc is not None


def test_blocks_must_be_positive():
    from verified_sched.ops.schedule import SplitReduction
    p = parse_text(rowsum())
    with pytest.raises(ScheduleError, match="blocks 0"):
        apply_op(p, "r", SplitReduction("k", "s", 0, "kb", "kk", "sp"))


def test_dynamic_scatter_form_is_refused_clearly():
    # the scatter form itself is built (tests/test_splitred_dynamic.py); a max scatter is refused
    src = ("params N, K where N >= 1, K >= 1\ntensor x[K] f32\ntensor row[K] i32\ntensor s[N] f32\n"
           "kernel r {\n  zero s\n  for k in 0 .. K {\n    s[row[k]] = max(s[row[k]], x[k])\n  }\n}\n"
           "schedule r {\n  split_reduction k of s blocks=4 -> kb, kk, sp\n}\n")
    with pytest.raises(ScheduleError, match="dynamic scatter form"):
        scheduled(parse_text(src))
    rep = report(parse_text(src))
    assert rep["verdict"] == "illegal" and "precondition" in kinds(rep, "refuted")


def test_injective_partials_refuted_with_counterexample():
    src = ("params N, R, K where N >= 1, R >= 1, K >= 1\ntensor x[N, R, K] f32\ntensor s[N] f32\n"
           "kernel r {\n  zero s\n  for i in 0 .. N {\n    for q in 0 .. R {\n      for k in 0 .. K {\n"
           "        s[i] += x[i, q, k]\n      }\n    }\n  }\n}\n"
           "schedule r {\n  split_reduction k of s blocks=2 -> kb, kk, sp\n}\n")
    rep = report(parse_text(src))
    bad = [o for o in rep["obligations"] if o["status"] == "refuted"]
    assert bad and bad[0]["kind"] == "injective_partials"
    cex = bad[0]["counterexample"]
    a, b = cex["instances"]
    assert cex["params"]["R"] >= 2 and a["at"]["i"] == b["at"]["i"] and a["at"]["q"] != b["at"]["q"]


# ---------------------------------------------------------------- runs


def _arrays(program, sizes, seed=1):
    rng = np.random.default_rng(seed)
    out = {}
    for t in program.tensors:
        shape = tuple(int(eval(ir_text(d), {}, dict(sizes))) for d in t.dims)
        out[t.name] = rng.uniform(-1, 1, size=shape).astype(np.float32)
    return out


def ir_text(e):
    from verified_sched.core.printer import expr_text
    return expr_text(e).replace("floor", "")


@pytest.mark.parametrize("sizes", [{"N": 3, "K": 1}, {"N": 5, "K": 37}, {"N": 2, "K": 8}])
def test_serial_and_parallel_renderings_bitwise_equal_and_close_to_unsplit(cases_dir, sizes):
    p = parse_file(cases_dir / "split_reduction.vs")
    serial, parallel = scheduled(p, "rowsum", 1), scheduled(p, "rowsum")
    assert any(n.axis == "block.x" for n in ir.walk(parallel.kernel("rowsum").body) if isinstance(n, ir.For))
    base = _arrays(parallel, sizes)
    outs = []
    for prog, run in ((p, load_c(p).run), (serial, load_c(serial).run),
                      (parallel, load_emulated(parallel, seed=3).run), (parallel, load_emulated(parallel, seed=9).run)):
        arrs = {t.name: base[t.name].copy() for t in prog.tensors}
        arrs["s"][...] = np.nan
        run("rowsum", dict(sizes), arrs)
        outs.append(arrs["s"])
    unsplit, *split = outs
    assert not np.isnan(unsplit).any() and np.abs(unsplit).max() > 0
    for o in split[1:]:
        assert np.array_equal(o.view(np.uint32), split[0].view(np.uint32))
    np.testing.assert_allclose(split[0], unsplit, rtol=1e-5, atol=1e-6)


def test_max_reduce_bitwise_equal_to_unsplit():
    p = parse_text(rowsum("s[i] = max(s[i], x[i, k])", sched="split_reduction k of s blocks=3 -> kb, kk, sp\n"
                          "  retype kb as block.x"))
    after = scheduled(p)
    for sizes in ({"N": 4, "K": 10}, {"N": 3, "K": 2}):
        rep = compare_kernels(p, "r", "r", sizes, seed=2, program_cand=after,
                              runner_cand=load_emulated(after, seed=5).run)
        assert rep.equal and not rep.vacuous, rep.text()
        rep = compare_kernels(p, "r", "r", sizes, seed=2, program_cand=after)
        assert rep.equal and not rep.vacuous, rep.text()


def test_cli_run_compares_without_the_scratch_tensor(cases_dir, capsys):
    from verified_sched.cli import main
    rc = main(["run", str(cases_dir / "split_reduction.vs"), "--size", "N=3,K=21", "--target", "emulate"])
    assert rc == 0, capsys.readouterr()


def test_parallel_block_loop_with_fma_and_product_term():
    p = parse_text(rowsum("s[i] = fma(x[i, k], y[k], s[i])",
                          sched="split_reduction k of s blocks=5 -> kb, kk, sp\n  retype kb as block.x"))
    assert report(p)["verdict"] == "legal"
    after = scheduled(p)
    rep = compare_kernels(p, "r", "r", {"N": 3, "K": 13}, seed=4, program_cand=after, rtol=1e-5, atol=1e-6,
                          runner_cand=load_emulated(after, seed=1).run)
    assert rep.equal and not rep.vacuous, rep.text()


def test_offset_loop_guard_and_i32_max_bitwise():
    src = ("params N, K where N >= 1, K >= 3\ntensor x[N, K] i32\ntensor s[N] i32\nkernel r {\n"
           "  for i in 0 .. N {\n    if i % 2 == 0 {\n      for k in 1 .. K - 1 {\n"
           "        s[i] = max(s[i], x[i, k])\n      }\n    }\n  }\n}\n"
           "schedule r {\n  split_reduction k of s blocks=3 -> kb, kk, sp\n  retype kb as block.x\n}\n")
    p = parse_text(src)
    rep = report(p)
    assert rep["verdict"] == "legal" and not rep["reassociates"]
    after = scheduled(p)
    comb = after.kernel("r").body[-1]
    assert isinstance(comb.body[0], ir.If)  # the enclosing guard is re-imposed on the combine
    for sizes in ({"N": 5, "K": 9}, {"N": 2, "K": 3}):
        for runner in (None, load_emulated(after, seed=2).run):
            cmp = compare_kernels(p, "r", "r", sizes, seed=3, program_cand=after, runner_cand=runner)
            assert cmp.equal and not cmp.vacuous, cmp.text()


@pytest.mark.parametrize("update", ["s[i] = min(s[i], x[i, k])", "s[i] = s[i] * x[i, k]", "s[i] += x[i, k]"])
def test_result_prints_and_reparses(update):
    from verified_sched.core.printer import print_program
    p = parse_text(rowsum(update, init="s[0] = s[0]"))
    after = scheduled(p)
    text = print_program(dataclasses.replace(after, schedules=()))
    again = parse_text(text)
    assert again.tensor("sp").dims == after.tensor("sp").dims
    assert len(again.kernel("r").body) == len(after.kernel("r").body)
