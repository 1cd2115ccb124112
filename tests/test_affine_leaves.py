"""Fixed per-call costs of the polyhedral text layer, without changing an answer: `aff` of a
variable or a literal (most index positions) skips building a translator, and the memo of
KernelModel methods reads an argument's kind off its class once."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyhedral import memo
from polyhedral.affine import IslText, NonAffine, aff
from polyhedral.model import KernelModel
from verified_sched.core import ir
from verified_sched.dsl import parse_text


def _answer(fn):
    try:
        return ("text", fn())
    except NonAffine as e:
        return ("raises", str(e))


@settings(max_examples=60, deadline=None)
@given(leaf=st.one_of(st.integers(-10**12, 10**12).map(ir.Int), st.sampled_from("ijN").map(ir.Var)),
       names=st.dictionaries(st.sampled_from("ijNM"), st.sampled_from(["i0", "i1", "p0", "(p0)"]), max_size=4))
def test_aff_of_a_leaf_is_the_translators_text(leaf, names):
    assert _answer(lambda: aff(leaf, names)) == _answer(lambda: IslText(names)(leaf))


PROGRAM = """
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    y[i] = x[i] + 1
  }
}
"""


def test_memo_keys_of_statements_and_accesses_are_read_off_their_fields():
    model = KernelModel(parse_text(PROGRAM), "k")
    st_, = model.stmts
    for a in [st_, *st_.accesses, 3, "x", None, (1, 2), True]:
        assert memo._key(a) == memo._plain_key(a)  # noqa: SLF001 - the two ways of one key
    first = model.access_map(st_, st_.accesses[1])
    assert model.access_map(st_, st_.accesses[1]) is first  # memoized
    assert model.access_map(st_, st_.accesses[1], storage_view=False) is not first  # kwargs: another key
    with pytest.raises(NonAffine):
        aff(ir.Var("q"), {})
