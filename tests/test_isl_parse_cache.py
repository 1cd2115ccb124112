"""polyhedral.memo.isl_set / isl_map: an isl object parsed from text once per process and
shared (isl objects are values: every operation returns a new one)."""
from __future__ import annotations

import islpy as isl
import pytest

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
