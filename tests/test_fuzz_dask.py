"""`vsched fuzz --dask`: a short campaign through a real local dask.distributed cluster (a
scheduler and two worker processes on 127.0.0.1); the results stream back and add up."""
from __future__ import annotations

import json

import pytest

from verified_sched.cli import main

distributed = pytest.importorskip("distributed")


def test_campaign_on_local_cluster(tmp_path, capsys):
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        rc = main(["fuzz", "--dask", cluster.scheduler_address, "--examples", "10", "--batch", "5",
                   "--shapes", "matmul,reduction", "--ops", "split,interchange,pad", "--json",
                   "--shrink-seconds", "5", "-o", str(tmp_path / "out")])
    rep = json.loads(capsys.readouterr().out)
    assert rep["workers"] == 2
    assert rep["examples"] >= 10
    assert rep["legal"] + rep["illegal"] + rep["unknown"] + rep["errors"] == rep["examples"]
    assert rc == (1 if rep["findings"] else 0)
    for f in rep["findings"]:
        assert (tmp_path / "out").exists() and f["reproducer"].startswith(str(tmp_path / "out"))
