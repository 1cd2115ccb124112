"""Typed results (issue 24 item 4): `Counterexample` (with `Instance`, `Cell`, `Thread`),
`Message(template, locations)` with positions as data, and one `FileReport` whose `verdict`
every renderer reads. The JSON of each type keeps the shape reports always had; the proof
cache stores the types' data (no text rewriting) and a cache hit renders byte-identically to
a fresh run."""
from __future__ import annotations

import ast
import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_sched.cli import main
from verified_sched.core.counterexample import Cell, Counterexample, Instance, Thread
from verified_sched.core.cex_text import cex_lines
from verified_sched.core.errors import Loc
from verified_sched.core.file_report import FileReport, KernelReport, verdict_of
from verified_sched.report.formats import render
from verified_sched.gate.runner import verify_files
from verified_sched.report.sarif import sarif_document
from verified_sched.core.message import Message
from verified_sched.core.obligations import Decided, Obligation
from verified_sched.verify.kernel_report import format_report

BARRIER = {"params": {"B": 1}, "barrier": "f.vs:14:9", "iteration": {},
           "threads": [{"block": {"block.x": 0}, "thread": {"thread.x": 31}, "reaches": True},
                       {"block": {"block.x": 0}, "thread": {"thread.x": 63}, "reaches": False}]}
DEPENDENCE = {"params": {"N": 2}, "kind": "RAW", "value": "1.0",
              "instances": [{"kernel": "A", "stmt": "S0", "at": {"i": 0}, "original": {"i": 0},
                             "reads": [{"tensor": "x", "index": [0]}], "writes": {"tensor": "y", "index": [0]}}],
              "order": {"before": "first", "after": "second"},
              "cells": [{"tensor": "y", "index": [0], "access": "write"}]}
SHAPES = [BARRIER, DEPENDENCE, {"params": {}, "profile": "default"}, {"position": [1, 2], "model": "m"},
          {"instances": "[i] -> { S[0] }"}, {"params": {"N": 3}, "inputs": "special", "seed": 7,
                                              "values": [{"tensor": "x", "index": [1], "value": "nan", "bits": "0x7fc00000"}]},
          {"params": {"N": 1}, "order": None, "threads": [{"t": 3}], "phase": 0}]


@pytest.mark.parametrize("data", SHAPES)
def test_counterexample_json_round_trip(data):
    cex = Counterexample.from_json(data)
    assert cex.to_json() == data and json.dumps(cex.to_json()) == json.dumps(data)  # keys in their order too
    assert Counterexample.from_json(cex.to_json()) == cex and cex != data  # not a mapping: its JSON is to_json()


def test_counterexample_fields_are_typed():
    cex = Counterexample.from_json(BARRIER)
    assert cex.instance == Instance(sizes={"B": 1}) and cex.sizes == {"B": 1}
    assert cex.threads[1] == Thread({"block.x": 0}, {"thread.x": 63}, False)
    assert cex.threads[0].coordinates == {"block.x": 0, "thread.x": 31} and cex.extra == {"iteration": {}}
    dep = Counterexample.from_json(DEPENDENCE)
    assert dep.cells == (Cell("y", [0], {"access": "write"}),) and str(dep.cells[0]) == "y[0]"
    assert dep.extra == {"kind": "RAW", "value": "1.0"} and dep.order["after"] == "second"
    replay = Counterexample.from_json(SHAPES[5]).instance
    assert (replay.inputs, replay.seed, replay.values[0]["tensor"]) == ("special", 7, "x")


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                      max_size=3), max_leaves=8)
keys = st.sampled_from(["params", "instances", "order", "observed_by", "cells", "threads", "barrier", "profile",
                        "inputs", "seed", "values", "kind", "phase", "term", "missing_in", "extra_in", "points"])


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(keys, json_values, max_size=6))
def test_any_counterexample_json_round_trips(data):
    cells = data.get("cells")
    if cells is not None and not isinstance(cells, list):
        data["cells"] = [cells]  # cells and threads are lists in every report
    threads = data.get("threads")
    if threads is not None and not isinstance(threads, list):
        data["threads"] = [threads]
    assert json.dumps(Counterexample.from_json(data).to_json()) == json.dumps(data)


def test_message_renders_its_locations():
    loc = Loc("a.vs", 14, 9)
    text = "the barrier at a.vs:14:9 of {S[i]} is reached; a.vs:14:90 is another"
    msg = Message.quoting(text, (loc,))
    assert str(msg) == text and msg.locations == (loc,)
    assert msg.template == "the barrier at {0} of {{S[i]}} is reached; a.vs:14:90 is another"
    moved = msg.relocated(lambda x: Loc(x.file, x.line + 2, x.col))
    assert str(moved).startswith("the barrier at a.vs:16:9 of {S[i]}")
    assert Message.from_json(msg.to_json()) == msg and json.loads(json.dumps(msg.to_json())) == msg.to_json()
    assert str(Message.plain("{x}")) == "{x}" and Message.quoting("no position", (loc,)).locations == ()


