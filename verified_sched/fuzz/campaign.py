"""A batch of fuzz examples on one worker, run as a hypothesis property (no database).

Each batch is `@given(fuzz_examples(...))` with its own seed: hypothesis draws the examples,
and when one yields a finding the property raises, so hypothesis shrinks it (smaller
programs, fewer ops, smaller sizes) where it was found, keeping only candidates that give a
finding of the same kind. The shrunk example comes back as DSL text (`reproducer.render`),
with the batch's statistics. A batch stops at its first finding; the driver starts more.

A batch checks each drawn example once: hypothesis draws the same program at the same sizes
again within a batch now and then (different choices, one example: 12 of seed 4711's 240), and
every batch draws its simplest example first (the same one in every batch: the first example of
batch 0). Such a repeat is rejected (`hypothesis.reject`): not checked, not counted, hypothesis
draws another in its place (`Stats.repeats` counts them). The rule reads the batch alone, so any
number of workers checks the same examples.

A batch given a `deadline` (a `time.time()` epoch: the campaign's budget) draws no example
after it: it returns what it has run, so a budgeted campaign ends on time without throwing
away the work in flight. A finding found before the deadline is still shrunk.
"""
from __future__ import annotations

import contextlib
import importlib
import os
import sys
import time
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, Verbosity, given, reject, seed as hseed, settings
from hypothesis.errors import Flaky, Unsatisfiable

from ..ops import apply_memo
from .check import Outcome, check_example
from .crashes import note_example
from .stats import Stats
from .strategies import OPS, SHAPES, fuzz_examples


@dataclass(frozen=True)
class Config:
    ops: tuple = OPS
    shapes: tuple = SHAPES
    size_range: tuple = (1, 12)
    max_ops: int = 4
    seed: int = 0
    backend: str | None = None  # MODULE:FACTORY
    timeout: float = 5.0  # verify timeout per example
    shrink_seconds: float = 60.0
    batch: int = 20  # examples per batch
    cwd: str = ""  # where MODULE of --backend is imported from
    flight_dir: str = ""  # where a pool worker notes the example it is checking (fuzz/crashes.py)
    clock: object = None  # the deadline's clock, time.time by default (tests: tests/support/fake_clock.py)


class _PastDeadline(BaseException):
    """Raised inside the property at the campaign's deadline: not an Exception, so hypothesis
    neither treats it as a failure nor shrinks it; it ends the run."""


class FindingRaised(Exception):
    """Raised inside the property so hypothesis shrinks (subclassed per kind below)."""


class VerifierFound(FindingRaised):
    pass


class CounterexampleFound(FindingRaised):
    pass


class BackendFound(FindingRaised):
    pass


class CrashFound(FindingRaised):
    pass


RAISE = {"verifier": VerifierFound, "counterexample": CounterexampleFound, "backend": BackendFound,
         "crash": CrashFound}


def load_backend(spec: str | None, cwd: str = ""):
    """FACTORY from `MODULE:FACTORY`, MODULE imported from `cwd` (or the current directory) or
    sys.path. Raises ValueError on a malformed spec, ImportError/AttributeError otherwise."""
    if spec is None:
        return None
    mod_name, _, attr = spec.partition(":")
    if not mod_name or not attr:
        raise ValueError(f"--backend {spec!r}: expected MODULE:FACTORY")
    for path in (cwd or os.getcwd(),):
        if path not in sys.path:
            sys.path.insert(0, path)
    module = importlib.import_module(mod_name)
    factory = getattr(module, attr)
    if not callable(factory):
        raise ValueError(f"--backend {spec!r}: {attr} is not callable")
    return factory


@dataclass
class BatchResult:
    stats: Stats
    findings: list = field(default_factory=list)  # dicts from reproducer.finding_record
    seconds: float = 0.0
    index: int = -1  # the batch's index (its seed)


