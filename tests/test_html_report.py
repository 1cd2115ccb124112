"""Counterexamples you can look at: the pictures' data (report/iterspace.py),
the HTML page (report/html.py) and `vsched explain`. The page in a real browser:
test_html_browser.py."""
from __future__ import annotations

import re
from html import escape
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, strategies as st

from verified_sched.cli import main
from verified_sched.dsl import parse_file
from verified_sched.report.html import render_html
from verified_sched.report.geometry import MAX_SPAN, MAX_X, DrawError, choose_dims, window
from verified_sched.report.iterspace import scene
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json

DRAWN = ("stencil_interchange_illegal.vs", "shared_missing_barrier.vs", "matmul_round_up_oob.vs")


def _merged(path):
    program = parse_file(path)
    return program, file_report_json(verify_program(program, filename=str(path)), str(path))


def _refuted(path, kind):
    program, merged = _merged(path)
    return program, next(o for o in merged["obligations"] if o["status"] == "refuted" and o["kind"] == kind)


def _page(paths):
    return render_html([(str(p), p.read_text(), _merged(p)[1]) for p in paths])


def _articles(page: str) -> list:
    return re.findall(r'<article class="refutation".*?</article>', page, re.S)


# ---------------------------------------------------------------- the pictures' data


def test_interchange_order_flips_between_the_panels(cases_dir):
    program, o = _refuted(cases_dir / "stencil_interchange_illegal.vs", "dependence")
    sc = scene(program, o)
    before, after = sc.panels
    assert before.title.startswith("before op [1]") and after.title == "after op [1]"
    assert (before.first, after.first) == ("A", "B")
    (vb,), (va,) = before.views, after.views
    # before: rows i, columns j; after the interchange: rows j, columns i
    assert [vb.loops[vb.y][0], vb.loops[vb.x][0]] == ["i", "j"]
    assert [va.loops[va.y][0], va.loops[va.x][0]] == ["j", "i"]
    assert vb.marks == {"A": (1, 1), "B": (0, 2)} and va.marks == {"A": (1, 1), "B": (2, 0)}
    # the whole domain at N=M=3 (i in 1..2, j in 0..1), numbered in the order each program runs
    assert vb.points == {(0, 1): 1, (1, 1): 2, (0, 2): 3, (1, 2): 4}
    assert va.points == {(1, 0): 1, (2, 0): 2, (1, 1): 3, (2, 1): 4}
    assert sc.lines[18] == "op" and sc.lines[12] == "stmt"
    (grid,) = sc.grids
    assert grid.tensor == "A" and grid.shape == (3, 3)
    assert grid.marks[(1, 1)] == {"conflict", "A-write", "B-read"}


def test_race_in_a_kernel_marks_two_statements(cases_dir):
    program, o = _refuted(cases_dir / "shared_missing_barrier.vs", "race")
    (panel,) = scene(program, o).panels
    assert [v.sid for v in panel.views] == ["S0", "S1"]
    s0, s1 = panel.views
    assert s0.marks == {"A": (63, 0)} and s1.marks == {"B": (62, 0)}
    assert panel.first is None and "unordered" in panel.order
    # 64 threads: a window of MAX_X around the marks, steps global over both statements
    assert len(s0.xs) == MAX_X and 63 in s0.xs and 62 in s1.xs
    assert max(s0.points.values()) < min(s1.points.values())


def test_round_up_instance_is_a_ghost_before_and_outside_storage(cases_dir):
    program, o = _refuted(cases_dir / "matmul_round_up_oob.vs", "in_bounds")
    sc = scene(program, o)
    before, after = sc.panels
    assert before.missing == ["A"] and before.views[0].ghosts == {"A": (7, 0)}
    assert before.views[0].points == {(0, 0): 1}  # only j=0 runs at M=1
    assert after.views[0].marks == {"A": (7, 0)} and len(after.views[0].points) == 8
    (grid,) = sc.grids
    assert grid.shape == (1, 1) and "conflict" in grid.marks[(7, 0)]


def test_duplicated_instance_is_one_point_before_the_split(cases_dir):
    program, o = _refuted(cases_dir / "rowsum_shift_inward.vs", "coverage")
    before, after = scene(program, o).panels
    assert before.views[0].marks["A"] == before.views[0].marks["B"]
    assert "one and the same instance" in before.order
    assert after.first == "A" and after.views[0].marks == {"A": (7, 0), "B": (0, 1)}


def test_claim_draws_the_kernel_with_the_missing_term(cases_dir):
    program, o = _refuted(cases_dir / "claim_matmul_off_by_one.vs", "equivalence")
    panels = scene(program, o).panels
    assert [p.title for p in panels] == ["kernel full"] and "A" in panels[0].views[0].marks


