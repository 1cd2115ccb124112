"""`vsched fuzz --mlir-passes PASSES`: MLIR's own loop passes under translation validation.

Each example is a kernel of the fuzz families (fuzz/families.py: random nests with guards and
quasi-affine indices, matmul, reductions, in-place stencils, epilogues sharing tensors, tiled,
conv; no GPU) emitted as affine MLIR (affine_emit.py, every memref dimension dynamic, the params
as `index` arguments), a random pipeline of 1-3 passes from PASSES with random options (tile
sizes, unroll factors, cleanup, fusion modes), run by iree-opt, and the pair checked as
`vsched check-pass` checks it (mlir/check_pass.py; the kernel's own param constraints assumed).

Outcomes: proved, refuted (a finding: a miscompile whose counterexample replayed in C),
unknown, declined (the kernel has no affine form, the tool rejected the pipeline, the output
has ops the importer does not read), and tool errors (iree-opt failing on valid input, e.g. a
verifier error after the pass: a finding too). Findings are shrunk by hypothesis (smaller
program, fewer passes, smaller options) and written under -o DIR as `NAME.mlir` with the
pipeline and the command that reproduces it in its header.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field

PASS_NAMES = ("affine-loop-tile", "affine-loop-unroll", "affine-loop-unroll-jam", "affine-loop-fusion",
              "affine-scalrep", "affine-loop-invariant-code-motion", "affine-loop-normalize",
              "affine-loop-coalescing", "affine-parallelize", "affine-data-copy-generate",
              "scf-parallel-loop-tiling", "scf-parallel-loop-fusion", "loop-invariant-code-motion",
              "canonicalize")
SHAPES = ("random", "matmul", "reduction", "stencil", "epilogue", "tiled", "conv")


@dataclass
class Stats:
    tried: int = 0
    proved: int = 0
    refuted: int = 0
    unknown: int = 0
    declined: int = 0
    tool_errors: int = 0
    unchanged: int = 0
    per_pass: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)

    def count(self, pipeline: str, outcome: str) -> None:
        self.tried += 1
        setattr(self, outcome, getattr(self, outcome) + 1)
        for p in pipeline.split(","):
            name = p.split("{")[0]
            row = self.per_pass.setdefault(name, {})
            row[outcome] = row.get(outcome, 0) + 1


class Found(Exception):
    """A finding (raised inside the hypothesis test so that hypothesis shrinks it)."""

    def __init__(self, kind: str, mlir: str, pipeline: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind, self.mlir, self.pipeline, self.message = kind, mlir, pipeline, message


def pass_strategy(names: tuple):
    from hypothesis import strategies as st

    def options(name):
        if name == "affine-loop-tile":
            return st.tuples(st.integers(1, 6), st.booleans()).map(
                lambda t: f"{name}{{tile-size={t[0]}" + (" separate=true}" if t[1] else "}"))
        if name == "affine-loop-unroll":
            return st.tuples(st.integers(2, 4), st.booleans()).map(
                lambda t: f"{name}{{unroll-factor={t[0]}" + (" cleanup-unroll=true}" if t[1] else "}"))
        if name == "affine-loop-unroll-jam":
            return st.integers(2, 4).map(lambda f: f"{name}{{unroll-jam-factor={f}}}")
        if name == "affine-loop-fusion":
            return st.tuples(st.sampled_from(("greedy", "producer", "sibling")), st.booleans()).map(
                lambda t: f"{name}{{mode={t[0]}" + (" maximal=true}" if t[1] else "}"))
        if name == "scf-parallel-loop-tiling":
            return st.integers(1, 4).map(lambda f: f"{name}{{parallel-loop-tile-sizes={f}}}")
        return st.just(name)
    return st.sampled_from(names).flatmap(options)


def pipelines(names: tuple):
    from hypothesis import strategies as st

    return st.lists(pass_strategy(names), min_size=1, max_size=3).map(",".join)


def check_example(program, kernel: str, pipeline: str, timeout: float, stats: Stats):
    """One example: emit, run the pipeline, check; raises Found on a finding."""
    from verified_sched.core.errors import VschedError
    from verified_sched.mlir.check_pass import check_pair, run_pipeline

    from .affine_emit import Inexpressible, emit_affine

    try:
        before = emit_affine(program, kernel)
    except Inexpressible:
        stats.count(pipeline, "declined")
        return
    try:
        after = run_pipeline(before, pipeline).stdout
    except VschedError as e:
        text = str(e)
        if "does not dominate" in text or "verification" in text or "failed to verify" in text:
            stats.count(pipeline, "tool_errors")
            raise Found("tool-error", before, pipeline, text[:300]) from None
        stats.count(pipeline, "declined")
        return
    try:
        r = check_pair(before, after, "<fuzz>", "<after>", timeout=timeout, assume=program.constraints)
    except VschedError:
        stats.count(pipeline, "declined")
        return
    if r.verdict == "refuted":
        stats.count(pipeline, "refuted")
        msg = " | ".join(o.message[:200] for rep in r.reports for o in rep.obligations if o.status == "refuted")
        raise Found("miscompile", before, pipeline, msg)
    stats.count(pipeline, r.verdict if r.verdict in ("proved", "unknown") else "unknown")


def run_campaign(names: tuple, budget: float | None, examples: int | None, seed: int, out_dir: str,
                 timeout: float = 5.0, shapes: tuple = SHAPES, clock=time.monotonic, batch: int = 10,
                 shrink_seconds: float = 60.0, tag: str = "") -> Stats:
    """Batches of `batch` examples (each batch its own hypothesis seed) until the budget (on
    `clock`) or `examples` is spent; a finding is shrunk for at most `shrink_seconds`."""
    from hypothesis import HealthCheck, Phase, assume, given, settings
    from hypothesis import seed as hseed

    from .families import family_programs

    stats = Stats()
    deadline = None if budget is None else clock() + budget
    seen: set = set()
    left = examples
    k = 0
    while (deadline is None or clock() < deadline) and (left is None or left > 0):
        n = batch if left is None else min(batch, left)
        found: list = []
        ran = [0]

        @hseed(seed * 100003 + k)
        @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck),
                  phases=(Phase.generate, Phase.shrink))
        @given(program=family_programs(shapes), pipeline=pipelines(names))
        def one(program, pipeline):
            if found:  # shrinking: within its budget, uncounted
                if clock() > found[0][1] + shrink_seconds:
                    return
                check_example(program, program.kernels[0].name, pipeline, timeout, Stats())
                return
            assume(deadline is None or clock() < deadline)
            ran[0] += 1
            try:
                check_example(program, program.kernels[0].name, pipeline, timeout, stats)
            except Found as f:
                found.append((f, clock()))
                raise

        k += 1
        try:
            one()
        except Found as last:
            _record(last, seen, stats, out_dir, tag)
        except BaseExceptionGroup as group:  # hypothesis: several distinct failures
            founds = [e for e in group.exceptions if isinstance(e, Found)]
            if len(founds) != len(group.exceptions):
                raise
            for last in founds:
                _record(last, seen, stats, out_dir, tag)
        except Exception as e:  # noqa: BLE001 - every example of the batch rejected at the deadline
            if type(e).__name__ not in ("Unsatisfiable", "FailedHealthCheck"):
                raise
        if left is not None:
            left -= max(ran[0], 1)
    return stats


def _record(last: Found, seen: set, stats: Stats, out_dir: str, tag: str = "") -> None:
    key = (last.kind, last.pipeline.split("{")[0], last.message[:60])
    if key not in seen:
        seen.add(key)
        stats.findings.append(_write(last, out_dir, len(stats.findings), tag))


def _write(f: Found, out_dir: str | None, k: int, tag: str = "") -> dict:
    """The finding's record; its reproducer written into `out_dir`, or (None: a Dask worker,
    whose disk is not the client's) carried in the record's `text` for the client to write."""
    name = f"mlir_pass_{f.kind}_{tag}{k}.mlir"
    header = (f"// {f.kind}: {f.message}\n// pipeline: {f.pipeline}\n"
              f"// reproduce: iree-opt --pass-pipeline='builtin.module(func.func({f.pipeline}))' {name}\n"
              f"//   and: vsched check-pass {name} --pass '{f.pipeline}'\n")
    record = {"kind": f.kind, "pipeline": f.pipeline, "message": f.message}
    if out_dir is None:
        return dict(record, name=name, text=header + f.mlir)
    return dict(record, reproducer=_save(out_dir, name, header + f.mlir))


def _save(out_dir: str, name: str, text: str) -> str:
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


WORKER_SHRINK_SECONDS = 60.0  # each worker's limit on shrinking one finding


def _worker(job: tuple) -> Stats:
    names, budget, examples, seed, out_dir, timeout, shapes, tag = job
    return run_campaign(names, budget, examples, seed, out_dir, timeout, shapes, tag=tag,
                        shrink_seconds=WORKER_SHRINK_SECONDS)


def run_workers(names: tuple, budget, examples, seed: int, out_dir: str, timeout: float, shapes: tuple,
                workers: int, dask: str | None = None) -> Stats:
    """`workers` processes, each its own seed and share of the examples (the same budget); with
    `dask` (a scheduler address), one job per worker of that cluster instead (`workers` ignored),
    their findings' reproducers written here, into `out_dir`."""
    if dask is None and workers <= 1:
        return run_campaign(names, budget, examples, seed, out_dir, timeout, shapes)
    if dask is not None:
        from distributed import Client

        client = Client(dask, timeout=CONNECT_TIMEOUT)
        try:
            workers = max(1, len(client.scheduler_info().get("workers", {})))
            jobs = _jobs(names, budget, examples, seed, None, timeout, shapes, workers)
            parts = client.gather(client.map(_worker, jobs, pure=False))
        finally:
            client.close()
    else:
        from concurrent.futures import ProcessPoolExecutor

        jobs = _jobs(names, budget, examples, seed, out_dir, timeout, shapes, workers)
        with ProcessPoolExecutor(len(jobs)) as pool:
            parts = list(pool.map(_worker, jobs))
    total = Stats()
    for part in parts:
        for k in ("tried", "proved", "refuted", "unknown", "declined", "tool_errors", "unchanged"):
            setattr(total, k, getattr(total, k) + getattr(part, k))
        for name, row in part.per_pass.items():
            mine = total.per_pass.setdefault(name, {})
            for outcome, n in row.items():
                mine[outcome] = mine.get(outcome, 0) + n
        for f in part.findings:
            if "text" in f:  # from a Dask worker: written here
                f = dict(f)
                f["reproducer"] = _save(out_dir, f.pop("name"), f.pop("text"))
            total.findings.append(f)
    return total


