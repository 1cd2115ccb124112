"""`vsched explain FILE [--op K] [--kernel NAME] [-o OUT.html]`: verify one schedule op (or a
whole kernel, or the whole file) and draw its refutations as an HTML page (html.py).

Exit codes: 0 legal, 1 refuted (the page is written), 2 input or usage errors, 3 unknown
(nothing refuted, something not decided). Without `-o` the page goes to stdout and the
verdict line to stderr; with `-o` the verdict line goes to stdout.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core import ir
from ..core.budget import DEFAULT_TIMEOUT
from ..core.errors import ParseError, UsageError


def add_subparser(subparsers) -> argparse.ArgumentParser:
    """Register `vsched explain` on the CLI's subparsers (cli.build_parser); the CLI
    dispatches with `args.fn(args)`."""
    p = subparsers.add_parser(
        "explain", help="verify one op (or kernel) and draw its counterexamples as HTML",
        description="Verify schedule op K of a kernel (without --op: the whole kernel, or every kernel and "
                    "claim of the file) and write an HTML page that draws each refutation: the iteration "
                    "spaces at the counterexample's sizes with the conflicting instances, their order before "
                    "and after the op and the cells they touch, next to the source. Exit 0 legal, 1 refuted, "
                    "2 input error, 3 unknown. `vsched explain KIND` (an obligation kind, such as dependence) "
                    "says in one line what that kind proves.")
    p.add_argument("file", metavar="FILE|KIND",
                   help="a .vs file; or an obligation kind (in_bounds, dependence, ...): say what it proves")
    p.add_argument("--op", type=_positive, metavar="K", help="the 1-based index of the op in the schedule")
    p.add_argument("--kernel", metavar="NAME", help="the kernel (needed when several have schedules)")
    p.add_argument("-o", "--output", metavar="OUT.html", help="write the page here (default: stdout)")
    p.add_argument("--profile", choices=ir.PROFILES, help="override the file's profile")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S", help="seconds per kernel")
    p.set_defaults(fn=run)
    return p


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ParseError(f"cannot read {path}: {e}") from None


def _kernel(program: ir.Program, args) -> str | None:
    names = [k.name for k in program.kernels]
    if args.kernel is not None:
        if args.kernel not in names:
            raise UsageError(f"no kernel named {args.kernel!r} (kernels: {', '.join(names) or 'none'})")
        return args.kernel
    if args.op is None:
        return None
    scheduled = [s.kernel for s in program.schedules]
    if len(scheduled) == 1:
        return scheduled[0]
    if not scheduled:
        raise UsageError(f"{args.file} has no schedule, so no op {args.op}")
    raise UsageError(f"several kernels have schedules ({', '.join(scheduled)}); choose one with --kernel")


def obligations_for(program: ir.Program, args, path: str) -> tuple:
    """(reports, what): the reports `explain` draws, restricted to op K when given."""
    from ..core.file_report import KernelReport
    from ..verify.driver import verify_kernel, verify_program

    kernel = _kernel(program, args)
    if kernel is None:
        return verify_program(program, args.profile, args.timeout, path), "every kernel and claim"
    profile = args.profile or program.profile or "default"
    report = verify_kernel(program, kernel, profile, args.timeout, path)
    if args.op is None:
        return [report], f"kernel {kernel}"
    sched = program.schedule_for(kernel)
    count = len(sched.ops) if sched else 0
    if args.op > count:
        raise UsageError(f"kernel {kernel} has {count} schedule op(s); there is no op {args.op}")
    mine = [o for o in report.obligations if o.op_index == args.op]
    if not mine:  # an earlier op does not apply: that refutation is why op K is not checked
        mine = [o for o in report.obligations if o.kind == "precondition" and o.status == "refuted"]
    what = f"op [{args.op}] {sched.ops[args.op - 1].text()} of kernel {kernel}"
    return [KernelReport(path, kernel, mine)], what


def run(args) -> int:
    from . import legend

    if args.file in legend.KINDS and not Path(args.file).exists():  # `vsched explain dependence`
        print(legend.explain_kind(args.file))
        return 0
    from ..dsl import parse_text
    from ..core.file_report import FileReport
    from .html import render_html

    text = _read(args.file)
    program = parse_text(text, args.file)
    reports, what = obligations_for(program, args, args.file)
    report = FileReport(args.file, reports)
    verdict = report.verdict
    obls = report.obligations
    refuted = sum(o.status == "refuted" for o in obls)
    undecided = sum(o.status == "unknown" for o in obls)
    line = {"legal": f"{args.file}: {what}: legal (every obligation proved)",
            "illegal": f"{args.file}: {what}: illegal ({refuted} refuted obligation(s))",
            "unknown": f"{args.file}: {what}: unknown ({undecided} obligation(s) not decided)"}[verdict]
    page = render_html([(args.file, text, report)])
    if args.output:
        Path(args.output).write_text(page, encoding="utf-8")
        print(line + f"; wrote {args.output}")
    elif verdict == "legal":
        print(line)
    else:
        sys.stdout.write(page)
        print(line, file=sys.stderr)
    return {"legal": 0, "illegal": 1, "unknown": 3}[verdict]


__all__ = ["add_subparser", "run", "obligations_for"]
