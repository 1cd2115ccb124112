"""`vsched verify FILE|DIR...`: expand the inputs, read the proof cache, verify the rest in
parallel, print each file's result in input order, then the summary (README "CI gate").

Exit code: the worst file's (internal error 4 > input error 2 > illegal 1 > unknown 3 >
legal 0), so a CI step fails on anything but all-legal and the code says the worst reason.
"""
from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path

from ..core.budget import DEFAULT_TIMEOUT
from ..core.target_limits import SHARED_LIMIT
from . import timings
from .atomic import atomic_output, write_atomic
from .cache import ProofCache, proof_key, source_key
from ..report.formats import render, summary
from ..report.results import FileResult, node_locs, parse_source, program_sites, verify_source, worst_exit

FORMATS = ("text", "json", "sarif", "github")


def add_arguments(p) -> None:
    """The gate's options of the `verify` subparser."""
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="text (default), json (one object per file), sarif (SARIF 2.1.0), "
                        "github (GitHub Actions annotations)")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write the report to OUT instead of stdout (whole: an interrupted run leaves OUT as it was)")
    p.add_argument("-j", "--jobs", type=_positive, default=None, metavar="N",
                   help="verify N files at once in parallel processes (default: the number of cores)")
    p.add_argument("--unordered", action="store_true",
                   help="print each file's report as soon as it is done (default: in input order, each as "
                        "soon as it and every file before it are done)")
    p.add_argument("--no-cache", action="store_true", help="prove everything again; read and write no cache")
    p.add_argument("--html", metavar="FILE", help="an HTML report with the counterexamples drawn")


def _positive(text: str) -> int:
    import argparse

    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def expand_inputs(paths) -> list:
    """The files to verify, in order: a directory becomes its `*.vs` files, recursively and
    sorted; a directory without any becomes an input-error FileResult in its place.
    Duplicates are verified once."""
    items, seen = [], set()
    for arg in paths:
        p = Path(arg)
        found = sorted(str(f) for f in p.rglob("*.vs") if f.is_file()) if p.is_dir() else [arg]
        if not found:
            items.append(FileResult(arg, "input", error=f"vsched: error: {arg}: no .vs files in this directory"))
        for f in found:
            if f not in seen:
                seen.add(f)
                items.append(f)
    return items


def read_source(path: str):
    """(text, None) or (None, 'FILE:1:1: cannot read ...')."""
    from ..dsl.limits import read_source as read_checked  # a regular file within the size limit
    from ..core.errors import VschedError

    try:
        return read_checked(path), None
    except VschedError as err:
        return None, str(err)


