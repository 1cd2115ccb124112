"""Start-up of `vsched`: the import time and wall time of `vsched --help`, `vsched verify --help`
and `vsched verify FILE` (verified, and again as a proof-cache hit), side by side with `python
-c pass` (issue 23: under 150 ms of imports for `--help` and for `verify FILE` before its
proof engines). The imports of `verify FILE` are split into vsched's own (everything up to
and around the first proof) and the proof engines', islpy and z3 with what they import.

Bytecode matters (this environment sets PYTHONDONTWRITEBYTECODE=1, so nothing is compiled
by default): every case is run once with PYTHONPYCACHEPREFIX pointing at a scratch folder and
bytecode writing on, which compiles every module it imports there (the standard library's
and the dependencies' too); the measured runs then read that bytecode. `--no-bytecode`
measures without it. Imports are `python -X importtime`'s top-level cumulative times summed,
less `python -c pass`'s own, so the figure is what vsched adds; the engines' part is the
cumulative time of the `islpy` and `z3` imports wherever they happen. The commands run through
`python -m verified_sched` with this checkout first on PYTHONPATH.

`--stat min` reports each column's minimum over the runs instead of the median: on a machine
shared with other work, the runs that were not preempted (import times are wall-clock).

    python benchmarks/startup.py [--repeat 7] [--no-bytecode] [--file examples/reverse.vs] [--stat min]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = [("python -c pass", ["-c", "pass"]),
         ("vsched --help", ["-m", "verified_sched", "--help"]),
         ("vsched verify --help", ["-m", "verified_sched", "verify", "--help"]),
         ("vsched verify FILE", ["-m", "verified_sched", "verify", "--no-cache", "FILE"]),
         ("vsched verify FILE, cached", ["-m", "verified_sched", "verify", "FILE"])]
ENGINES = ("islpy", "z3")


def import_ms(stderr: str) -> tuple:
    """(the sum of the top-level imports' cumulative microseconds, the engines' part: the
    cumulative microseconds of the `islpy` and `z3` imports, at any depth), in ms."""
    total = engines = 0
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        _, _, rest = line.partition(":")
        parts = rest.split("|")
        if len(parts) != 3:
            continue
        if not parts[2].startswith("  "):  # a top-level import
            total += int(parts[1])
        if parts[2].strip() in ENGINES:
            engines += int(parts[1])
    return total / 1000.0, engines / 1000.0


def measure(args: list, env: dict, repeat: int, stat=statistics.median) -> tuple:
    """(wall ms, import ms, engines' import ms) of `python ARGS`, each the `stat` (median) of
    `repeat` runs."""
    walls, imports, engines = [], [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-X", "importtime", *args], env=env, capture_output=True,
                           text=True, cwd=ROOT)
        walls.append((time.perf_counter() - t0) * 1000)
        total, eng = import_ms(p.stderr)
        imports.append(total)
        engines.append(eng)
    return stat(walls), stat(imports), stat(engines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--no-bytecode", action="store_true", help="measure without compiled bytecode")
    ap.add_argument("--file", default="examples/reverse.vs", help="the file `verify FILE` verifies")
    ap.add_argument("--stat", choices=("median", "min"), default="median",
                    help="each column's median over the runs (default), or its minimum (on a loaded machine)")
    opts = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    with tempfile.TemporaryDirectory(prefix="vsched-startup-") as prefix:
        if not opts.no_bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = prefix
        env["VSCHED_CACHE_DIR"] = str(Path(prefix) / "cache")
        rows = []
        for name, args in CASES:
            args = [opts.file if a == "FILE" else a for a in args]
            subprocess.run([sys.executable, *args], env=env, capture_output=True, cwd=ROOT)  # compiles
            rows.append((name, *measure(args, env, opts.repeat, statistics.median if opts.stat == "median" else min)))
    base_wall, base_imp = rows[0][1], rows[0][2]
    print(f"bytecode: {'no' if opts.no_bytecode else 'yes'}; {opts.stat} of {opts.repeat} runs; target: "
          "vsched's own imports under 150 ms")
    print(f"{'command':<28}{'wall ms':>10}{'imports ms':>12}{'vsched own ms':>15}{'islpy+z3 ms':>13}")
    for name, wall, imp, eng in rows:
        own = "" if name == CASES[0][0] else f"{imp - base_imp - eng:>15.1f}{eng:>13.1f}"
        print(f"{name:<28}{wall:>10.1f}{imp:>12.1f}{own}")
    print(f"(python -c pass: {base_wall:.1f} ms wall; vsched own = imports - python -c pass's - islpy+z3)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
