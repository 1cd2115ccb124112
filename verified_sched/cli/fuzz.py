"""`vsched fuzz`: a property-based fuzzing campaign of the verifier (and of another backend).

Exit codes: 0 nothing found, 1 a finding (verifier, counterexample, backend or crash), 2 usage
errors. `--reproduce FILE` re-checks one reproducer (exit 1 when it still shows a finding).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..core.errors import UsageError


def add_subparser(sub) -> None:
    from ..ops.fuzz_names import SHAPES

    p = sub.add_parser("fuzz", help="property-based fuzzing of rewrites (and of another backend)")
    p.add_argument("--ops", metavar="split,stage,...", help="ops to draw, comma-separated (default: every op of the DSL)")
    p.add_argument("--shapes", metavar="matmul,gpu,...", help=f"kernel families (default all: {','.join(SHAPES)})")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--budget", type=float, metavar="SECONDS", help="run for this long (default 60)")
    g.add_argument("--examples", type=int, metavar="N", help="run this many examples")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    w = p.add_mutually_exclusive_group()
    w.add_argument("--workers", type=int, metavar="N", help="local worker processes (default: all cores)")
    w.add_argument("--dask", metavar="ADDRESS", help="a dask.distributed scheduler, e.g. tcp://host:8786")
    p.add_argument("-o", "--output", default="vsched-fuzz-findings", metavar="DIR", help="where reproducers go")
    p.add_argument("--backend", metavar="MODULE:FACTORY", help="FACTORY(program) -> runner(kernel, sizes, arrays)")
    p.add_argument("--sizes", default="1..12", metavar="LO..HI", help="range of the sizes run (default 1..12)")
    p.add_argument("--max-ops", type=int, default=4, metavar="K", help="ops per schedule (default 4)")
    p.add_argument("--batch", type=int, default=20, metavar="N", help="examples per batch (default 20)")
    p.add_argument("--timeout", type=float, default=5.0, metavar="S", help="verify timeout per example")
    p.add_argument("--shrink-seconds", type=float, default=60.0, metavar="S", help="shrinking budget per finding")
    p.add_argument("--reproduce", metavar="FILE", help="re-check one reproducer instead of fuzzing")
    p.add_argument("--json", action="store_true", help="print one JSON object at the end")
    p.add_argument("--mlir-passes", metavar="PASS,...|all",
                   help="fuzz MLIR's loop passes (iree-opt) by translation validation (fuzz/mlir_passes.py)")
    p.set_defaults(fn=cmd_fuzz)


def _names(text, known, what) -> tuple:
    if text is None:
        return tuple(known)
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise UsageError(f"unknown {what} {', '.join(bad) or '(none given)'} (known: {', '.join(known)})")
    return names


def _range(text: str) -> tuple:
    lo, sep, hi = text.partition("..")
    if not sep or not lo.strip().isdigit() or not hi.strip().isdigit() or int(lo) > int(hi) or int(lo) < 0:
        raise UsageError(f"--sizes {text!r}: expected LO..HI with 0 <= LO <= HI")
    return int(lo), int(hi)


def config_from_args(args):
    try:
        import hypothesis  # noqa: F401 - only checking that it is installed
    except ImportError:
        raise UsageError("'vsched fuzz' needs hypothesis: pip install 'verified_sched[fuzz]'") from None
    from ..fuzz.campaign import Config, load_backend
    from ..ops.fuzz_names import SHAPES

    if args.examples is not None and args.examples < 1:
        raise UsageError("--examples must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.budget is not None and args.budget <= 0:
        raise UsageError("--budget must be positive")
    from ..ops.registry import OP_NAMES  # imports every op module: not at parser-building time

    cfg = Config(ops=_names(args.ops, tuple(OP_NAMES), "op(s)"), shapes=_names(args.shapes, SHAPES, "shape(s)"),
                 size_range=_range(args.sizes), max_ops=max(1, args.max_ops), seed=args.seed, backend=args.backend,
                 timeout=args.timeout, shrink_seconds=args.shrink_seconds, batch=max(1, args.batch), cwd=os.getcwd())
    try:
        load_backend(cfg.backend, cfg.cwd)  # fail early, here, on a bad --backend
    except (ValueError, ImportError, AttributeError) as e:
        raise UsageError(f"--backend {args.backend}: {e}") from None
    return cfg


def cmd_fuzz(args) -> int:
    from ..fuzz.driver import Campaign, default_workers

    if getattr(args, "mlir_passes", None):  # MLIR's passes under check-pass (fuzz/mlir_passes.py)
        from ..fuzz.mlir_passes import cmd_mlir_passes
        return cmd_mlir_passes(args)
    cfg = config_from_args(args)
    if args.reproduce:
        return _reproduce(args, cfg)
    budget = args.budget if args.budget is not None else (None if args.examples is not None else 60.0)
    camp = Campaign(cfg, Path(args.output), args.examples, budget, args.workers or default_workers(), args.dask)
    from ..fuzz.display import final_table, live

    if args.dask:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UsageError("'vsched fuzz --dask' needs distributed: pip install 'verified_sched[dask]'") from None
    tty = sys.stderr.isatty()
    with live(camp, enabled=tty and not args.json, lines=not tty) as update:
        try:
            camp.run(update)
        except OSError as e:
            raise UsageError(f"cannot reach {args.dask or 'the worker pool'}: {e}") from None
    if camp.stats.examples == 0 and not camp.crashes:
        if budget is None:
            raise UsageError("the campaign ran no example")
        raise UsageError(f"the budget of {budget:g} s ran no example (starting the workers and the first "
                         "example took longer); give a larger --budget, or --examples N")
    if args.json:
        print(json.dumps(summary(camp)))
    else:
        print(final_table(camp))
    if camp.crashes:
        print(f"vsched: {len(camp.crashes)} worker process(es) died (a kernel crashed): "
              f"{camp.crashes[0]}", file=sys.stderr)
    return 1 if camp.findings or camp.crashes else 0


def summary(camp) -> dict:
    s = camp.stats
    return {"examples": s.examples, "legal": s.verdicts.get("legal", 0), "illegal": s.verdicts.get("illegal", 0),
            "unknown": s.verdicts.get("unknown", 0), "errors": s.verdicts.get("error", 0),
            "findings": [{"kind": f["kind"], "op": f.get("op", ""), "count": f.get("count", 1),
                          "reproducer": f["path"], "signature": f["signature"],
                          "message": f["message"].splitlines()[0][:300], "lines": f["lines"]} for f in camp.findings],
            "duplicate_findings": camp.duplicates, "worker_crashes": camp.crashes,
            "seconds": round(camp.seconds, 3), "workers": camp.workers,
            "examples_per_second": round(s.examples / camp.seconds, 3) if camp.seconds else 0.0,
            "multi_op_fraction": round(sum(v for k, v in s.schedule_lengths.items() if k >= 2) / s.examples, 3)
            if s.examples else 0.0,
            **s.to_json()}


def _reproduce(args, cfg) -> int:
    from ..fuzz.campaign import load_backend
    from ..fuzz.reproducer import reproduce

    out = reproduce(args.reproduce, load_backend(cfg.backend, cfg.cwd), cfg.timeout)
    f = out.finding
    if args.json:
        print(json.dumps({"verdict": out.verdict, "finding": None if f is None else
                          {"kind": f.kind, "message": f.message, "sizes": f.sizes}}))
    else:
        print(f"{args.reproduce}: {out.verdict}; " + ("no finding" if f is None else f"{f.kind} finding: {f.message}"))
    return 1 if f else 0
