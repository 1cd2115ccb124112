"""Planted bugs the verifier used to miss (benchmarks/mutation_score.py), and the concrete
refutation of unknown obligations that kills them with a counterexample that replays."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from verified_sched.core import ir
from verified_sched.cli import main
from verified_sched.dsl import parse_file
from verified_sched.verify.driver import verify_program

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import mutants as mutant_list  # noqa: E402
import mutation_score  # noqa: E402


def _obligations(path, kernel=None):
    reports = verify_program(parse_file(path))
    return [o for r in reports if kernel is None or r.kernel == kernel for o in r.obligations]


def test_split_reduction_wrong_initial_value_is_refuted(cases_dir, monkeypatch):
    """A split_reduction whose partial sums start at 1.0 used to verify legal: the
    equivalence obligation checked that every partial cell is initialised once, not to what."""
    import importlib

    apply = importlib.import_module("verified_sched.ops.split_reduction.apply")  # the module, not the function
    real = apply.initial_value
    monkeypatch.setattr(apply, "initial_value",
                        lambda op, prec, target: ir.Float(1.0) if op == "+" else real(op, prec, target))
    path = str(cases_dir / "split_reduction.vs")
    bad = [o for o in _obligations(path) if o.status == "refuted"]
    assert [o.kind for o in bad] == ["equivalence"]
    assert "starts at 1.0" in bad[0].message
    sizes = ",".join(f"{k}={v}" for k, v in bad[0].counterexample.sizes.items())
    assert main(["run", path, "--size", sizes]) == 1  # the counterexample replays


def test_split_reduction_identity_start_stays_legal(cases_dir):
    assert all(o.status == "proved" for o in _obligations(str(cases_dir / "split_reduction.vs")))


def _swapped_blend(real):
    def blend(stmts, cond):
        out = real(stmts, cond)
        return tuple(ir.rewrite(s, lambda n: dataclasses.replace(n, a=n.b, b=n.a)
                                if isinstance(n, ir.Where) else None) for s in out)
    return blend


def test_unknown_blend_is_refuted_by_a_run_that_replays(repo_root, monkeypatch):
    """A round_up_and_blend whose blend keeps the old value on live lanes is `unknown` for isl
    (the statement's expression changed); running the op shows the difference, so the
    obligation is refuted (engine run) with sizes at which `vsched run` shows it."""
    from verified_sched.ops import split

    monkeypatch.setattr(split, "_blend", _swapped_blend(split._blend))
    path = str(repo_root / "examples" / "split_tails_padded.vs")
    obls = _obligations(path, "scale_round_up_and_blend")
    bad = [o for o in obls if o.status == "refuted"]
    assert len(bad) == 1 and bad[0].engine == "run"
    cex = bad[0].counterexample.to_json()
    assert cex["cells"][0]["tensor"] == "y"
    sizes = ",".join(f"{k}={v}" for k, v in cex["params"].items())
    assert main(["run", path, "--kernel", "scale_round_up_and_blend", "--size", sizes]) == 1


def test_refute_by_run_never_proves(cases_dir, monkeypatch):
    """An obligation isl cannot decide on a correct schedule stays unknown: equal runs prove
    nothing."""
    from polyhedral import checks
    from verified_sched.core.obligations import Decided

    monkeypatch.setattr(checks, "coverage", lambda *a, **k: Decided("unknown", "planted: not decided"))
    obls = _obligations(str(cases_dir / "matmul_tiled.vs"))
    cov = [o for o in obls if o.kind == "coverage"]
    assert cov and all(o.status == "unknown" and o.engine != "run" for o in cov)
    assert not any(o.status == "refuted" for o in obls)


def test_every_mutant_still_matches_the_source(tmp_path):
    """A stale mutant (its text gone from the source) would silently lower the benchmark's
    power; each edit must apply and change its file."""
    names = [m.name for m in mutant_list.MUTANTS]
    assert len(names) == len(set(names)) and len(names) >= 40
    for m in mutant_list.MUTANTS:
        target = tmp_path / m.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((ROOT / m.path).read_text())
        assert mutation_score.mutate(tmp_path, m) is None, m.name
        assert target.read_text() != (ROOT / m.path).read_text(), m.name


@pytest.mark.parametrize("name,case", [("pad_rounds_down", "pad_then_split.vs"),
                                       ("split_reduction_init_one", "split_reduction.vs")])
def test_mutation_benchmark_kills_a_planted_bug(tmp_path, cases_dir, name, case):
    files = [str(cases_dir / case)]
    base = mutation_score.evaluate(files, 10.0, False, None, tmp_path)["cases"]
    m = next(m for m in mutant_list.MUTANTS if m.name == name)
    got = mutation_score.evaluate(files, 10.0, False, m, tmp_path)["cases"]
    by_verify, _, why = mutation_score.judge(base, got)
    assert by_verify, why


PRIVATIZED_INTERCHANGE = """params N, M, K where N >= 2, M >= 2, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
kernel matmul {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}
schedule matmul {
  privatize c over k -> c_acc
  interchange i, j
}
"""


def test_memory_only_dependence_on_a_reloaded_accumulator_is_not_refuted():
    """Found by `vsched fuzz`: interchanging the loops around a privatized accumulator was
    refuted for a dependence on the accumulator's memory, though every iteration reloads it;
    the refutation did not replay. A dependence or coverage refutation of a serial kernel is
    now kept only when running the op shows a difference, else it is unknown (never legal)."""
    from verified_sched.dsl import parse_text

    obls = [o for r in verify_program(parse_text(PRIVATIZED_INTERCHANGE)) for o in r.obligations]
    dep = [o for o in obls if o.op_index == 2 and o.kind == "dependence"]
    assert dep and all(o.status != "refuted" for o in dep)
    assert not any(o.status == "refuted" for o in obls)


def test_a_real_dependence_refutation_is_kept(cases_dir):
    obls = _obligations(str(cases_dir / "stencil_interchange_illegal.vs"))
    assert any(o.kind == "dependence" and o.status == "refuted" for o in obls)