def run_batch(cfg: Config, index: int, examples: int | None = None, deadline: float | None = None) -> BatchResult:
    """Run up to `examples` (default cfg.batch) examples with seed (cfg.seed, index), none
    drawn after `deadline` (a `time.time()` epoch, comparable across the machines of a
    cluster) when given."""
    from .reproducer import finding_record

    t0, cpu0 = time.perf_counter(), _cpu()
    backend = load_backend(cfg.backend, cfg.cwd)
    stats = Stats()
    state = {"shrinking": False, "deadline": 0.0, "failing": {}, "last": {}, "drawn": False, "checked": set()}

    def prop(ex):
        if deadline is not None and not state["shrinking"] and (cfg.clock or time.time)() >= deadline:
            raise _PastDeadline
        from ..core.printer import print_program

        text = print_program(ex.program)
        key = text + repr(ex.sizes)
        if not state["shrinking"]:
            first, state["drawn"] = not state["drawn"], True
            if key in state["checked"] or (first and index > 0):
                stats.repeats += 1
                reject()  # a repeat (above): not checked, not counted, hypothesis draws another
            state["checked"].add(key)
        if state["shrinking"] and time.perf_counter() > state["deadline"]:
            if key not in state["failing"]:
                return  # shrink budget spent: only examples known to fail still fail
            outcome = state["failing"][key][1]
        else:
            if cfg.flight_dir:  # should this example kill the process, the driver finds it here
                note_example(cfg.flight_dir, index, ex.sizes, text)
            t1, c1 = time.perf_counter(), _cpu()
            outcome: Outcome = check_example(ex.program, ex.kernel, ex.sizes, backend, cfg.timeout)
            outcome.times["total"] = time.perf_counter() - t1
            outcome.cpu = _cpu() - c1
            if not state["shrinking"]:
                stats.add(outcome)
        if outcome.finding is None:
            return
        if not state["shrinking"]:
            state["shrinking"], state["deadline"] = True, time.perf_counter() + cfg.shrink_seconds
        state["failing"][key] = (ex, outcome)
        state["last"][outcome.finding.kind] = (ex, outcome)
        raise RAISE[outcome.finding.kind](outcome.finding.message)

    _private_hypothesis_home()
    n = examples or cfg.batch
    test = settings(database=None, max_examples=n, deadline=None, derandomize=False, print_blob=False,
                    verbosity=Verbosity.quiet,
                    suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                    phases=(Phase.generate, Phase.shrink))(
        given(fuzz_examples(cfg.ops, cfg.shapes, cfg.size_range, 2, cfg.max_ops))(prop))
    test = hseed(_seed(cfg.seed, index))(test)
    findings = []
    # hypothesis stops shrinking after MAX_SHRINKING_SECONDS (internal, 300 s by default): the
    # campaign's shrink budget instead, with a margin for the final replay
    from hypothesis.internal.conjecture import engine

    saved = getattr(engine, "MAX_SHRINKING_SECONDS", None)
    if saved is not None:
        engine.MAX_SHRINKING_SECONDS = cfg.shrink_seconds
    try:
        with apply_memo.active(), _no_source_constants():  # the draw, verify and the checks apply the same ops
            test()
    except _PastDeadline:
        pass  # the campaign's time is up: the examples run so far are the batch
    except Unsatisfiable:
        pass  # every draw was a repeat (a tiny program space): the batch checked none
    except FindingRaised as e:
        kind = next(k for k, cls in RAISE.items() if isinstance(e, cls))
        ex, outcome = state["last"][kind]  # the last failing call is hypothesis's final replay
        findings.append(finding_record(ex, outcome, cfg))
    except (Flaky, ExceptionGroup):  # the final replay did not fail again: keep the last failure seen
        if state["last"]:
            ex, outcome = next(iter(state["last"].values()))
            findings.append(finding_record(ex, outcome, cfg, flaky=True))
    finally:
        if saved is not None:
            engine.MAX_SHRINKING_SECONDS = saved
    stats.times["draw"] += max(0.0, time.perf_counter() - t0 - stats.times.get("total", 0.0)) if not findings else 0.0
    stats.times["cpu"] += _cpu() - cpu0  # this worker's CPU time (the others' load aside)
    return BatchResult(stats, findings, time.perf_counter() - t0, index)


@contextlib.contextmanager
def _no_source_constants():
    """Hypothesis now and then draws a constant it found in the source of a loaded local
    module, and finds them by parsing every such module the first time it sees it loaded (in a
    fresh worker, seconds: the whole package, imported lazily as examples need its parts). The
    fuzzer's strategies draw from their own ranges, so a batch draws without them."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - another hypothesis layout: nothing to skip
        yield
        return
    saved = getattr(providers, "_get_local_constants", None)
    if saved is None or not hasattr(providers, "_local_constants"):
        yield
        return
    providers._get_local_constants = lambda: providers._local_constants
    try:
        yield
    finally:
        providers._get_local_constants = saved


def _cpu() -> float:
    """CPU seconds of this process and of the children it waited for (the C compiler)."""
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


def _seed(base: int, index: int) -> int:
    return (base * 1_000_003 + index * 7919 + 17) % (1 << 32)


_HOME = []


def _private_hypothesis_home() -> None:
    """Hypothesis writes a `.hypothesis/` cache into the current folder whatever the database
    setting: a campaign keeps it in a private temporary folder instead of the user's tree."""
    if _HOME:
        return
    import atexit
    import shutil
    import tempfile

    from hypothesis.configuration import set_hypothesis_home_dir

    home = tempfile.mkdtemp(prefix="vsched-fuzz-hypothesis-")
    set_hypothesis_home_dir(home)
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    _HOME.append(home)