CONNECT_TIMEOUT = "20s"  # how long a Dask scheduler may take to answer


def _jobs(names, budget, examples, seed, out_dir, timeout, shapes, workers) -> list:
    shares = [None] * workers if examples is None else [examples // workers + (w < examples % workers)
                                                         for w in range(workers)]
    return [(names, budget, n, seed * 1009 + w, out_dir, timeout, shapes, f"w{w}_")
            for w, n in enumerate(shares) if n is None or n > 0]


def report(stats: Stats, seconds: float, as_json: bool) -> str:
    if as_json:
        return json.dumps({"examples": stats.tried, "proved": stats.proved, "refuted": stats.refuted,
                           "unknown": stats.unknown, "declined": stats.declined, "tool_errors": stats.tool_errors,
                           "per_pass": stats.per_pass, "findings": stats.findings, "seconds": round(seconds, 1)})
    lines = [f"mlir passes: {stats.tried} examples in {seconds:.0f} s: {stats.proved} proved, {stats.refuted} refuted, "
             f"{stats.unknown} unknown, {stats.declined} declined, {stats.tool_errors} tool errors"]
    for name, row in sorted(stats.per_pass.items()):
        lines.append(f"  {name:36s} " + ", ".join(f"{k} {v}" for k, v in sorted(row.items())))
    for f in stats.findings:
        lines.append(f"finding ({f['kind']}): {f['pipeline']}: {f['message'][:160]}\n  reproducer: {f['reproducer']}")
    return "\n".join(lines)


