"""An example that kills a worker process is found again in a fresh process and written as a
`crash` reproducer (fuzz/crashes.py); one that does not die again gives no reproducer."""
from __future__ import annotations

import textwrap

from verified_sched.dsl import parse_text
from verified_sched.core.printer import print_program
from support.fake_clock import ExampleClock
from verified_sched.fuzz.campaign import Config
from verified_sched.fuzz.crashes import find_crashes, flight_path, note_example
from verified_sched.fuzz.driver import Campaign
from verified_sched.fuzz.reproducer import read_sizes

PROGRAM = """
params N where N >= 1
tensor a[N] f32
tensor b[N] f32
kernel k {
  for i in 0 .. N {
    b[i] = a[i] * 2.0
  }
}
schedule k {
  split i by 2 -> io, ii
}
"""

CRASHY = textwrap.dedent('''
    import os, signal

    def factory(program):
        def run(kernel_name, sizes, arrays):
            os.kill(os.getpid(), signal.SIGSEGV)  # a backend that crashes its process
        return run
''')


def test_a_noted_example_reads_back_with_its_sizes(tmp_path):
    note_example(str(tmp_path), 3, [{"N": 5}, {"N": 2}], print_program(parse_text(PROGRAM)))
    text = flight_path(str(tmp_path), 3).read_text()
    assert read_sizes(text) == [{"N": 5}, {"N": 2}] and "split i by 2" in text


def test_an_example_that_does_not_die_again_is_no_finding(tmp_path):
    note_example(str(tmp_path), 0, [{"N": 5}], print_program(parse_text(PROGRAM)))
    assert find_crashes(str(tmp_path), [0, 1], Config(cwd=str(tmp_path))) == []  # batch 1 never started


def test_a_backend_that_kills_the_worker_gives_a_crash_reproducer(tmp_path):
    (tmp_path / "crashy_backend.py").write_text(CRASHY)
    cfg = Config(ops=("split",), shapes=("matmul",), size_range=(1, 4), max_ops=1, seed=5, batch=5,
                 backend="crashy_backend:factory", cwd=str(tmp_path), shrink_seconds=1.0, clock=ExampleClock())
    camp = Campaign(cfg, tmp_path / "out", None, 4.0, 2)
    camp.clock = lambda: float(camp.batches)  # fake clocks (issue 23): the budget is 4 batches, not 25 s
    camp.run()
    assert camp.crashes, "the backend kills every worker that runs a legal example"
    crash = [f for f in camp.findings if f["kind"] == "crash"]
    assert len(crash) == 1 and "SIGSEGV" in crash[0]["message"]  # reported once, however often it happened
    text = open(crash[0]["path"]).read()
    assert "# reproduce: vsched fuzz --reproduce out/crash-" in text  # from where the campaign started and "--backend crashy_backend:factory" in text
    assert read_sizes(text) and "schedule " in text
