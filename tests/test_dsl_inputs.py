"""The `inputs` directive: parsed into Program.inputs, printed back, errors located."""
from fractions import Fraction

import pytest

from verified_sched.dsl import parse_text
from verified_sched.core.printer import print_program
from verified_sched.core.errors import ParseError

SRC = """params N where N >= 1
inputs a, b int in [-8, 8]
inputs a in [-1, 1/2] grid 1/16
tensor a[N] f32
tensor b[N] f32
kernel k {
  for i in 0 .. N {
    b[i] += a[i]
  }
}
"""


def test_inputs_parse_and_round_trip():
    p = parse_text(SRC)
    assert [r.tensors for r in p.inputs] == [("a", "b"), ("a",)]
    assert p.inputs[1].hi == Fraction(1, 2) and p.inputs[1].grid_exp == 4
    assert p.inputs[0].grid_exp == 0 and p.inputs[0].lo == -8
    assert parse_text(print_program(p)) == p


@pytest.mark.parametrize("line, where, msg", [
    ("inputs q int in [0, 1]", "2:1", "unknown tensor 'q'"),
    ("inputs a in [0, 1] grid 3", "2:1", "power of two"),
    ("inputs a in [2, 1] grid 1/2", "2:1", "empty range"),
    ("inputs a in [0, 1]", "2:1", "needs a grid"),
])
def test_inputs_errors(line, where, msg):
    src = SRC.replace("inputs a, b int in [-8, 8]", line)
    with pytest.raises(ParseError) as exc:
        parse_text(src, "f.vs")
    assert f"f.vs:{where}" in str(exc.value) and msg in str(exc.value)


# ---------------------------------------------------------------- the comment form (issue 23)


def test_inputs_comment_form_is_read_like_the_directive():
    """`# inputs: ...` was documented as read but ignored: Program.inputs stayed empty."""
    commented = SRC.replace("inputs a, b", "# inputs: a, b").replace("inputs a in", "  #inputs: a in")
    p, q = parse_text(SRC), parse_text(commented)
    assert q.inputs == p.inputs
    assert [r.tensors for r in q.inputs] == [("a", "b"), ("a",)]
    assert parse_text(print_program(q)).inputs == p.inputs  # printed as the directive


def test_inputs_comment_errors_are_located_at_the_comment():
    src = SRC.replace("inputs a, b int in [-8, 8]", "  # inputs: a in [0, 1]")
    with pytest.raises(ParseError) as exc:
        parse_text(src, "f.vs")
    assert str(exc.value).startswith("f.vs:2:3:") and "needs a grid" in str(exc.value)


def test_inputs_comment_keeps_winograd_exact(repo_root):
    """The Winograd exactness check disappeared and `run` compared within tolerance when the
    ranges were given as a comment: now the comment proves exactness and `run` is bitwise."""
    from verified_sched.ops.winograd import exact_at
    from verified_sched.ops.winograd.exact import declared_ranges

    text = (repo_root / "examples" / "winograd_exact.vs").read_text()
    commented = text.replace("\ninputs a, b int in [-8, 8]", "\n# inputs: a, b int in [-8, 8]")
    assert commented != text
    p, q = parse_text(text), parse_text(commented)
    assert declared_ranges(q) == declared_ranges(p) != []
    sizes = {"N": 1, "OH": 2, "OW": 2, "C": 3, "F": 2}
    assert exact_at(q, "conv", sizes, "random") is True