def cmd_mlir_passes(args) -> int:
    """The `vsched fuzz --mlir-passes` entry (cli/fuzz.py)."""
    from verified_sched.core.errors import UsageError

    names = tuple(n.strip() for n in args.mlir_passes.split(",") if n.strip())
    if names == ("all",):
        names = PASS_NAMES
    bad = [n for n in names if n not in PASS_NAMES]
    if bad or not names:
        raise UsageError(f"--mlir-passes: unknown pass(es) {', '.join(bad) or '(none)'} "
                         f"(known: all, {', '.join(PASS_NAMES)})")
    if args.dask:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UsageError("'vsched fuzz --dask' needs distributed: pip install 'verified_sched[dask]'") from None
    shapes = tuple(s for s in (args.shapes.split(",") if args.shapes else SHAPES))
    if any(s not in SHAPES for s in shapes):
        raise UsageError(f"--mlir-passes: shapes must be among {', '.join(SHAPES)}")
    budget = args.budget if args.budget is not None else (None if args.examples is not None else 60.0)
    t0 = time.monotonic()
    try:
        stats = run_workers(names, budget, args.examples, args.seed, args.output, args.timeout, shapes,
                            args.workers or 1, args.dask)
    except OSError as e:  # the scheduler did not answer
        raise UsageError(f"cannot reach {args.dask}: {e}") from None
    print(report(stats, time.monotonic() - t0, args.json))
    return 1 if stats.findings else 0