@given(st.integers(-50, 50), st.integers(0, 300), st.lists(st.integers(0, 300), min_size=1, max_size=3))
def test_window_holds_every_marked_value(lo, width, offsets):
    hi = lo + width
    marked = [lo + min(o, width) for o in offsets]
    if max(marked) - min(marked) + 1 > MAX_SPAN and width + 1 > MAX_X:
        with pytest.raises(DrawError):
            window(lo, hi, marked)
        return
    w = window(lo, hi, marked)
    assert all(m in w for m in marked)
    assert len(w) <= max(MAX_X, max(marked) - min(marked) + 1)
    assert w.start >= lo and w.stop - 1 <= hi
    if width + 1 <= MAX_X:
        assert w == range(lo, hi + 1)


@given(st.integers(0, 5).flatmap(lambda d: st.tuples(
    st.just(d), st.lists(st.tuples(*[st.integers(0, 4)] * d), min_size=1, max_size=2),
    st.lists(st.integers(1, 9), min_size=d, max_size=d))))
def test_chosen_dims_include_the_differing_ones(case):
    depth, marked, extents = case
    x, y = choose_dims(depth, marked, extents)
    drawn = {k for k in (x, y) if k is not None}
    differ = {k for k in range(depth) if len({m[k] for m in marked}) > 1}
    assert len(drawn) <= 2 and (y is None or (x is not None and y < x))
    assert drawn >= differ or len(differ) > 2
    assert len(drawn) == min(2, len(differ | {k for k in range(depth) if extents[k] > 1}))


# ---------------------------------------------------------------- the page


def test_page_of_three_refuted_cases(cases_dir):
    page = _page([cases_dir / n for n in DRAWN])
    arts = _articles(page)
    assert len(arts) == 3
    for art in arts:
        assert art.count('class="instance-a"') >= 1 and 'class="cell-conflict"' in art
    assert sum('class="instance-b"' in a for a in arts) == 2  # in_bounds has one instance
    # the refuted op's line is highlighted in the source listing
    assert re.search(r'class="line op-line" data-line="18"><span class="no">18</span>\s*interchange i, j', arts[0])
    assert re.search(r'class="line op-line" data-line="22"', arts[2])
    assert 'class="line stmt-line" data-line="14"' in arts[1] and 'data-line="17"' in arts[1]
    assert "order of A and B:</b> A runs before B" in arts[0] and "B runs before A" in arts[0]


def test_page_is_self_contained_and_its_svgs_are_xml(cases_dir):
    page = _page([cases_dir / n for n in DRAWN])
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page and "<link" not in page and "<img" not in page
    assert set(re.findall(r"https?://[^\"' )]+", page)) == {"http://www.w3.org/2000/svg"}
    svgs = re.findall(r"<svg .*?</svg>", page, re.S)
    assert len(svgs) >= 8
    for s in svgs:
        ET.fromstring(s)  # well formed


def test_every_refuted_corpus_case_renders(cases_dir):
    """Each refuted obligation gets an article; those whose counterexample names an instance
    by its iterators get it drawn; the rest keep their text."""
    illegal = sorted(p for p in cases_dir.glob("*.vs") if "expect: illegal" in p.read_text())
    assert len(illegal) >= 10
    for path in illegal:
        _, merged = _merged(path)
        page = render_html([(str(path), path.read_text(), merged)])
        refuted = [o for o in merged["obligations"] if o["status"] == "refuted"]
        arts = _articles(page)
        assert len(arts) == len(refuted), path.name
        for o, art in zip(refuted, arts):
            cex = o["counterexample"] or {}
            assert escape(o["message"]) in art
            if any(isinstance(i.get("at"), dict) for i in cex.get("instances") or []):
                assert 'class="instance-a"' in art or 'class="instance-b"' in art, (path.name, o["kind"])


def test_legal_file_says_so(cases_dir):
    path = cases_dir / "stencil_interchange_legal.vs"
    page = _page([path])
    assert not _articles(page) and "every obligation is proved: nothing to draw" in page


# ---------------------------------------------------------------- vsched explain


def test_explain_refuted_op_writes_the_page(cases_dir, tmp_path, capsys):
    out = tmp_path / "e.html"
    assert main(["explain", str(cases_dir / "stencil_interchange_illegal.vs"), "--op", "1", "-o", str(out)]) == 1
    assert "illegal (1 refuted obligation(s))" in capsys.readouterr().out
    assert len(_articles(out.read_text())) == 1 and 'class="instance-b"' in out.read_text()


