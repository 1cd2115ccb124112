"""Issue 21 "done when": every configuration of tests/fixtures/mlir/convs.json (the seed family
and eight others), through both frontends (torch-mlir's direct lowering and iree-turbine), is
exported now with the pinned frontend, proved (`vsched verify`) and run through IREE
(`vsched run --target iree`). Prints one line per (configuration, frontend) and a total; exits
1 if any is not proved or not equal. About 10 minutes on 2 cores.

    python tests/support/conv_iree_sweep.py [NAME ...]
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONVS = json.loads((ROOT / "tests" / "fixtures" / "mlir" / "convs.json").read_text())


def argv(cfg: dict, out: Path, frontend: str) -> list:
    a = ["conv-backward", "--x", ",".join(map(str, cfg["x"])), "--w", ",".join(map(str, cfg["w"])),
         "--layout", cfg["layout"], "--grads", "input,weight", "--against", frontend, "-o", str(out)]
    for key in ("stride", "padding", "dilation", "groups"):
        if key in cfg:
            a += [f"--{key}", str(cfg[key])]
    return a


def vsched(args: list) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verified_sched", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=900)


def main(names: list) -> int:
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names or list(CONVS):
            for frontend in ("torch-mlir", "iree-turbine"):
                t0 = time.monotonic()
                out = Path(tmp) / f"{name}_{frontend}.vs"
                steps = [("export", argv(CONVS[name], out, frontend)),
                         ("verify", ["verify", str(out), "--no-cache", "--timeout", "120"]),
                         ("run --target iree", ["run", str(out), "--target", "iree"])]
                status = "proved, IREE equal"
                for step, args in steps:
                    p = vsched(args)
                    if p.returncode != 0:
                        status = f"{step}: exit {p.returncode}: {(p.stdout + p.stderr).strip().splitlines()[-1:]}"
                        bad += 1
                        break
                print(f"{name:14s} {frontend:13s} {status} ({time.monotonic() - t0:.0f} s)", flush=True)
    total = len(names or CONVS) * 2
    print(f"{total - bad}/{total} (configuration, frontend) pairs proved and equal through IREE")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