def test_obligation_takes_a_message_and_a_counterexample():
    loc = Loc("a.vs", 3, 1)
    o = Obligation("barrier_uniformity", 0, "kernel k", "s", "isl", "refuted", 0.5,
                   Message("the barrier at {0} diverges", (loc,)), Counterexample.from_json(BARRIER))
    assert o.message == "the barrier at a.vs:3:1 diverges" and o.locations == (loc,)
    assert isinstance(o.counterexample, Counterexample) and o.to_json()["counterexample"] == BARRIER
    assert o.msg == Message("the barrier at {0} diverges", (loc,))


def _obl(status, cex=None, kind="dependence", op_index=1):
    return Obligation(kind, op_index, "interchange i j", "stmt", "isl", status, 0.25, f"{kind} {status}",
                      Counterexample.from_json(cex))


def test_the_verdict_is_derived_in_one_place():
    assert verdict_of([]) == "legal" and verdict_of(["proved", "unknown"]) == "unknown"
    assert verdict_of(["unknown", "refuted"]) == "illegal"
    legal = FileReport("f.vs", [KernelReport("f.vs", "k", [_obl("proved")])])
    illegal = FileReport("f.vs", [KernelReport("f.vs", "k", [_obl("proved")]),
                                  KernelReport("f.vs", "m", [_obl("refuted", DEPENDENCE)])])
    assert (legal.verdict, illegal.verdict) == ("legal", "illegal")
    assert illegal.to_json()["verdict"] == "illegal" and illegal.kernels[1].verdict == "illegal"
    assert FileReport("f.vs", error="f.vs:1:1: bad", error_kind="input").verdict == "error"


def test_file_report_data_round_trip_renders_the_same():
    report = FileReport("f.vs", [KernelReport("f.vs", "k", [_obl("proved"), _obl("refuted", DEPENDENCE),
                                                              _obl("refuted", BARRIER, "barrier_uniformity", 0)])],
                        sites=[{"loc": (3, 1), "ops": [(9, 3)]}])
    data = json.loads(json.dumps(report.to_data()))
    back = FileReport.from_data(data)
    assert back.to_json() == report.to_json()
    assert [format_report(r) for r in back.kernels] == [format_report(r) for r in report.kernels]
    assert [(k, o.kind, line, col) for k, o, line, col in back.findings()] == \
        [("k", "dependence", 9, 3), ("k", "barrier_uniformity", 3, 1)]


def test_format_report_of_a_counterexample_is_the_old_text():
    o = _obl("refuted", {**BARRIER, "phase": 1, "inputs": "special", "seed": 2}, "barrier_uniformity", 0)
    text = format_report(KernelReport("f.vs", "k", [o]))
    assert text.splitlines()[2:] == [
        "    refuted  barrier_uniformity isl          0.250s  barrier_uniformity refuted",
        "        sizes: B=1",
        "        thread: (block.x=0, thread.x=31) reaches the barrier",
        "        thread: (block.x=0, thread.x=63) does not reach it",
        "        barrier phase: 1",
        "        barrier: f.vs:14:9",
        "        inputs: special (vsched run --inputs special --seed 2)"]


def _renderings(results) -> dict:
    out = {fmt: [render(r, fmt, first=True, timeout=10.0) for r in results] for fmt in ("text", "json", "github")}
    out["sarif"] = json.dumps(sarif_document(results), indent=1)
    return out


def test_cache_hit_renders_identically_to_a_fresh_run(tmp_path, monkeypatch, cases_dir):
    """Regression (issue 24): the proof cache once stored messages with every `file:line:col`
    regex-replaced by a placeholder and rebuilt reports from that text; it now stores the typed
    report's data, and a hit renders text, JSON, SARIF and annotations byte-identically."""
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(tmp_path / "cache"))
    f = tmp_path / "barrier_divergent.vs"
    f.write_text((cases_dir / "barrier_divergent.vs").read_text())
    fresh = verify_files([str(f)], jobs=1)
    cached = verify_files([str(f)], jobs=1)
    assert not fresh[0].cached and cached[0].cached and fresh[0].status == "illegal"
    assert _renderings(cached) == _renderings(fresh)
    assert f"barrier at {f}:14:9" in _renderings(cached)["text"][0]


