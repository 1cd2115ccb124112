"""A campaign of a fixed example count shrinks its last batches (fuzz/driver.py `_next_size`),
so that at the end no worker idles behind another's long last batch; the sizes follow from
the count alone, so 1 and 2 workers run the same batches (the throughput benchmark's scaling
figure compares the same examples). Regression: 240 examples in 12 batches of 20 left one of
two workers idle for up to a whole batch (seed 11: a batch with a 2.5 s example submitted
11th, 2 workers 1.62x of 1)."""
from __future__ import annotations

from verified_sched.fuzz import driver
from verified_sched.fuzz.campaign import BatchResult, Config
from verified_sched.fuzz.driver import Campaign
from verified_sched.fuzz.stats import Stats


def _sizes(examples: int, batch: int, workers: int) -> list:
    camp, sizes, flight = Campaign(Config(batch=batch), "/unused", examples, None, workers), [], 0
    while (n := camp._next_size(flight)) > 0:
        sizes.append(n)
        flight += n
    return sizes


def test_last_batches_shrink_to_a_quarter_of_what_is_left():
    sizes = _sizes(240, 20, 2)
    assert sum(sizes) == 240 and max(sizes) == 20
    assert sizes[:9] == [20] * 9 and sizes[-8:] == [15, 12, 9, 6, 5, 5, 5, 3]
    assert all(a >= b for a, b in zip(sizes, sizes[1:]))


def test_batch_sizes_do_not_depend_on_the_workers():
    for examples, batch in ((240, 20), (7, 20), (1000, 30), (41, 4)):
        one = _sizes(examples, batch, 1)
        assert sum(one) == examples and one == _sizes(examples, batch, 2) == _sizes(examples, batch, 8)


def test_a_budgeted_campaign_keeps_whole_batches():
    camp = Campaign(Config(batch=20), "/unused", None, 30.0, 2)
    assert camp._next_size(0) == camp._next_size(400) == 20


def test_a_campaign_in_this_process_runs_the_tapered_batches(tmp_path, monkeypatch):
    ran = []

    def fake_batch(cfg, index, n, deadline):
        ran.append((index, n))
        st = Stats()
        st.examples = n
        return BatchResult(st, [], 0.0, index)

    monkeypatch.setattr(driver, "run_batch", fake_batch)
    camp = Campaign(Config(batch=20), tmp_path, 240, None, 1).run()
    assert camp.stats.examples == 240 and [n for _, n in ran] == _sizes(240, 20, 1)
    assert [i for i, _ in ran] == list(range(len(ran)))  # batch k: seed (seed, k), as before
