"""benchmarks/fuzz_tail.py: every example's check is timed and the slowest are written as
.vs files that parse again (the batches are stubbed: no campaign runs here)."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

from verified_sched.dsl import parse_text
from verified_sched.fuzz import campaign

ROOT = Path(__file__).resolve().parents[1]
SRC = "params N where N >= 1\ntensor y[N] f32\nkernel k {\n  for i in 0 .. N {\n    y[i] = 1.0\n  }\n}\n"


def _module():
    spec = importlib.util.spec_from_file_location("fuzz_tail", ROOT / "benchmarks" / "fuzz_tail.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_fuzz_tail_writes_the_slowest_examples(tmp_path, monkeypatch, capsys):
    mod = _module()
    seen = []

    def fake_check(program, kernel, sizes, backend, timeout):
        seen.append(sizes)
        return SimpleNamespace(verdict="legal", times={"verify": 0.0})

    def fake_batch(cfg, k):
        campaign.check_example(parse_text(SRC), "k", ({"N": 2 + k},), None, cfg.timeout)

    monkeypatch.setattr(campaign, "check_example", fake_check)
    monkeypatch.setattr(campaign, "run_batch", fake_batch)
    assert mod.main(["--batches", "3", "--keep", "2", "--out", str(tmp_path)]) == 0
    assert seen == [({"N": 2},), ({"N": 3},), ({"N": 4},)]
    assert campaign.check_example is fake_check  # restored
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["slow00.vs", "slow01.vs"]
    assert parse_text((tmp_path / "slow00.vs").read_text()).kernel("k") is not None
    out = capsys.readouterr().out
    assert out.startswith("3 examples") and "slowest 5% (1)" in out
