"""Issue 9 item 11: every refutation of the corpus (tests/cases, `expect: illegal`) and of the
split tails example replays: `vsched run` at the counterexample's sizes fails (exit 1: a
difference, or the failure it names: out of storage, a race, barrier divergence, hardware
limits), on the C target, else the interpreter (random parallel order, seeds 0..2), else the
emulator with its race detector.

Regressions: the round_up_and_blend and shift_inward_and_blend tails (an out-of-bounds read
whose lane stores back the value read, invisible to guard zones), reassociations refuted at
sizes where the reordered sums are bitwise equal (two terms), and a vectorized prefix sum
refuted at a size where the interpreter's random order happened to be serial.

Not replayable by a run, by design: `profile` refutations (a rewrite the profile does not
license, e.g. Winograd under default: its results are within tolerance) and preconditions
without sizes (the op does not apply). Every split tail, padded or not, at several factors:
tests/test_replay_tails.py.
"""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from verified_sched.cli import main
from verified_sched.dsl import parse_file
from verified_sched.verify.driver import verify_program

CASES = Path(__file__).resolve().parent / "cases"
ROOT = Path(__file__).resolve().parents[1]
ILLEGAL = sorted(f for f in CASES.glob("*.vs") if re.search(r"^#\s*expect:\s*illegal", f.read_text(), re.M))
FILES = ILLEGAL + [ROOT / "examples" / "split_tails.vs"]
NO_RUN = {"fuse_epilogue_neighbour": "precondition without sizes",
          "winograd_default_profile": "profile"}
TARGETS = [["--target", "c"]] + [["--target", "interp", "--seed", str(s)] for s in range(3)] + \
          [["--target", "emulate", "--races"]]


def _run(args: list) -> tuple:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue() + err.getvalue()


def _replayable(program, o) -> bool:
    if o.kind == "profile":
        return False
    if o.kind == "precondition" and (o.counterexample is None or not o.counterexample.sizes) and program.params:
        return False
    return True


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_refutation_replays_with_vsched_run(path):
    program = parse_file(path)
    checked, refuted = 0, 0
    for rep in verify_program(program, timeout=60.0):
        for o in rep.obligations:
            refuted += o.status == "refuted"
            if o.status != "refuted" or not _replayable(program, o):
                continue
            params = o.counterexample.sizes
            size = ",".join(f"{k}={v}" for k, v in params.items())
            base = ["run", str(path)] + (["--size", size] if size else [])
            if "==" not in rep.kernel:
                base += ["--kernel", rep.kernel]
            tried = []
            for target in TARGETS:
                code, text = _run(base + target)
                tried.append((target, code, text.splitlines()[:2]))
                if code == 1:
                    assert "DIFFERENT" in text or "FAILED" in text, text
                    break
            else:
                pytest.fail(f"{rep.kernel} {o.kind} at {size} does not replay: {tried}")
            checked += 1
    assert refuted
    assert checked or path.stem in NO_RUN, "no replayable refutation in a case expected illegal"