def test_cache_hit_for_moved_lines_renders_as_a_fresh_run_of_the_file(tmp_path, monkeypatch, cases_dir, capsys):
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(tmp_path / "cache"))
    f = tmp_path / "barrier_divergent.vs"
    source = (cases_dir / "barrier_divergent.vs").read_text()
    f.write_text(source)
    assert main(["verify", "-j", "1", str(f)]) == 1
    f.write_text("# moved\n# down\n" + source)
    cached = verify_files([str(f)], jobs=1)
    fresh = verify_files([str(f)], jobs=1, use_cache=False)
    assert cached[0].cached and not fresh[0].cached
    # the same obligations at the file's new positions; only the fresh run's timings differ
    a, b = cached[0].report, fresh[0].report
    for o in a.obligations + b.obligations:
        o.seconds = 0.0
    assert a.to_json() == b.to_json()
    assert any(f"barrier at {f}:16:9" in o.message for o in a.obligations)
    assert list(a.findings()) == list(b.findings())
    capsys.readouterr()


# ---------------------------------------------------------------- writers build the type (issue 24 item 4)

PACKAGES = ("verified_sched", "polyhedral", "smt", "codegen")
CEX_AT = {"Decided": 3, "decided": 3, "Obligation": 8}  # the counterexample's positional index


def _dict_counterexamples(tree):
    """(line, text) of every dict literal (or dict(...)/comprehension) given as a counterexample:
    `counterexample=` anywhere, or positionally to Decided, common.decided or Obligation."""
    def is_dict(node):
        return isinstance(node, (ast.Dict, ast.DictComp)) or (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", None))
        given = [k.value for k in node.keywords if k.arg == "counterexample"]
        if name in CEX_AT and len(node.args) > CEX_AT[name]:
            given.append(node.args[CEX_AT[name]])
        yield from ((node.lineno, ast.unparse(v)[:60]) for v in given if is_dict(v))


def test_no_package_file_writes_a_counterexample_as_a_dict():
    """Every writer builds the typed Counterexample (no dict literal given as one)."""
    root = Path(__file__).resolve().parents[1]
    sources = {p: p.read_text() for pkg in PACKAGES for p in sorted((root / pkg).rglob("*.py"))}
    found = [f"{p.relative_to(root)}:{line}: {text}" for p, source in sources.items()
             if any(w in source for w in ("counterexample", "ecided(", "Obligation("))  # else none to find
             for line, text in _dict_counterexamples(ast.parse(source))]
    assert found == []
    legacy = "def f():\n    return Decided('refuted', 'm', 's', {'params': {}})\n"
    assert [line for line, _ in _dict_counterexamples(ast.parse(legacy))] == [2]  # the scan sees one


def test_a_counterexample_is_not_a_mapping():
    cex = Counterexample.from_json(DEPENDENCE)
    assert not isinstance(cex, Mapping) and not hasattr(cex, "get") and not hasattr(cex, "keys")
    with pytest.raises(TypeError):
        cex["params"]  # noqa: B018 (read the field: cex.sizes)
    assert cex.sizes == {"N": 2} and cex != DEPENDENCE and cex == Counterexample.from_json(DEPENDENCE)


def test_obligation_and_decided_refuse_a_dict_naming_its_writer():
    with pytest.raises(TypeError, match=rf"test_typed_results\.py:\d+: the counterexample of dependence "
                                         r"\(interchange i j\) is a dict"):
        Obligation("dependence", 1, "interchange i j", "s", "isl", "refuted", 0.0, "m", {"params": {}})
    with pytest.raises(TypeError, match=r"test_typed_results\.py:\d+: a counterexample is a Counterexample, not a dict"):
        Decided("refuted", "m", counterexample={"params": {}})
    proved = _obl("proved")
    with pytest.raises(TypeError, match=r"test_typed_results\.py:\d+: .* is a dict"):
        dataclasses.replace(proved, counterexample=dict(BARRIER))


def test_a_writers_key_order_stays_in_the_json():
    """Regression (issue 24): writers whose JSON put an op's own key before a field's (the
    claim's `term` before `instances`, a dependence's `kind` before `observed_by`) keep
    their reports' bytes when they build the type (`key_order`)."""
    cex = Counterexample(Instance({"N": 1}), [{"stmt": "S"}], cells=(Cell("c", [0]),), extra={"term": "a[0]"},
                         key_order=("params", "cells", "term", "instances"))
    assert list(cex.to_json()) == ["params", "cells", "term", "instances"]
    assert list(Counterexample(Instance({}), [], extra={"k": 1}).to_json()) == ["params", "instances", "k"]


def test_an_empty_counterexample_adds_no_line_to_the_text_report():
    """Regression (issue 24): the text report skipped a counterexample with no key by its
    mapping length; with the mapping gone it checks the JSON."""
    o = _obl("refuted", {})
    assert o.counterexample is not None and cex_lines(o) == []
    assert cex_lines(_obl("refuted", {"params": {"N": 3}})) == ["sizes: N=3"]
