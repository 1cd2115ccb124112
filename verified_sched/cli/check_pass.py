"""`vsched check-pass` (registered by mlir/cli.add_subparser): the command line of check_pass.py."""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile


def add_subparser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "check-pass", help="prove an MLIR loop pass (affine/scf/memref) correct for all sizes on one input",
        description="Translation validation: import the function before and after an MLIR pass pipeline "
                    "(run by iree-opt, or given with --after) and prove `claim after == before` for all "
                    "sizes. Exit 0 proved, 1 refuted (the counterexample replays in C), 3 unknown.")
    p.add_argument("file", metavar="FILE.mlir")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--pass", dest="pipeline", metavar="PIPELINE",
                   help="passes as in --pass-pipeline, e.g. 'affine-loop-tile{tile-size=4},canonicalize'")
    g.add_argument("--after", metavar="AFTER.mlir", help="the transformed function, made by any tool")
    p.add_argument("--iree-opt", metavar="PATH", help="the mlir-opt-compatible tool (default: iree-opt)")
    p.add_argument("--each-pass", action="store_true",
                   help="check each pass of the pipeline separately; name the first that breaks the program")
    p.add_argument("--func", metavar="NAME", help="the function to check (default: the first)")
    p.add_argument("--profile", choices=("default", "finite", "approximate", "reproducible"))
    p.add_argument("--timeout", type=float, metavar="S", help="seconds per obligation (default 10)")
    p.add_argument("-o", "--output", metavar="OUT.vs", help="write the claim program here")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(fn=run_check_pass)
    return p


def _read(path: str) -> str:
    from verified_sched.core.errors import UsageError

    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None


def _write_program(args, text: str, label: str = "") -> str:
    if args.output:
        path = args.output if not label else f"{os.path.splitext(args.output)[0]}.{label}.vs"
    else:
        fd, path = tempfile.mkstemp(prefix="vsched-check-pass-", suffix=".vs")
        os.close(fd)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def run_check_pass(args) -> int:
    from verified_sched.core.errors import UsageError
    from verified_sched.verify.kernel_report import format_report

    from ..mlir.check_pass import check_pair, run_pipeline, split_dumps

    before = _read(args.file)
    if args.each_pass and not args.pipeline:
        raise UsageError("--each-pass needs --pass PIPELINE")
    steps = []  # (label, before text, after text, after name)
    if args.after:
        steps.append(("--after", before, _read(args.after), args.after))
    elif args.each_pass:
        r = run_pipeline(before, args.pipeline, args.iree_opt, ("--mlir-print-ir-after-all",))
        prev = before
        for title, text in split_dumps(r.stderr):
            steps.append((title, prev, text, f"<after {title.split(':')[0]}>"))
            prev = text
    else:
        r = run_pipeline(before, args.pipeline, args.iree_opt)
        steps.append((args.pipeline, before, r.stdout, f"<after {args.pipeline}>"))
    results, code = [], 0
    for k, (label, b, a, aname) in enumerate(steps):
        res = check_pair(b, a, args.file, aname, args.func, args.profile, args.timeout, args.iree_opt)
        path = None  # the program is kept where asked, or when a run must replay it
        if args.output or res.verdict != "proved":
            path = _write_program(args, res.program_text, str(k + 1) if len(steps) > 1 else "")
        results.append((label, res, path))
        if not args.json:
            print(f"{label}: {res.verdict.upper()}" + (f"  (program: {path})" if path else ""))
            for rep in res.reports:
                if rep.verdict != "legal" or res.verdict != "proved":
                    print("  " + format_report(rep).replace("\n", "\n  "))
            if res.note:
                print(f"  note: {res.note}")
        if res.verdict != "proved":
            code = res.exit_code
            if args.each_pass and res.verdict == "refuted":
                if not args.json:
                    print(f"first pass that breaks the program: {label}")
                break
            if args.each_pass:
                continue
    if args.json:
        json.dump({"file": args.file, "verdict": _overall(results), "steps": [
            {"pass": label, "verdict": res.verdict, "program": path, "note": res.note,
             "reports": [r.to_json() for r in res.reports]} for label, res, path in results]}, sys.stdout, indent=1)
        print()
    return _code(results)


def _overall(results) -> str:
    verdicts = [res.verdict for _, res, _ in results]
    if "refuted" in verdicts:
        return "refuted"
    return "proved" if all(v == "proved" for v in verdicts) else "unknown"


def _code(results) -> int:
    return {"refuted": 1, "proved": 0}.get(_overall(results), 3)
