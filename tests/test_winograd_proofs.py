"""Winograd obligations: the corpus verdicts, and each obligation refuted on a broken nest."""
from __future__ import annotations

import dataclasses

import pytest

from verified_sched.core import ir
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.errors import ParseError
from verified_sched.ops.winograd.apply import rewrite_kernel
from verified_sched.fuzz.conv_programs import conv_source
from verified_sched.core.inputs import parse_inputs_line
from verified_sched.verify.discharge import answer, discharge
from verified_sched.ops.winograd.identity import identity_goals
from verified_sched.ops.winograd.proofs import accesses_in_bounds, coverage, reads_in_direct_set, winograd_goals
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json


def _json(path):
    p = parse_file(str(path))
    return file_report_json(verify_program(p, filename=str(path)), str(path))


@pytest.mark.parametrize("name, verdict, kind", [
    ("winograd_odd", "legal", None),
    ("winograd_default_profile", "illegal", "profile"),
    ("winograd_stride2_untouched", "legal", None),
])
def test_corpus(cases_dir, name, verdict, kind):
    rep = _json(cases_dir / f"{name}.vs")
    assert rep["verdict"] == verdict
    obls = [o for o in rep["obligations"] if o["op"] == "winograd"]
    if kind:
        bad = [o for o in obls if o["status"] == "refuted"]
        assert [o["kind"] for o in bad] == [kind] and bad[0]["counterexample"]
    if name == "winograd_odd":
        kinds = sorted({o["kind"] for o in obls})
        assert kinds == ["coverage", "equivalence", "in_bounds", "precondition", "profile"]
        assert sum(o["kind"] == "equivalence" and o["engine"] == "z3" for o in obls) == 4
    if name == "winograd_stride2_untouched":
        assert any("0 sites" in o["message"] for o in obls)


def _site():
    p = parse_text(conv_source())
    q, minted, _ = rewrite_kernel(p, "conv")
    m = minted[0]
    body = q.kernel("conv").body
    return p, q, m, [(role, body[m.start + i]) for i, role in enumerate(m.roles)]


def _replace_in(stmt, old, new):
    return ir.rewrite(stmt, lambda n: new if n == old else None)


def identity_discharged(roles, m, timeout):
    """The identity goals of a site, discharged (no deadline)."""
    return discharge(identity_goals(roles, m, timeout), float("inf"))


def discharged_goals(p, q, kernel, **kw):
    """Every goal of the op on (p, q), discharged (no deadline)."""
    return discharge(winograd_goals(p, q, kernel, **kw), float("inf"))


def test_identity_wrong_coefficient_refuted_with_model():
    p, q, m, region = _site()
    roles = dict(region)
    assert all(r.status == "proved" for r in identity_discharged(roles, m, 10.0))
    roles["U"] = _replace_in(roles["U"], ir.Float(0.25), ir.Float(0.125))
    res = identity_discharged(roles, m, 10.0)
    bad = [r for r in res if r.status == "refuted"]
    assert bad and all(r.kind == "equivalence" and r.counterexample.to_json()["model"] for r in bad)


def test_identity_wrong_tile_offset_refuted():
    p, q, m, region = _site()
    roles = dict(region)
    # the inverse transform adds M[3, 0] where (A^T)[1][3] says M[3, ...] is subtracted
    inv = roles["inverse"]
    first = next(n for n in ir.walk(inv) if isinstance(n, ir.BinOp) and n.op == "-")
    roles["inverse"] = _replace_in(inv, first, dataclasses.replace(first, op="+"))
    assert any(r.status == "refuted" for r in identity_discharged(roles, m, 10.0))


def test_coverage_refuted_when_strips_overlap():
    p, q, m, region = _site()
    row = dict(region)["row_strip"]
    oh = row.body[0]
    bad = dataclasses.replace(row, body=(dataclasses.replace(oh, lo=ir.BinOp("-", oh.lo, ir.Int(1))),))
    region2 = [(r, bad if r == "row_strip" else s) for r, s in region]
    res = answer(coverage(p, q, region2, m))
    assert res.status == "refuted" and res.counterexample.to_json()["cells"][0]["tensor"] == "d"
    assert res.counterexample.sizes["OH"] >= 2


def test_coverage_refuted_when_a_strip_is_missing():
    p, q, m, region = _site()
    res = answer(coverage(p, q, [x for x in region if x[0] != "col_strip"], m))
    assert res.status == "refuted" and "not written" in res.message
    assert res.counterexample.sizes["OW"] % 2 == 1


def test_reads_outside_direct_read_set_refuted():
    p, q, m, region = _site()
    v = dict(region)["V"]
    # read the tile one row further down: 2 th + 4 instead of 2 th + 3
    three = next(n for n in ir.walk(v) if isinstance(n, ir.BinOp) and n.b == ir.Int(3))
    bad = _replace_in(v, three, dataclasses.replace(three, b=ir.Int(4)))
    region2 = [(r, bad if r == "V" else s) for r, s in region]
    inb, subset = answer(accesses_in_bounds(q, region2)), answer(reads_in_direct_set(p, q, region2, m))
    assert inb.status == "refuted" and inb.counterexample.to_json()["cells"][0]["tensor"] == "a"
    assert subset.status == "refuted" and "read set" in subset.message


