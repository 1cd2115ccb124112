"""The `inputs` directive: parsed into Program.inputs, printed back, errors located."""
from fractions import Fraction

import pytest

from verified_sched.dsl import parse_text
from verified_sched.dsl.printer import print_program
from verified_sched.errors import ParseError

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
