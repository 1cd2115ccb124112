"""A progress bar on stderr for long runs (the interpreter): rich, with the fraction done,
only when stderr is a terminal; silent otherwise, and where another live display (the CLI's
spinner) cannot be nested."""
from __future__ import annotations

import contextlib
import os
import sys
import time

MIN_SECONDS = 0.5  # a run shorter than this never shows a bar (VSCHED_PROGRESS_AFTER=S overrides)
_console = []


def console():
    """The one rich console on stderr shared by every live display of the process (the CLI's
    spinner, this bar), so a bar inside the spinner nests (rich >= 14) instead of fighting it."""
    if not _console:
        from rich.console import Console
        _console.append(Console(stderr=True))
    return _console[0]


@contextlib.contextmanager
def bar(description: str, total: int):
    """Yields `advance(n=1)`; draws a transient bar once the run has lasted MIN_SECONDS."""
    if not sys.stderr.isatty() or total <= 1:
        yield lambda n=1: None
        return
    from rich.errors import LiveError
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

    state = {"done": 0, "progress": None, "task": None, "t0": time.perf_counter()}

    def advance(n=1):
        state["done"] += n
        p = state["progress"]
        if p is None:
            if time.perf_counter() - state["t0"] < float(os.environ.get("VSCHED_PROGRESS_AFTER", MIN_SECONDS)):
                return
            p = Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                         TimeRemainingColumn(), console=console(), transient=True)
            try:
                p.start()
            except LiveError:  # another live display is active: no bar
                state["progress"] = False
                return
            state["progress"], state["task"] = p, p.add_task(description, total=total)
        if p:
            p.update(state["task"], completed=min(state["done"], total))

    try:
        yield advance
    finally:
        if state["progress"]:
            state["progress"].stop()
