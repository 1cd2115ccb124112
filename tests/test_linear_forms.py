"""Recorded canonical forms (analysis/linear_index: `render_linear` records the form of a
rendered sum of variables; `linear_form`, `norm_index`, `fold_index`, the int64 check and
well-formedness read it back; `substitute_form` substitutes on it): every shortcut gives what
the tree walk gives."""
from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from verified_sched.analysis import int_range, linear_index
from verified_sched.analysis.linear_index import (known_form, linear_form, norm_index, render_linear,
                                                  substitute_form)
from verified_sched.core import ir

NAMES = ("a", "b", "c", "d", "e")
coefs = st.integers(-6, 6) | st.sampled_from((2 ** 40, -(2 ** 40), 2 ** 62))
forms = st.tuples(st.dictionaries(st.sampled_from(NAMES), coefs, max_size=5), st.integers(-9, 9))


def _fresh(e):
    """An equal copy of `e` that is not the recorded object (its form is walked)."""
    return pickle.loads(pickle.dumps(e))


def _walked(e) -> tuple:
    terms, const = linear_form(_fresh(e))
    return list(terms.items()), const


@settings(max_examples=100, deadline=None)
@given(forms)
def test_a_recorded_form_is_the_walked_form_in_order(form):
    """The recorded form of a render is what `linear_form` computes from its tree: the same
    terms in the same order (the order decides the render), the same constant."""
    terms, const = form
    out = render_linear({ir.Var(n): c for n, c in terms.items()}, const)
    rec = known_form(out)
    if rec is None:
        assert not isinstance(out, ir.BinOp) or not any(terms.values())
        return
    assert (list(rec[0].items()), rec[1]) == _walked(out)
    assert norm_index(out) is out and linear_form(out) == (dict(rec[0]), rec[1])
    # the walked copy renders to an equal tree, which is adopted with the same form
    copy = _fresh(out)
    assert norm_index(copy) is copy and known_form(copy) is not None


@settings(max_examples=100, deadline=None)
@given(forms, st.sampled_from(NAMES), forms)
def test_substitute_form_is_the_normalized_substitution(form, var, repl):
    """`substitute_form(e, {v: r})` is `norm_index(substitute(e, {v: r}))`, the tree the
    simplifier makes of the substituted index, term order included."""
    terms, const = form
    e = render_linear({ir.Var(n): c for n, c in terms.items()}, const)
    if known_form(e) is None:
        return
    rt, rc = repl
    r = render_linear({ir.Var(n): c for n, c in rt.items()}, rc)
    got = substitute_form(e, {var: r})
    want = norm_index(ir.substitute(_fresh(e), {var: _fresh(r)}))
    assert got == want
    if isinstance(got, ir.BinOp) and known_form(got) is not None:
        assert (list(known_form(got)[0].items()), known_form(got)[1]) == _walked(got)


def test_substitute_form_declines_what_is_not_a_sum_of_variables():
    e = render_linear({ir.Var("a"): 2, ir.Var("b"): 1}, 0)
    assert substitute_form(e, {"a": ir.Call("min", (ir.Var("c"), ir.Int(3)))}) is None
    assert substitute_form(ir.BinOp("+", ir.Var("a"), ir.Var("b")), {"a": ir.Var("c")}) is None  # not recorded
    assert substitute_form(e, {"z": ir.Var("c")}) is e  # nothing to substitute


bounds = st.integers(-(2 ** 62), 2 ** 62)


@settings(max_examples=120, deadline=None)
@given(forms, st.lists(st.tuples(bounds, bounds), min_size=5, max_size=5))
def test_int64_check_of_a_recorded_sum_is_the_tree_walks(form, ranges):
    """The int64 check of a recorded sum (no tree walk when its magnitude bound fits) gives the
    interval the walk gives, and overflows exactly where the walk does."""
    terms, const = form
    e = render_linear({ir.Var(n): c for n, c in terms.items()}, const)
    env = {n: (min(x, y), max(x, y)) for n, (x, y) in zip(NAMES, ranges)}

    def run(x):
        try:
            return int_range.interval(x, env, "w", {})
        except int_range.Overflow:
            return "overflow"
    assert run(e) == run(_fresh(e))


def test_the_form_record_is_bounded(monkeypatch):
    monkeypatch.setattr(linear_index, "_FORMS", {})
    monkeypatch.setattr(linear_index, "_FORMS_SIZE", 4)
    outs = [render_linear({ir.Var("a"): k, ir.Var("b"): 1}, 0) for k in range(2, 9)]
    assert len(linear_index._FORMS) == 4  # noqa: SLF001
    assert known_form(outs[-1]) is not None and known_form(outs[0]) is None


def test_a_node_hash_is_computed_once_and_never_pickled():
    """`ops/apply_memo` hashes the program at every op: a node keeps its hash (an untouched
    subtree is not walked again), but a pickle leaves it out (str hashes differ between
    processes), and equality never looks at it."""
    e = ir.Load("x", (ir.BinOp("+", ir.Var("a"), ir.Int(1)),))
    h = hash(e)
    assert e.__dict__["_hash"] == h and hash(e) == h
    copy = pickle.loads(pickle.dumps(e))
    assert "_hash" not in copy.__dict__ and copy == e and hash(copy) == h
    assert "_hash" not in repr(e)