@pytest.mark.parametrize("cons, rng, status, needle", [
    ("C <= 288", "int in [-8, 8]", "proved", "C <= 809"),
    ("", "int in [-8, 8]", "refuted", "C <= 809"),
    ("C <= 288", "in [-1, 1] grid 1/64", "refuted", "C <= 12"),
    ("C <= 12", "in [-1, 1] grid 2^-6", "proved", "C <= 12"),
    ("C <= 4", "int in [-1024, 1024]", "refuted", ""),
])
def test_exactness(cons, rng, status, needle):
    p = parse_text(conv_source(constraints=cons))
    q = rewrite_kernel(p, "conv")[0]
    res = discharged_goals(p, q, "conv", ranges=[parse_inputs_line(f"inputs a, b {rng}")])
    ex = [r for r in res if r.kind == "exactness"]
    assert len(ex) == 1 and ex[0].status == status, ex[0].message
    assert needle in ex[0].message
    if status == "refuted":
        assert ex[0].counterexample.sizes["C"] >= 1


def test_exactness_tightest_condition_reported_for_unbounded_channels():
    p = parse_text(conv_source())
    q = rewrite_kernel(p, "conv")[0]
    r = discharged_goals(p, q, "conv", ranges=[parse_inputs_line("inputs a, b int in [-8, 8]")])[-1]
    assert r.status == "refuted" and r.counterexample.sizes["C"] == 810


def test_exactness_from_file_comment(tmp_path):
    f = tmp_path / "w.vs"
    f.write_text(conv_source(constraints="C <= 288", inputs="a, b int in [-8, 8]"))
    rep = _json(f)
    ex = [o for o in rep["obligations"] if o["kind"] == "exactness"]
    assert rep["verdict"] == "legal" and [o["status"] for o in ex] == ["proved"]
    f.write_text(conv_source(inputs="a, b int in [-8, 8]"))
    rep = _json(f)
    assert rep["verdict"] == "illegal"
    assert [o["status"] for o in rep["obligations"] if o["kind"] == "exactness"] == ["refuted"]


def test_no_ranges_no_exactness(cases_dir):
    rep = _json(cases_dir / "winograd_odd.vs")
    assert not any(o["kind"] == "exactness" for o in rep["obligations"])
    assert any("exactness is not an obligation" in o["message"] for o in rep["obligations"])


@pytest.mark.parametrize("text", ["inputs a in [-1, 1]", "inputs a int in [2, 1]",
                                  "inputs a in [-1, 1] grid 1/3", "inputs in [0, 1] int"])
def test_inputs_line_errors(text):
    with pytest.raises(ParseError):
        parse_inputs_line(text)


def test_inputs_line_forms():
    r = parse_inputs_line("inputs a, b int in [-8, 8]")
    assert r.tensors == ("a", "b") and r.magnitude == 8 and r.grid_exp == 0
    assert parse_inputs_line("inputs x in [-0.5, 1/4] grid 0.125").grid_exp == 3


def test_bitwise_expected_at_sizes(cases_dir):
    from verified_sched.ops.winograd.exact import bitwise_expected

    p = parse_file(str(cases_dir / "winograd_odd.vs"))
    assert bitwise_expected(p, "conv", dict(N=1, OH=5, OW=7, C=809, F=2)) is True
    assert bitwise_expected(p, "conv", dict(N=1, OH=5, OW=7, C=810, F=2)) is False
    stride2 = parse_file(str(cases_dir / "winograd_stride2_untouched.vs"))
    assert bitwise_expected(stride2, "conv", dict(N=1, OH=5, OW=7, C=3, F=2)) is None


def test_contraction_over_fewer_tiles_is_not_proved():
    """Dataflow: M must be computed for every tile the inverse transform reads."""
    p, q, m, region = _site()
    roles = dict(region)
    th = next(n for n in ir.walk(roles["contract"]) if isinstance(n, ir.For) and n.var == "th")
    roles["contract"] = _replace_in(roles["contract"], th, dataclasses.replace(th, hi=ir.BinOp("-", th.hi, ir.Int(1))))
    res = identity_discharged(roles, m, 10.0)
    assert [r.status for r in res] == ["unknown"] and "contraction" in res[0].message


def test_malformed_inputs_directive_is_a_located_error(tmp_path, capsys):
    from verified_sched.cli import main

    f = tmp_path / "bad.vs"
    f.write_text(conv_source(inputs="a, b in [-8, 8]"))  # no grid: exactness needs one
    assert main(["verify", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:3:1:" in err and "grid" in err
