"""A batch checks each drawn example once (fuzz/campaign.py): hypothesis draws the same program
at the same sizes again within a batch (different choices, one example), and every batch draws
its simplest example first, the same in every batch. Regression: those repeats were checked
and counted as examples (seed 4711: 12 repeats within batches and 11 copies of the simplest
example in 240 examples, a tenth of the campaign's count, each a memo hit costing milliseconds:
the benchmark's examples per second counted them)."""
from __future__ import annotations

from verified_sched.core.printer import print_program
from verified_sched.fuzz import campaign
from verified_sched.fuzz.campaign import Config, run_batch

CFG = Config(ops=("split", "interchange", "unroll"), size_range=(1, 4), max_ops=2, seed=4711)


def _checked(monkeypatch, index: int, n: int) -> tuple:
    keys, check = [], campaign.check_example

    def spy(program, kernel, sizes, backend, timeout):
        keys.append(print_program(program) + repr(sizes))
        return check(program, kernel, sizes, backend, timeout)

    monkeypatch.setattr(campaign, "check_example", spy)
    return keys, run_batch(CFG, index, n)


def test_a_batch_checks_and_counts_each_example_once(monkeypatch):
    repeats = 0
    for index in range(3):
        keys, res = _checked(monkeypatch, index, 20)
        assert len(keys) == len(set(keys)) == res.stats.examples == 20
        repeats += res.stats.repeats
    assert repeats > 0  # the seed does draw repeats: the test is not vacuous


def test_the_simplest_example_is_checked_in_batch_zero_only(monkeypatch):
    first, _ = _checked(monkeypatch, 0, 3)
    later, res = _checked(monkeypatch, 1, 3)
    assert first[0] not in later and res.stats.repeats >= 1
    # hypothesis draws the simplest example first in every batch (what the rule relies on):
    keys, check = [], campaign.check_example
    monkeypatch.setattr(campaign, "check_example", check)
    monkeypatch.setattr(campaign, "reject", lambda: None)  # the old behaviour: everything checked

    def spy(program, kernel, sizes, backend, timeout):
        keys.append(print_program(program) + repr(sizes))
        return check(program, kernel, sizes, backend, timeout)

    monkeypatch.setattr(campaign, "check_example", spy)
    run_batch(CFG, 2, 1)
    assert keys == [first[0]]


def test_repeats_merge_into_the_campaign_stats():
    a, b = run_batch(CFG, 1, 10).stats, run_batch(CFG, 2, 10).stats
    total = a.repeats + b.repeats
    a.merge(b)
    assert a.repeats == total and a.to_json()["repeats_skipped"] == total


def test_a_batch_of_nothing_but_repeats_ends_with_no_example(monkeypatch):
    from types import SimpleNamespace

    from hypothesis import strategies as st

    seen = []
    check = campaign.check_example

    def spy(program, kernel, sizes, backend, timeout):
        seen.append(SimpleNamespace(program=program, kernel=kernel, sizes=sizes))
        return check(program, kernel, sizes, backend, timeout)

    monkeypatch.setattr(campaign, "check_example", spy)
    run_batch(CFG, 0, 1)
    monkeypatch.setattr(campaign, "fuzz_examples", lambda *a: st.just(seen[0]))  # one example only
    res = run_batch(CFG, 1, 5)
    assert res.stats.examples == 0 and res.stats.repeats >= 1 and len(seen) == 1
