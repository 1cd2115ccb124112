"""polyhedral.memo.isl_set / isl_map: an isl object parsed from text once per process and
shared (isl objects are values: every operation returns a new one)."""
from __future__ import annotations

import islpy as isl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyhedral import memo


def test_same_text_is_parsed_once_and_is_the_same_set():
    text = "[N] -> { S[i] : 0 <= i < N and N >= 3 }"
    a, b = memo.isl_set(text), memo.isl_set(text)
    assert a is b and a.is_equal(isl.Set(text))


def test_a_shared_map_is_not_changed_by_operations_on_it():
    text = "[N] -> { S[i] -> T[i + 1] : 0 <= i < N }"
    m = memo.isl_map(text)
    m.intersect_domain(isl.Set("[N] -> { S[i] : i = 0 }"))  # returns a new map
    assert memo.isl_map(text).is_equal(isl.Map(text))


def test_set_and_map_of_one_text_are_kept_apart():
    assert isinstance(memo.isl_set("{ S[i] : 0 <= i < 4 }"), isl.Set)
    assert isinstance(memo.isl_map("{ S[i] -> T[i] : 0 <= i < 4 }"), isl.Map)


def test_bad_text_raises_every_time_and_is_not_cached():
    for _ in range(2):
        with pytest.raises(isl.Error):
            memo.isl_set("{ S[i] : i <<< }")
    assert ("set", "{ S[i] : i <<< }") not in memo._PARSED  # noqa: SLF001 - the cache itself


def test_the_cache_starts_afresh_past_its_limit(monkeypatch):
    monkeypatch.setattr(memo, "PARSED_LIMIT", 2)
    monkeypatch.setattr(memo, "_PARSED", {})
    for k in range(5):
        assert memo.isl_set(f"{{ S[i] : 0 <= i < {k + 1} }}").is_equal(isl.Set(f"{{ S[i] : 0 <= i < {k + 1} }}"))
        assert len(memo._PARSED) <= 2  # noqa: SLF001


# ---------------------------------------------------------------- texts that differ only in the model tag


def _fresh_caches(monkeypatch):
    monkeypatch.setattr(memo, "_PARSED", {})
    monkeypatch.setattr(memo, "_TEMPLATES", {})
    monkeypatch.setattr(memo, "PARSE_STATS", {"hits": 0, "misses": 0})


def _parses(monkeypatch) -> list:
    """Count isl's parses of map texts (the derived objects are renamed, not parsed)."""
    seen = []
    real = isl.Map

    class Counted:
        def __new__(cls, text):
            seen.append(text)
            return real(text)
    monkeypatch.setattr(isl, "Map", Counted)
    return seen


def test_a_text_under_another_model_tag_is_renamed_from_a_template_not_parsed(monkeypatch):
    _fresh_caches(monkeypatch)
    a_text = "[N] -> { A_S0_0[i] -> B_S1_1[i + 1] : 0 <= i < N - 1 }"
    b_text = a_text.replace("A_S0", "K_S0").replace("B_S1", "K_S1")
    fresh_b = str(isl.Map(b_text))
    parses = _parses(monkeypatch)
    a = memo.isl_map(a_text)
    b = memo.isl_map(b_text)
    assert parses == [a_text] and memo.PARSE_STATS == {"hits": 0, "misses": 2, "derived": 1}
    assert str(b) == fresh_b and b.get_tuple_name(isl.dim_type.in_) == "K_S0_0"
    assert a.get_tuple_name(isl.dim_type.out) == "B_S1_1"  # the object handed out keeps its names


def test_a_derived_object_prints_as_a_fresh_parse_whatever_was_done_with_the_first(monkeypatch):
    """isl simplifies objects in place when they are used: the template is never handed out, so
    what was done with the first object cannot change the representation of a derived one."""
    _fresh_caches(monkeypatch)
    a_text = "[N] -> { A_S0_0[i, j] -> T_x[i + j] : 0 <= i < N and 0 <= j < 4 and i + j >= 0 and i >= -3 }"
    b_text = a_text.replace("A_S0", "B_S0")
    a = memo.isl_map(a_text)
    a.coalesce().detect_equalities().remove_redundancies().range().compute_divs()
    b = memo.isl_map(b_text)
    assert memo.PARSE_STATS["derived"] == 1 and str(b) == str(isl.Map(b_text))


