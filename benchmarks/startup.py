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
`--cpu` counts imports in CPU time instead (time.process_time around every top-level import
after start-up, by a hook on importlib's `_find_and_load`, which `import` and
`importlib.import_module` both call), which other processes on the machine barely change; it
has no `python -c pass` part to subtract (the interpreter's own start-up is over when the hook
is set).

    python benchmarks/startup.py [--repeat 7] [--no-bytecode] [--file examples/reverse.vs] [--stat min] [--cpu]
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


# `python -c CPU_HOOK ARGS...` runs ARGS (`-c CODE` or `-m MODULE ...`) with every import timed
# in CPU seconds: the top-level imports' sum and the engines' (islpy, z3, at any depth), written
# to stderr at exit
CPU_HOOK = """
import atexit, importlib._bootstrap as b, os, runpy, sys, time
find, depth, sums = b._find_and_load, [0, 0], [0.0, 0.0]
def timed(name, import_):
    engine = name in %r and not depth[1]
    top = not depth[0]
    depth[0] += 1; depth[1] += engine
    t = time.process_time()
    try:
        return find(name, import_)
    finally:
        dt = time.process_time() - t
        depth[0] -= 1; depth[1] -= engine
        sums[0] += dt if top else 0.0
        sums[1] += dt if engine else 0.0
b._find_and_load = timed
atexit.register(lambda: os.write(2, ("\\nvsched-cpu-imports %%f %%f\\n" %% (sums[0] * 1e3, sums[1] * 1e3)).encode()))
flag, target, *rest = sys.argv[1:]
sys.argv = [target, *rest]
if flag == "-c":
    exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
else:
    runpy.run_module(target, run_name="__main__", alter_sys=True)
"""


def cpu_import_ms(stderr: str) -> tuple:
    """(the top-level imports' CPU ms, the engines' CPU ms) that CPU_HOOK wrote."""
    for line in reversed(stderr.splitlines()):
        if line.startswith("vsched-cpu-imports "):
            total, engines = map(float, line.split()[1:])
            return total, engines
    raise RuntimeError(f"no import times in the output: {stderr[-400:]}")


def measure(args: list, env: dict, repeat: int, stat=statistics.median, cpu: bool = False) -> tuple:
    """(wall ms, import ms, engines' import ms) of `python ARGS`, each the `stat` (median) of
    `repeat` runs."""
    walls, imports, engines = [], [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        command = ["-c", CPU_HOOK % (ENGINES,), *args] if cpu else ["-X", "importtime", *args]
        p = subprocess.run([sys.executable, *command], env=env, capture_output=True, text=True, cwd=ROOT)
        walls.append((time.perf_counter() - t0) * 1000)
        total, eng = cpu_import_ms(p.stderr) if cpu else import_ms(p.stderr)
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
    ap.add_argument("--cpu", action="store_true", help="imports in CPU time, not wall-clock (on a loaded machine)")
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
            rows.append((name, *measure(args, env, opts.repeat, statistics.median if opts.stat == "median" else min,
                                        opts.cpu)))
    base_wall, base_imp = rows[0][1], rows[0][2]
    print(f"bytecode: {'no' if opts.no_bytecode else 'yes'}; {opts.stat} of {opts.repeat} runs; "
          f"imports in {'CPU' if opts.cpu else 'wall-clock'} time; target: "
          "vsched's own imports under 150 ms")
    print(f"{'command':<28}{'wall ms':>10}{'imports ms':>12}{'vsched own ms':>15}{'islpy+z3 ms':>13}")
    for name, wall, imp, eng in rows:
        own = "" if name == CASES[0][0] else f"{imp - (0 if opts.cpu else base_imp) - eng:>15.1f}{eng:>13.1f}"
        print(f"{name:<28}{wall:>10.1f}{imp:>12.1f}{own}")
    print(f"(python -c pass: {base_wall:.1f} ms wall; vsched own = imports - "
          f"{'' if opts.cpu else 'python -c pass' + chr(39) + 's - '}islpy+z3)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
