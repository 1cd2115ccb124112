"""`vsched verify --format sarif|github|json|text` (verified_sched/gate): SARIF 2.1.0 valid
against the OASIS schema (tests/schemas) for the whole corpus, each result at the refuted
op's line and column, GitHub annotations, `--json` as an alias of `--format json`."""
from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from verified_sched.cli import main
from verified_sched.report.formats import annotation
from verified_sched.gate.runner import verify_files
from verified_sched.report.sarif import RULES, artifact_uri, sarif_document
from verified_sched.core.obligations import KINDS

from gate_support import UNKNOWN

SCHEMA = Path(__file__).resolve().parent / "schemas" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def corpus(cases_dir):
    """FileResults of the whole corpus, proved now (no cache)."""
    return verify_files([str(cases_dir)], jobs=1, use_cache=False)


@pytest.fixture(scope="module")
def corpus_sarif(corpus):
    return sarif_document(corpus)


def source_line(text: str, kernel: str, op_index: int) -> tuple:
    """(line, col) of a claim, a kernel, or the op_index-th op of a kernel's schedule, read
    from the file's text by hand (an oracle independent of the parser's positions)."""
    lines = text.splitlines()
    if "==" in kernel:
        a, b = (s.strip() for s in kernel.split("=="))
        pat = re.compile(rf"^(\s*)claim\s+{a}\s*==\s*{b}\b")
    elif op_index == 0:
        pat = re.compile(rf"^(\s*)kernel\s+{kernel}\b")
    else:
        start = next(n for n, line in enumerate(lines) if re.match(rf"\s*schedule\s+{kernel}\s*\{{", line))
        ops = [n for n in range(start + 1, len(lines))
               if lines[n].strip() and not lines[n].strip().startswith("#")]
        n = ops[op_index - 1]
        return n + 1, len(lines[n]) - len(lines[n].lstrip()) + 1
    n = next(n for n, line in enumerate(lines) if pat.match(line))
    return n + 1, len(pat.match(lines[n]).group(1)) + 1


def test_every_kind_has_a_rule_with_help():
    assert set(RULES) == set(KINDS)
    assert all(short and len(help_) > len(short) for short, help_ in RULES.values())


def test_corpus_sarif_is_valid_sarif_2_1_0(corpus_sarif):
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.validate(corpus_sarif, schema, cls=jsonschema.Draft4Validator)
    # and it is not vacuous: every rule is there, results exist
    driver = corpus_sarif["runs"][0]["tool"]["driver"]
    assert driver["name"] == "vsched" and driver["version"]
    assert [r["id"] for r in driver["rules"]] == list(KINDS)
    assert len(corpus_sarif["runs"][0]["results"]) >= 14


def test_invalid_sarif_is_caught_by_the_schema(corpus_sarif):
    """The schema check has teeth: a result without a message is rejected."""
    schema = json.loads(SCHEMA.read_text())
    broken = json.loads(json.dumps(corpus_sarif))
    del broken["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema, cls=jsonschema.Draft4Validator)


def test_each_refuted_file_has_a_result_at_the_refuted_ops_line(corpus, corpus_sarif):
    results = corpus_sarif["runs"][0]["results"]
    by_uri: dict = {}
    for res in results:
        by_uri.setdefault(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], []).append(res)
    illegal = [r for r in corpus if r.status == "illegal"]
    expected = [r for r in corpus if re.search(r"^#\s*expect:\s*illegal", Path(r.path).read_text(), re.M)]
    assert len(illegal) == len(expected) >= 14
    for r in illegal:
        mine = [x for x in by_uri.get(artifact_uri(r.path), []) if x["level"] == "error"]
        refuted = [o for rep in r.reports for o in rep["obligations"] if o["status"] == "refuted"]
        assert mine and len(mine) == len(refuted), r.path
        for res in mine:
            p = res["properties"]
            region = res["locations"][0]["physicalLocation"]["region"]
            line, col = source_line(r.text, p["kernel"], p["opIndex"])
            assert (region["startLine"], region["startColumn"]) == (line, col), (r.path, p["op"])
            assert res["ruleId"] in KINDS
            assert res["properties"]["counterexample"] or res["ruleId"] == "precondition"
    # the stencil interchange: the op on line 18, column 3
    stencil = by_uri[artifact_uri(next(r.path for r in illegal if r.path.endswith("stencil_interchange_illegal.vs")))]
    assert any(x["locations"][0]["physicalLocation"]["region"] == {"startLine": 18, "startColumn": 3}
               and x["ruleId"] == "dependence" and x["properties"]["counterexample"]["params"] == {"N": 3, "M": 3}
               for x in stencil)


def test_legal_files_have_no_results(corpus, corpus_sarif):
    uris = {res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for res in corpus_sarif["runs"][0]["results"]}
    legal = [artifact_uri(r.path) for r in corpus if r.status == "legal"]
    expected = [p for p in corpus if "# expect: legal" in Path(p.path).read_text()]
    assert len(legal) == len(expected) >= 20 and not uris & set(legal)


def test_cli_sarif_to_file_with_a_parse_error_notification(tmp_path, cases_dir, capsys):
    bad = tmp_path / "bad.vs"
    bad.write_text("params N\nkernel k {\n  for i in 0 .. N {\n    y[i] = \n")
    out = tmp_path / "r.sarif"
    rc = main(["verify", "--no-cache", "--format", "sarif", "-o", str(out),
               str(cases_dir / "stencil_interchange_illegal.vs"), str(bad)])
    assert rc == 2 and capsys.readouterr().out == ""
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()), cls=jsonschema.Draft4Validator)
    inv = doc["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False
    (note,) = inv["toolExecutionNotifications"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("bad.vs")
    assert note["message"]["text"].startswith(f"{bad}:")
    assert [r["ruleId"] for r in doc["runs"][0]["results"]] == ["dependence"]


def test_github_annotations(cases_dir, capsys):
    path = str(cases_dir / "stencil_interchange_illegal.vs")
    assert main(["verify", "--no-cache", "--format", "github", path]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"::error file={path},line=18,col=3,title=vsched dependence::dependence refuted")
    assert "N=3, M=3" in lines[0]


def test_github_annotation_escaping():
    line = annotation("warning", "a,b:c.vs", 3, 4, "t", "50% done\nnext, line")
    assert line == "::warning file=a%2Cb%3Ac.vs,line=3,col=4,title=t::50%25 done%0Anext, line"


def test_github_unknown_is_a_warning(tmp_path, capsys):
    f = tmp_path / "u.vs"
    f.write_text(UNKNOWN)
    assert main(["verify", "--no-cache", "--format", "github", str(f)]) == 3
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(f"::warning file={f},line=14,col=3,title=vsched dependence::dependence unknown")


def test_json_format_is_the_json_flag(repo_root, cases_dir, capsys):
    files = [str(repo_root / "examples" / "matmul.vs"), str(cases_dir / "stencil_interchange_illegal.vs")]
    assert main(["verify", "--json", "--no-cache", *files]) == 1
    a = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert main(["verify", "--format", "json", *files]) == 1
    b = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    strip = lambda objs: [{**o, "obligations": [{**ob, "seconds": 0} for ob in o["obligations"]]} for o in objs]  # noqa: E731
    assert strip(a) == strip(b) and [o["file"] for o in a] == files
    assert main(["verify", "--json", "--format", "text", files[0]]) == 2