def test_sets_are_renamed_too_and_one_name_maps_to_one_name(monkeypatch):
    _fresh_caches(monkeypatch)
    memo.isl_set("[N] -> { A_S0_0[i] : 0 <= i < N }")
    assert str(memo.isl_set("[N] -> { B_S0_0[i] : 0 <= i < N }")) == str(isl.Set("[N] -> { B_S0_0[i] : 0 <= i < N }"))
    assert memo.PARSE_STATS["derived"] == 1
    same = "[N] -> { A_S0_0[i] -> A_S0_0[i + 1] : 0 <= i < N }"
    memo.isl_map(same)
    first, second = same.replace("-> A_S0", "-> B_S0"), same.replace("{ A_S0", "{ B_S0")
    # a name used twice is another shape than two names: the first is parsed, the second
    # (two names too) renamed from it
    for other in (first, second):
        assert str(memo.isl_map(other)) == str(isl.Map(other))
    assert memo.PARSE_STATS["derived"] == 2
    both = same.replace("A_S0", "K_S0")
    assert str(memo.isl_map(both)) == str(isl.Map(both)) and memo.PARSE_STATS["derived"] == 3


def test_pairwise_maps_between_statements_are_renamed_not_parsed(monkeypatch):
    """Regression (slow fuzz example s777/slow02: 4648 parses, 4511 of them distinct texts):
    the universe and program-order maps between two statements differ only in the statements'
    names, whatever their tags; one parse per shape, the rest renamed."""
    _fresh_caches(monkeypatch)
    names = ["A_S0_0", "A_y_acc0_load_1_2", "A_y_acc0_store_3_0", "X_A_S1_2", "S", "T_y"]
    parses = _parses(monkeypatch)
    for a in names:
        for b in names:
            for text in (f"[p0, p1] -> {{ {a}[a0] -> {b}[b0] }}",
                         f"[p0, p1] -> {{ {a}[a0, a1] -> {b}[b0, b1] : (((a0 = b0) and (a1 < b1))) and (a0 = b0) }}"):
                got = memo.isl_map(text)
                assert str(got) == str(real_map(text))
    assert len(parses) == 4  # per text shape: two names, or one name used twice


def real_map(text):
    return _MAP(text)  # isl's own parse, even where a test counts the parses


_MAP = isl.Map


_NAMES = st.builds(str.__add__, st.sampled_from("ASTKXa_"), st.text("ABSTxy_019", max_size=5))


@settings(max_examples=40, deadline=None)
@given(names=st.lists(_NAMES, min_size=3, max_size=3), a=st.integers(-3, 3), b=st.integers(1, 4),
       lo=st.integers(-2, 2), wrap=st.booleans(), two=st.booleans())
def test_a_renamed_template_prints_as_a_fresh_parse_of_its_text(names, a, b, lo, wrap, two):
    """Whatever the tuple names (one, two, or a name used twice), a text renamed from the
    template of its shape prints as isl's own parse of that text."""
    memo._PARSED.clear()  # noqa: SLF001 - the cache itself
    memo._TEMPLATES.clear()  # noqa: SLF001
    x, y, z = names
    body = f"{a} * i + j >= {lo} and 0 <= i < N and 0 <= j < {b}" + (f" or i = {b} + N" if wrap else "")
    texts = ([f"[N] -> {{ {x}[i, j] -> {y if two else x}[i + j, {a}] : {body} }}",
              f"[N] -> {{ {z}[i, j] -> {x if two else z}[i + j, {a}] : {body} }}"],
             [f"[N] -> {{ {x}[i, j] : {body} }}", f"[N] -> {{ {z}[i, j] : {body} }}"])
    for kind, (first, second) in zip(("map", "set"), texts):
        parse = real_map if kind == "map" else isl.Set
        get = memo.isl_map if kind == "map" else memo.isl_set
        get(first).coalesce().remove_redundancies()  # used: the template must not be
        assert str(get(second)) == str(parse(second))


def test_a_tagged_name_inside_a_nested_tuple_is_parsed(monkeypatch):
    _fresh_caches(monkeypatch)
    for text in ("{ [A_S0_0[i] -> T_x[i]] -> [i] : 0 <= i < 4 }",
                 "{ A_S0_0[i] -> [A_S0_0[j] -> T_x[i]] : 0 <= i < 4 and j = i + 1 }"):  # one top-level too
        memo.isl_map(text)
        assert str(memo.isl_map(text.replace("A_S0", "B_S0"))) == str(isl.Map(text.replace("A_S0", "B_S0")))
    assert "derived" not in memo.PARSE_STATS and not memo._TEMPLATES  # noqa: SLF001
