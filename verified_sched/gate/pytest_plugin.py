"""pytest plugin (entry point `pytest11`, name `vsched`): schedules as test items.

`pytest --vsched PATH` collects every `*.vs` file under PATH (a file or a directory; the
option may repeat) with one item per claim (`FILE::claim:A==B`) and per kernel
(`FILE::kernel:K`). Without other paths on the command line only the --vsched paths are
collected. An item passes when its verdict matches the file's `# expect:` line:

- no line, or `# expect: legal`: the claim or kernel is legal;
- `# expect: illegal K1|K2`: the item is decided (not unknown); if it is refuted, one of its
  refuted kinds is listed; and some item of the file is refuted with a listed kind. This is
  the verdict corpus's reading (tests/cases/README.md: any one listed kind refuted satisfies
  the line; other kinds may be refuted beside it).

A failing item shows the expectation and the item's verification report. `--vsched-run`
also runs the oracle (`vsched run`: scheduled against unscheduled kernel, the two kernels
of a claim, or C against the interpreter for a kernel without a schedule) at the file's
example sizes, for each item whose verdict is legal. Results go through the proof cache
(`--vsched-no-cache` to bypass); each file is verified once per process, so the plugin
works with pytest-xdist's `-n`. Without `--vsched` the plugin does nothing.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..core.budget import DEFAULT_TIMEOUT

EXPECT = re.compile(r"#\s*expect:\s*(legal|illegal)\s*(\S*)")
_ROOTS = pytest.StashKey[list]()
_VERIFIED = pytest.StashKey[dict]()  # (path, options) -> FileResult, per session and process


def pytest_addoption(parser) -> None:
    group = parser.getgroup("vsched", "verified_sched schedules (.vs files) as tests")
    group.addoption("--vsched", action="append", default=[], metavar="PATH",
                    help="collect the .vs files under PATH: one item per kernel and claim")
    group.addoption("--vsched-run", action="store_true",
                    help="also run the oracle (vsched run) at example sizes for legal items")
    group.addoption("--vsched-no-cache", action="store_true", help="do not use the proof cache")
    group.addoption("--vsched-timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                    help="verification seconds per kernel and claim (default 10)")


def pytest_configure(config) -> None:
    paths = config.getoption("vsched", default=None)
    if not paths:
        return
    base = Path(config.invocation_params.dir)
    config.stash[_ROOTS] = [(base / p).resolve() for p in paths]
    config.stash[_VERIFIED] = {}
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = list(paths)  # not the ini's testpaths: just the schedules
    else:
        config.args += [p for p in paths if p not in config.args]


def pytest_collect_file(file_path: Path, parent):
    roots = parent.config.stash.get(_ROOTS, None)
    if not roots or file_path.suffix != ".vs":
        return None
    path = file_path.resolve()
    if any(path == r or r in path.parents for r in roots):
        return VschedFile.from_parent(parent, path=file_path)
    return None


def expectation(text: str):
    """(verdict, kinds) of the file's `# expect:` line; ("legal", []) when there is none."""
    m = EXPECT.search(text)
    if m is None:
        return "legal", []
    return m.group(1), [k for k in m.group(2).split("|") if k]


class VschedFailure(Exception):
    """An item whose verdict does not match the expectation (the message is the report)."""


class VschedFile(pytest.File):
    def collect(self):
        from ..report.results import parse_source
        from .runner import read_source

        text, unreadable = read_source(str(self.path))
        program, err = parse_source(str(self.path), text) if text is not None else (None, (unreadable, None))
        if err is not None:
            yield VschedItem.from_parent(self, name="parse", unit=None, line=(err[1] or (1, 1))[0])
            return
        for c in program.claims:
            yield VschedItem.from_parent(self, name=f"claim:{c.a}=={c.b}", unit=("claim", c),
                                         line=c.loc.line if c.loc else 1)
        for k in program.kernels:
            yield VschedItem.from_parent(self, name=f"kernel:{k.name}", unit=("kernel", k),
                                         line=k.loc.line if k.loc else 1)

    def result(self):
        """This file's FileResult, verified once per process (through the proof cache)."""
        from .runner import verify_files

        opts = self.config.option
        key = (str(self.path), opts.vsched_timeout, opts.vsched_no_cache)
        done = self.config.stash[_VERIFIED]
        if key not in done:
            done[key] = verify_files([str(self.path)], timeout=opts.vsched_timeout, jobs=1,
                                     use_cache=not opts.vsched_no_cache)[0]
        return done[key]


class VschedItem(pytest.Item):
    def __init__(self, *, unit, line: int, **kw):
        super().__init__(**kw)
        self.unit = unit
        self.line = line

    def _report_name(self) -> str:
        kind, node = self.unit
        return f"{node.a} == {node.b}" if kind == "claim" else node.name

    def runtest(self) -> None:
        result = self.parent.result()
        if not result.verified:
            raise VschedFailure(result.error)
        want, kinds = expectation(result.text)
        file_report = result.report
        mine = next((r for r in file_report.kernels if r.kernel == self._report_name()), None)
        if mine is None:
            raise VschedFailure(f"no verification report for {self.name}")
        from ..verify.kernel_report import format_report

        report = format_report(mine)
        got = mine.verdict
        refuted = {o.kind for o in mine.obligations if o.status == "refuted"}
        if want == "legal" and got != "legal":
            raise VschedFailure(f"expected legal, got {got}\n\n{report}")
        if want == "illegal":
            listed = " or ".join(kinds) or "any kind"
            if got == "unknown":
                raise VschedFailure(f"expected illegal ({listed}), got unknown\n\n{report}")
            if got == "illegal" and kinds and not refuted & set(kinds):
                raise VschedFailure(f"expected illegal {listed}, but refuted {', '.join(sorted(refuted))} "
                                    f"(none listed)\n\n{report}")
            file_refuted = {o.kind for o in file_report.obligations if o.status == "refuted"}
            if not (file_refuted & set(kinds) if kinds else file_refuted):
                raise VschedFailure(f"the file expects illegal {listed}, but nothing in it was refuted "
                                    f"with {listed}\n\n{report}")
        if got == "legal" and self.config.option.vsched_run:
            self._run_oracle(result)

    def _run_oracle(self, result) -> None:
        """`vsched run` for this claim or kernel at the file's example sizes."""
        import contextlib
        import dataclasses
        import io
        import tempfile

        from ..cli import main
        from ..dsl import parse_text
        from ..core.printer import print_program

        kind, node = self.unit
        out = io.StringIO()
        with contextlib.ExitStack() as stack:
            if kind == "kernel":
                argv = ["run", str(self.path), "--kernel", node.name]
            else:  # a program with only this claim and no schedules: `vsched run` compares the claim
                program = parse_text(result.text, str(self.path))
                alone = dataclasses.replace(program, schedules=(), claims=(node,))
                folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="vsched-claim-"))
                tmp = Path(folder) / self.path.name
                tmp.write_text(print_program(alone), encoding="utf-8")
                argv = ["run", str(tmp)]
            stack.enter_context(contextlib.redirect_stdout(out))
            stack.enter_context(contextlib.redirect_stderr(out))
            rc = main(argv)
        if rc != 0:
            raise VschedFailure(f"`vsched {' '.join(argv)}` exited {rc}:\n{out.getvalue()}")

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, VschedFailure):
            return f"{self.path}::{self.name}: {excinfo.value}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, self.line - 1, f"vsched {self.name}"
