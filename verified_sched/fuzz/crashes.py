"""Examples that kill a worker process (a C stack overflow in isl, a crash in a compiled
kernel or in a user's `--backend`): found again and written as reproducers.

A process that dies takes its batch with it, so hypothesis cannot shrink the example or
report it. Instead, a pool worker notes each example before checking it (`note_example`:
`<flight_dir>/batch-<index>.vs`, a reproducer-format file with the program, its schedule
and a `# fuzz-sizes:` line). When the pool breaks, every batch in flight is lost, the one that
crashed and the others; `find_crashes` re-checks the last example of each of them in a fresh
process (`vsched fuzz --reproduce`), and an example whose process dies again (a signal) is a
`crash` finding with that file as its reproducer (not shrunk). If none dies again, the crash
is reported without a reproducer.
"""
from __future__ import annotations

import hashlib
import signal
import subprocess
import sys
from pathlib import Path

REPLAY_SECONDS = 300.0  # per example re-checked


def flight_path(flight_dir: str, index: int) -> Path:
    return Path(flight_dir) / f"batch-{index}.vs"


def note_example(flight_dir: str, index: int, sizes, program_text: str) -> None:
    """Note the example batch `index` is about to check, its size sets and its printed program
    (overwriting the previous one)."""
    from .reproducer import sizes_line

    flight_path(flight_dir, index).write_text(f"{sizes_line(list(sizes))}\n{program_text}")


def _signal_name(rc: int) -> str:
    try:
        return signal.Signals(-rc).name
    except ValueError:
        return f"signal {-rc}"


def find_crashes(flight_dir: str, indices, cfg) -> list:
    """Finding records (reproducer.write's format) for the examples in flight in batches
    `indices` whose re-check in a fresh process dies again."""
    from .reproducer import signature

    out = []
    for index in sorted(indices):
        path = flight_path(flight_dir, index)
        if not path.exists():
            continue  # the batch had not started
        text = path.read_text()
        cmd = [sys.executable, "-m", "verified_sched", "fuzz", "--reproduce", str(path), "--timeout", str(cfg.timeout)]
        if cfg.backend:
            cmd += ["--backend", cfg.backend]
        try:
            proc = subprocess.run(cmd, cwd=cfg.cwd or None, capture_output=True, text=True, timeout=REPLAY_SECONDS)
        except subprocess.TimeoutExpired:
            continue
        if proc.returncode >= 0:
            continue  # it ran to an answer this time: not the example that killed the worker
        how = _signal_name(proc.returncode)
        name = f"crash-{hashlib.sha256(text.encode()).hexdigest()[:10]}.vs"
        message = f"checking this example killed the worker process ({how}); again in a fresh process"
        repro = f"vsched fuzz --reproduce {name}" + (f" --backend {cfg.backend}" if cfg.backend else "")
        ops = _schedule_ops(text)
        out.append({"kind": "crash", "message": message, "signature": signature("crash", ops) + f":{how}",
                    "name": name, "ops": ops, "sizes": [], "lines": text.count("\n"), "flaky": False,
                    "text": f"# vsched fuzz finding: crash (not shrunk: the process died)\n# {message}\n"
                            f"# reproduce: {repro}   # dies ({how})\n{text}"})
    return out


def _schedule_ops(text: str) -> list:
    """The op keywords of the schedule block of a printed program."""
    ops, inside = [], False
    for line in text.splitlines():
        if line.startswith("schedule "):
            inside = True
        elif inside and line.strip() == "}":
            inside = False
        elif inside and line.strip():
            ops.append(line.split()[0])
    return ops
