"""Goldens of the whole corpus: what the refactor of issue 11 must leave unchanged.

    python tests/support/goldens.py            # compare every file with its golden (exit 1 on a difference)
    python tests/support/goldens.py --update   # (re)record the goldens (after an intended change)

For every `.vs` file of tests/cases/ and examples/, tests/goldens/<dir>/<name>.json records
the verify report (`vsched verify --json`'s object: verdict, reassociates, every obligation
with its kind, status, engine, message and counterexample; the `seconds` dropped, they are
timings), and the program printed after its whole schedule (`vsched show --after` every op);
tests/goldens/<dir>/<name>.c records the emitted C (`vsched emit --target c`). Where an op's
precondition fails, `show` and `emit` record the error message instead. tests/test_goldens.py
compares each file with its golden.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDENS = ROOT / "tests" / "goldens"
SOURCES = ("tests/cases", "examples")


def corpus() -> list:
    """(source dir, file) of every corpus and example file, sorted."""
    return [(d, p) for d in SOURCES for p in sorted((ROOT / d).glob("*.vs"))]


def golden_paths(source: str, path: Path) -> tuple:
    folder = GOLDENS / Path(source).name
    return folder / f"{path.stem}.json", folder / f"{path.stem}.c"


def _scheduled(program):
    """The program after every op of every schedule, no schedule left (`show --after N`)."""
    import dataclasses

    from verified_sched.ops import apply_op

    for sched in program.schedules:
        for op in sched.ops:
            program = apply_op(program, sched.kernel, op)
    return dataclasses.replace(program, schedules=())


GOLDEN_TIMEOUT = 300.0  # seconds per kernel


def record(path: Path) -> tuple:
    """(the JSON golden as a dict, the C golden as text) of one file."""
    from codegen.c import emit_c
    from verified_sched.analysis.full_tiles import full_tiles
    from verified_sched.dsl import parse_text
    from verified_sched.core.printer import print_program
    from verified_sched.core.errors import VschedError
    from verified_sched.verify.driver import verify_program
    from verified_sched.verify.kernel_report import file_report_json

    # parsed under its path relative to the repository: messages quote it, whatever the checkout
    program = parse_text(path.read_text(), str(path.relative_to(ROOT)))
    name = path.name
    # a generous timeout: the goldens record what is decided, not how fast (no golden times
    # out at the default 10 s on an idle machine; a loaded one must not change them)
    report = file_report_json(verify_program(program, filename=name, timeout=GOLDEN_TIMEOUT), name)
    for o in report["obligations"]:
        o.pop("seconds")
    out = {"file": name, "verdict": report["verdict"], "report": report}
    try:
        after = _scheduled(program)
    except VschedError as e:
        out["show"] = f"error: {e.message}"
        return out, f"/* error: {e.message} */\n"
    out["show"] = print_program(after)
    return out, emit_c(after, split=full_tiles)  # as `vsched emit --target c` prints it


def dump(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def differences(source: str, path: Path) -> list:
    """What differs between the file's goldens and what the code produces now."""
    j, c = golden_paths(source, path)
    if not j.exists() or not c.exists():
        return [f"{path}: no golden (run python tests/support/goldens.py --update)"]
    data, code = record(path)
    out = []
    if dump(data) != j.read_text():
        old = json.loads(j.read_text())
        for key in sorted(set(old) | set(data)):
            if old.get(key) != data.get(key):
                out.append(f"{path.name}: {key} differs:\n  golden: {old.get(key)!r:.2000}\n  now:    "
                           f"{data.get(key)!r:.2000}")
    if code != c.read_text():
        out.append(f"{path.name}: emitted C differs from {c.relative_to(ROOT)}")
    return out


def main(argv: list) -> int:
    update = "--update" in argv
    bad = 0
    for source, path in corpus():
        if update:
            j, c = golden_paths(source, path)
            j.parent.mkdir(parents=True, exist_ok=True)
            data, code = record(path)
            j.write_text(dump(data))
            c.write_text(code)
            print(f"recorded {j.relative_to(ROOT)} ({data['verdict']})")
            continue
        diff = differences(source, path)
        bad += bool(diff)
        for line in diff:
            print(line)
    if not update:
        print(f"{len(corpus()) - bad} of {len(corpus())} files match their goldens")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