class _Spinner:
    """A status line on stderr while files are verified, only on a terminal. It is taken down
    while a report is printed (and never redirects stdout, which may be a file)."""

    def __init__(self, total: int):
        self.total, self.done, self.live, self.on = total, 0, None, False

    def start(self) -> None:
        self.on = bool(self.total) and sys.stderr.isatty()
        self.show()

    def show(self) -> None:
        if not self.on or self.live is not None or self.done >= self.total:
            return
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner

        text = f"verifying: {self.done} of {self.total} files done"
        self.live = Live(Spinner("dots", text=text), console=Console(stderr=True), transient=True,
                         redirect_stdout=False, redirect_stderr=False)
        self.live.start()

    def hide(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None

    def step(self) -> None:
        self.done += 1
        self.hide()


def _html_renderer():
    try:
        from ..report.html import render_html
    except ImportError:
        return None
    return render_html


def prepare(path: str, cache: ProofCache, profile, timeout, shared_limit) -> tuple:
    """(FileResult, key): a finished result (input error or cache hit) or a pending one.
    Without the cache the file is parsed only by the worker that verifies it."""
    text, err = read_source(path)
    if err is not None:
        return FileResult(path, "input", error=err, error_loc=(1, 1)), None
    if not cache.enabled:
        return FileResult(path, "pending", text=text), None
    # the same text at the same path as a run before: its proof key and positions are known,
    # so a hit parses nothing (and imports neither the parser nor any op)
    skey = source_key(path, text, profile, timeout, shared_limit)
    seen = cache.parsed(skey)
    entry = cache.get(seen["key"]) if seen is not None else None
    if entry is not None:
        return FileResult(path, entry["status"], text=text, reports=entry["reports"], cached=True,
                          nodes=seen["nodes"], sites=seen["sites"]), seen["key"]
    program, perr = parse_source(path, text)
    if perr is not None:
        return FileResult(path, "input", text=text, error=perr[0], error_loc=perr[1]), None
    result = FileResult(path, "pending", text=text, nodes=node_locs(program), sites=program_sites(program))
    key = proof_key(program, profile, timeout, shared_limit)
    if seen is None or seen["key"] != key:
        cache.put_parsed(skey, key, result.nodes, result.sites)
        entry = cache.get(key)
    if entry is not None:
        result.status, result.reports, result.cached = entry["status"], entry["reports"], True
    return result, key


def finish(result: FileResult, payload: dict, key, cache: ProofCache) -> FileResult:
    """Fill a pending result from a worker's payload; store it in the cache when decided."""
    result.status = payload["status"]
    if result.verified:
        result.reports, result.seconds = payload["reports"], payload["seconds"]
        result.nodes, result.sites = payload["nodes"], payload["sites"]
        if key:
            cache.put(key, result.status, result.reports, result.seconds)
    else:
        result.error, result.error_loc = payload["error"], payload.get("error_loc")
    return result


def _verify_here(jobs, profile, timeout, shared_limit, workers, started=None, costs=None, ordered=True):
    """verify_many's answer for at most one job, in this process (no multiprocessing import)."""
    if started:
        started()
    for i, (path, text) in enumerate(jobs):
        yield i, verify_source(path, text, profile, timeout, shared_limit)


def verify_files(paths, profile=None, timeout=DEFAULT_TIMEOUT, shared_limit=SHARED_LIMIT, jobs=None, use_cache=True,
                 on_result=None, unordered: bool = False) -> list:
    """Verify files and directories; FileResults in input order. `on_result(result)` is
    called for each, in order, as soon as it and all before it are done (`unordered`: as
    soon as it is done). On an interrupt (KeyboardInterrupt) every file finished by then that
    was not yet passed to `on_result` is, in input order, and the interrupt goes on."""
    cache = ProofCache(enabled=use_cache)
    prepared = [prepare(x, cache, profile, timeout, shared_limit) if isinstance(x, str) else (x, None)
                for x in expand_inputs(paths)]
    pending = [n for n, (r, _) in enumerate(prepared) if r.status == "pending"]
    spinner = _Spinner(len(pending))
    emitted = [False] * len(prepared)

    def emit(n):
        if not emitted[n]:
            emitted[n] = True
            if on_result:
                on_result(prepared[n][0])

    def flush(upto_pending=True):
        """Emit the finished results: in order up to the first pending one, or all of them."""
        for n, (r, _) in enumerate(prepared):
            if r.status == "pending":
                if upto_pending:
                    return
                continue
            emit(n)

    flush(upto_pending=not unordered)
    work = [(prepared[n][0].path, prepared[n][0].text) for n in pending]
    if len(work) > 1:  # multiprocessing is imported only when there is something to share
        from .parallel import default_workers, verify_many
    else:
        default_workers, verify_many = (lambda: 1), _verify_here
    workers = jobs or default_workers()
    costs = timings.estimates([text for _, text in work]) if workers > 1 and len(work) > 1 else None
    try:
        for i, payload in verify_many(work, profile, timeout, shared_limit, workers, started=spinner.start,
                                      costs=costs, ordered=False):
            result, key = prepared[pending[i]]
            finish(result, payload, key, cache)
            spinner.step()  # counted as it finishes, whatever the order of the output
            if unordered:
                emit(pending[i])
            else:
                flush()
            spinner.show()
    except KeyboardInterrupt:
        spinner.hide()
        flush(upto_pending=False)  # what is finished is reported before the interrupt goes on
        raise
    finally:
        spinner.hide()
    flush()
    timed = [(r.text, r.seconds) for r, _ in prepared if r.verified and not r.cached]
    if len(timed) > 1:  # a run of one file has nothing to order (the pytest plugin's, say)
        timings.record(timed)
    return [r for r, _ in prepared]


def run_verify(args) -> int:
    """The `verify` command."""
    fmt = args.format or ("json" if args.json else "text")
    if args.json and fmt != "json":
        print(f"vsched: error: --json and --format {fmt} disagree", file=sys.stderr)
        return 2
    html = None
    if args.html:
        html = _html_renderer()
        if html is None:
            print("vsched: error: --html is not available in this installation", file=sys.stderr)
            return 2
    with contextlib.ExitStack() as stack:  # -o: a temporary file, renamed when the run completes
        out = stack.enter_context(atomic_output(args.output)) if args.output else None
        t0 = time.perf_counter()

        first = [True]  # the legend comes with the first text report of the run

        def emit(result):
            if not result.verified:
                print(result.error, file=sys.stderr)
            if fmt != "sarif":
                text = render(result, fmt, first[0], args.timeout)
                if text:
                    first[0] = False
                    print(text, file=out or sys.stdout, flush=True)

        from ..core import memlimit  # --max-memory: workers inherit the address-space cap

        if getattr(args, "max_memory", None):  # the solvers' native libraries (isl, z3) load before the cap
            from ..verify import driver as verify  # noqa: F401
        with memlimit.capped(getattr(args, "max_memory", None), "verifying"):
            results = verify_files(args.files, args.profile, args.timeout, args.shared_limit, args.jobs,
                                   not args.no_cache, emit, unordered=args.unordered)
        if fmt == "sarif":
            from ..report.sarif import sarif_document

            print(json.dumps(sarif_document(results), indent=1), file=out or sys.stdout)
        if html is not None:
            page = html([(r.path, r.text, r.report) for r in results if r.verified])
            write_atomic(args.html, page, "--html")
        if len(results) > 1 or any(Path(a).is_dir() for a in args.files):
            print(summary(results, time.perf_counter() - t0), file=sys.stderr)
    return worst_exit(results)
