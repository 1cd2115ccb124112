"""The semantic mutants of benchmarks/mutation_score.py cannot rot: every patch target in the one
table (benchmarks/semantic_mutants.py) still resolves, every probe states its verdict, and
planting a mutant in a fresh process makes a probe change its verdict (the kill criterion of
benchmarks/semantic_check.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import semantic_check  # noqa: E402
import semantic_mutants  # noqa: E402


@pytest.mark.parametrize("m", semantic_mutants.SEMANTIC_MUTANTS, ids=lambda m: m.name)
def test_every_semantic_mutant_target_exists(m):
    _, _, _, orig = semantic_mutants.resolve(m)
    assert orig is not None
    compile(m.new, m.name, "exec" if m.new.startswith("def ") else "eval")


def test_semantic_mutant_names_are_unique_and_not_apply_mutant_names():
    import mutants
    names = [m.name for m in semantic_mutants.SEMANTIC_MUTANTS]
    assert len(names) == len(set(names)) >= 15
    assert not set(names) & {m.name for m in mutants.MUTANTS}


def test_every_probe_states_its_verdict_and_parses():
    from verified_sched.dsl import parse_file
    found = semantic_check.probes()
    assert len(found) >= 15
    for path, expect in found:
        assert expect in ("legal", "illegal"), path
        parse_file(path)
    parse_file(str(semantic_check.ORACLE))
    expected = json.loads(semantic_check.EXPECTED.read_text())
    assert set(expected) == set(semantic_check._expressions())


def test_rebinding_reaches_copies_held_by_tables():
    """A function copied into a table dict and into an object's attributes is replaced too."""
    import types
    mod = types.ModuleType("verified_sched._rebind_probe")

    def orig():
        return 1

    class Holder:
        pass
    Holder.__module__ = "verified_sched._rebind_probe"
    h = Holder()
    h.fn = orig
    mod.TABLE = {"a": {"b": orig}}
    mod.H, mod.f = h, orig
    sys.modules[mod.__name__] = mod
    try:
        new = lambda: 2  # noqa: E731
        assert semantic_mutants._rebind(orig, new) == 3
        assert mod.TABLE["a"]["b"] is new and h.fn is new and mod.f is new
    finally:
        del sys.modules[mod.__name__]


def _planted(mutant: str, probe: str):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "semantic_check.py"), "--mutant", mutant,
                             "--only", probe], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)


def test_two_semantic_mutants_are_killed_by_their_probes():
    """Python `==` on constants makes -0.0 and 0.0 one value; z3's fpAbs makes abs(-0.0) +0.0:
    each turns an illegal probe legal. (Both children run at once.)"""
    procs = [(_planted("claim_const_python_eq", "neg_zero_store"), "neg_zero_store"),
             (_planted("z3_abs_clears_sign", "abs_keeps_negative_zero"), "abs_keeps_negative_zero")]
    for proc, probe in procs:
        out, _ = proc.communicate(timeout=120)
        (line,) = [x for x in out.splitlines() if x.startswith("@@RESULT@@")]
        got = json.loads(line[len("@@RESULT@@"):])
        assert got["probes"][probe]["verdict"] == "legal"
        assert semantic_check.killed_by({}, got)[0][0] == probe
