"""`vsched verify`: exit codes, the per-file JSON object, the human report."""
from __future__ import annotations

import json


from verified_sched.cli import main

KEYS = {"file", "kernel", "verdict", "reassociates", "obligations"}
OBL_KEYS = {"op_index", "op", "kind", "status", "engine", "seconds", "message", "counterexample"}




def json_lines(text: str) -> list:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_verify_json_one_object_per_file(repo_root, cases_dir, capsys):
    files = [str(repo_root / "examples" / "matmul.vs"), str(cases_dir / "stencil_interchange_illegal.vs")]
    assert main(["verify", "--json", *files]) == 1
    objs = json_lines(capsys.readouterr().out)
    assert [o["file"] for o in objs] == files
    for o in objs:
        assert set(o) == KEYS and o["obligations"]
        assert all(set(ob) == OBL_KEYS for ob in o["obligations"])
    assert objs[0]["verdict"] == "legal" and objs[0]["kernel"] == "matmul"
    assert objs[1]["verdict"] == "illegal"
    refuted = [ob for ob in objs[1]["obligations"] if ob["status"] == "refuted"]
    assert any(ob["kind"] == "dependence" and ob["counterexample"] for ob in refuted)


def test_verify_claims_and_kernels_together(cases_dir, capsys):
    assert main(["verify", "--json", str(cases_dir / "claim_matmul_orders.vs")]) == 0
    (obj,) = json_lines(capsys.readouterr().out)
    assert obj["verdict"] == "legal"
    assert any(ob["op"] == "claim ijk == kij" for ob in obj["obligations"])
    assert "ijk" in obj["kernel"] and "kij" in obj["kernel"]


def test_verify_human_report_and_exit_codes(repo_root, cases_dir, capsys):
    assert main(["verify", str(repo_root / "examples" / "matmul.vs")]) == 0
    out = capsys.readouterr().out
    assert "split i by 32 -> io, ii" in out and "legal" in out
    assert main(["verify", str(cases_dir / "sum_interchange.vs"), "--profile", "reproducible"]) == 1
    assert "reassociation" in capsys.readouterr().out


def test_verify_parse_error_exits_2_but_reports_the_other_files(tmp_path, repo_root, capsys):
    bad = tmp_path / "bad.vs"
    bad.write_text("kernel k {\n")
    assert main(["verify", "--json", str(bad), str(repo_root / "examples" / "matmul.vs")]) == 2
    cap = capsys.readouterr()
    assert cap.err.startswith(f"{bad}:") and len(json_lines(cap.out)) == 1


def test_verify_shared_limit_option_refutes_hardware_limits(cases_dir, capsys):
    """The staged matmul uses 2048 bytes of shared memory: legal by default, refuted under 1 KiB."""
    path = str(cases_dir / "stage_shared_matmul.vs")
    assert main(["verify", path, "--shared-limit", "1024", "--json"]) == 1
    (obj,) = json_lines(capsys.readouterr().out)
    hit = [o for o in obj["obligations"] if o["kind"] == "hardware_limits" and o["status"] == "refuted"]
    assert hit and hit[0]["counterexample"]["params"]
    assert main(["verify", path, "--shared-limit", "2048"]) == 0
