"""`vsched fuzz --mlir-passes`: fuzz-family kernels as affine MLIR through iree-opt pipelines,
each pair checked by translation validation; a wrong pass is found, shrunk and written."""
from __future__ import annotations

import re
import shutil

import pytest

pytest.importorskip("xdsl")

from verified_sched.cli import main  # noqa: E402
from verified_sched.dsl.parser import parse_text  # noqa: E402
from verified_sched.fuzz import mlir_passes  # noqa: E402
from verified_sched.fuzz.affine_emit import Inexpressible, emit_affine  # noqa: E402
from verified_sched.mlir import check_pass  # noqa: E402
from verified_sched.mlir.affine_import import import_affine  # noqa: E402
from verified_sched.core.printer import print_program  # noqa: E402

needs_iree_opt = pytest.mark.skipif(shutil.which("iree-opt") is None, reason="iree-opt not installed")

MATMUL = """params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
kernel mm {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      if j < N - 1 {
        for k in 0 .. min(K, j + 1) {
          c[i, j] += a[i, k] * b[k, floor(j / 2) + j % 2 * 0]
        }
      }
    }
  }
}
"""


def test_emit_affine_round_trips_through_the_importer():
    program = parse_text(MATMUL)
    text = emit_affine(program, "mm")
    assert "func.func @mm(%N: index, %M: index, %K: index, %a: memref<?x?xf32>" in text
    assert "affine.if" in text and "min affine_map" in text
    back = print_program(import_affine(text, "mm.mlir"))
    assert re.search(r"c\[(\w+), (\w+)\] \+= a\[\1, (\w+)\] \* b\[\3, floor\(\2 / 2\)\]", back), back


def test_emit_affine_declines_what_affine_maps_cannot_hold():
    program = parse_text("params N where N >= 1\ntensor x[N] f32\ntensor y[N] f32\n"
                         "kernel k {\n  for i in 0 .. N {\n    y[i] = x[min(i, 2)]\n  }\n}\n")
    with pytest.raises(Inexpressible):
        emit_affine(program, "k")


def test_unknown_mlir_pass_is_a_usage_error(capsys):
    assert main(["fuzz", "--mlir-passes", "affine-loop-tile,no-such-pass", "--examples", "1"]) == 2
    assert "no-such-pass" in capsys.readouterr().err


@needs_iree_opt
def test_campaign_counts_examples_and_finds_nothing_in_tiling(tmp_path):
    stats = mlir_passes.run_campaign(("affine-loop-tile",), None, 1, 0, str(tmp_path), shapes=("reduction",))
    assert stats.tried == 1 and not stats.findings
    assert stats.proved + stats.unknown + stats.declined == 1


@needs_iree_opt
def test_a_pass_that_drops_the_last_iteration_is_found_shrunk_and_written(tmp_path, monkeypatch):
    real = check_pass.run_pipeline

    def broken(text, pipeline, tool=None, extra=()):  # a "pass" whose loops stop one early
        r = real(text, pipeline, tool, extra)
        r.stdout = re.sub(r"affine\.for (%\w+) = 0 to (%\w+) \{", r"affine.for \1 = 1 to \2 {", r.stdout, count=1)
        return r

    monkeypatch.setattr(check_pass, "run_pipeline", broken)
    stats = mlir_passes.run_campaign(("canonicalize",), None, 1, 0, str(tmp_path), shapes=("reduction",),
                                     shrink_seconds=3)
    assert stats.findings, stats
    f = stats.findings[0]
    assert f["kind"] == "miscompile" and f["pipeline"] == "canonicalize"
    text = open(f["reproducer"]).read()
    assert "// pipeline: canonicalize" in text and "func.func" in text


@needs_iree_opt
def test_fuzz_mlir_passes_command_line_json(tmp_path, capsys):
    import json

    assert main(["fuzz", "--mlir-passes", "affine-loop-normalize", "--examples", "1", "--shapes", "reduction",
                 "-o", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["examples"] == 1 and out["findings"] == []


@needs_iree_opt
def test_fuzz_mlir_passes_workers_share_the_examples(tmp_path):
    stats = mlir_passes.run_workers(("canonicalize",), None, 2, 0, str(tmp_path), 5.0, ("reduction",), 2)
    assert stats.tried == 2 and sum(sum(r.values()) for r in stats.per_pass.values()) == 2


@needs_iree_opt
def test_fuzz_mlir_passes_on_a_local_dask_cluster(tmp_path, capsys):
    """Issue 22 item 3: `--dask` as for other campaigns; two worker processes share the examples."""
    import json

    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        rc = main(["fuzz", "--mlir-passes", "canonicalize", "--dask", cluster.scheduler_address, "--examples", "2",
                   "--shapes", "reduction", "-o", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert rc == 0 and out["examples"] == 2 and out["findings"] == []
    assert sum(sum(r.values()) for r in out["per_pass"].values()) == 2


@needs_iree_opt
def test_dask_findings_are_written_by_the_client(tmp_path, monkeypatch):
    """A Dask worker's disk is not the client's: the reproducer comes back in the result and is
    written into the client's output folder (an in-process cluster, so the broken pass applies)."""
    distributed = pytest.importorskip("distributed")
    real = check_pass.run_pipeline

    def broken(text, pipeline, tool=None, extra=()):
        r = real(text, pipeline, tool, extra)
        r.stdout = re.sub(r"affine\.for (%\w+) = 0 to (%\w+) \{", r"affine.for \1 = 1 to \2 {", r.stdout, count=1)
        return r

    monkeypatch.setattr(check_pass, "run_pipeline", broken)
    monkeypatch.setattr(mlir_passes, "WORKER_SHRINK_SECONDS", 3.0)
    with distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        stats = mlir_passes.run_workers(("canonicalize",), None, 1, 0, str(tmp_path / "out"), 5.0, ("reduction",), 1,
                                        dask=cluster.scheduler_address)
    assert stats.findings, stats
    f = stats.findings[0]
    assert "text" not in f and f["reproducer"].startswith(str(tmp_path / "out"))
    assert "// pipeline: canonicalize" in open(f["reproducer"]).read()


def test_fuzz_mlir_passes_dask_scheduler_unreachable_is_a_usage_error(capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(mlir_passes, "CONNECT_TIMEOUT", "2s")
    assert main(["fuzz", "--mlir-passes", "canonicalize", "--dask", "tcp://127.0.0.1:1", "--examples", "1"]) == 2
    assert "cannot reach tcp://127.0.0.1:1" in capsys.readouterr().err