def test_explain_prints_the_page_without_output(cases_dir, capsys):
    assert main(["explain", str(cases_dir / "shared_missing_barrier.vs")]) == 1
    cap = capsys.readouterr()
    assert cap.out.startswith("<!DOCTYPE html>") and "race" in cap.out and "illegal" in cap.err


def test_explain_legal_op(cases_dir, capsys):
    assert main(["explain", str(cases_dir / "stencil_interchange_legal.vs"), "--op", "1"]) == 0
    assert "legal (every obligation proved)" in capsys.readouterr().out


def test_explain_unknown_is_3(cases_dir, capsys):
    assert main(["explain", str(cases_dir / "stencil_interchange_legal.vs"), "--op", "1", "--timeout", "0"]) == 3
    assert "not decided" in capsys.readouterr().err


def test_explain_op_not_reached_shows_the_earlier_refuted_precondition(tmp_path, capsys):
    src = tmp_path / "p.vs"
    src.write_text("params N where N >= 1\ntensor y[N] f32\nkernel k {\n  for i in 0 .. N {\n    y[i] = 1.0\n"
                   "  }\n}\nschedule k {\n  interchange i, nope\n  retype i as vectorized\n}\n")
    assert main(["explain", str(src), "--op", "2", "-o", str(tmp_path / "o.html")]) == 1
    assert "precondition refuted" in (tmp_path / "o.html").read_text()
    capsys.readouterr()


@pytest.mark.parametrize("argv, err", [
    (["--op", "2"], "has 1 schedule op(s); there is no op 2"),
    (["--kernel", "nope"], "no kernel named 'nope'"),
    (["--op", "0"], "expected a positive integer"),
])
def test_explain_usage_errors_are_2(cases_dir, capsys, argv, err):
    assert main(["explain", str(cases_dir / "stencil_interchange_illegal.vs"), *argv]) == 2
    assert err in capsys.readouterr().err


def test_explain_missing_file_is_2(tmp_path, capsys):
    assert main(["explain", str(tmp_path / "none.vs")]) == 2
    assert "vsched: error: cannot read" in capsys.readouterr().err


def test_explain_parse_error_is_2(tmp_path, capsys):
    bad = tmp_path / "bad.vs"
    bad.write_text("kernel k {\n  y[ = 1\n}\n")
    assert main(["explain", str(bad)]) == 2
    assert re.search(r"bad\.vs:\d+:\d+: ", capsys.readouterr().err)


TWO = """params N where N >= 2
tensor x[N] f32
tensor y[N] f32
tensor z[N] f32
kernel one {
  for i in 1 .. N {
    y[i] = y[i - 1] + x[i]
  }
}
kernel two {
  for i in 0 .. N {
    z[i] = 2.0 * x[i]
  }
}
schedule one {
  retype i as vectorized
}
schedule two {
  retype i as vectorized
}
"""


def test_explain_picks_the_kernel_among_several(tmp_path, capsys):
    src = tmp_path / "two.vs"
    src.write_text(TWO)
    assert main(["explain", str(src), "--op", "1"]) == 2
    assert "several kernels have schedules (one, two); choose one with --kernel" in capsys.readouterr().err
    assert main(["explain", str(src), "--op", "1", "--kernel", "two"]) == 0
    out = tmp_path / "one.html"
    assert main(["explain", str(src), "--op", "1", "--kernel", "one", "-o", str(out)]) == 1
    page = out.read_text()
    # the same op text in both schedules: the refutation is drawn in kernel one's statement
    assert 'class="instance-b"' in page and 'data-line="7"' in page and "y[i] = y[i - 1] + x[i]" in page
    capsys.readouterr()


def test_same_op_text_in_two_kernels_is_drawn_in_its_own_kernel(tmp_path):
    """Regression: the merged report does not name each obligation's kernel; two schedules
    with the same op text must each be drawn with their own kernel's statement."""
    src = tmp_path / "two.vs"
    src.write_text(TWO.replace("for i in 0 .. N {\n    z[i] = 2.0 * x[i]", "for i in 1 .. N {\n    z[i] = z[i - 1] * x[i]"))
    program, merged = _merged(src)
    page = render_html([(str(src), src.read_text(), merged)])
    arts = _articles(page)
    assert len(arts) == 4  # dependence and independence in each kernel
    for art in arts[:2]:
        assert 'class="line stmt-line" data-line="7"' in art and 'data-line="12"><span class="no">12</span>' in art
        assert 'class="line stmt-line" data-line="12"' not in art
    for art in arts[2:]:
        assert 'class="line stmt-line" data-line="12"' in art and 'class="line stmt-line" data-line="7"' not in art
    assert all('class="instance-b"' in a for a in arts)
