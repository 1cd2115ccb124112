"""The kill criterion of the semantic mutants (benchmarks/semantic_mutants.py): the probes of
benchmarks/semantic_probes/, checked in this process (with a mutant planted, when given).

- **verdict**: every probe `*.vs` states its verdict on its first line (`# expect: legal` or
  `# expect: illegal`, a claim or a schedule whose meaning turns on one rule: -0.0, NaN, a
  narrowing, a product's grouping, i32 wrapping, fma, rounding, a barrier); a mutant that
  changes a verdict (or crashes the verifier) is killed;
- **run**: every probe verified legal runs (`vsched run`, three small size sets) on random
  inputs and on special values (-0.0, NaN, infinities, extremes; the finite ones under the
  finite profile); a legal probe whose runs differ kills the mutant;
- **oracle**: `oracle.vs` (every exactly defined operation in every precision) runs on every
  pair of special values in the interpreter (vector and scalar paths) and in C; a mutant is
  killed when two of them differ bitwise (NaNs identified) or when an output differs from the
  recorded meaning `oracle_expected.json` (`--record` rewrites it from the unmutated tree).

    python benchmarks/semantic_check.py [--mutant NAME] [--timeout 10] [--record]

prints one JSON object (after `@@RESULT@@`).
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import itertools
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PROBES = ROOT / "benchmarks" / "semantic_probes"
ORACLE = PROBES / "oracle.vs"
EXPECTED = PROBES / "oracle_expected.json"


def probes() -> list:
    """[(path, expected verdict)] of the verdict probes."""
    out = []
    for f in sorted(PROBES.glob("*.vs")):
        first = f.read_text().splitlines()[0]
        if first.startswith("# expect:"):
            out.append((str(f), first.split(":", 1)[1].split()[0]))
    return out


def verdict(path: str, timeout: float) -> str:
    from verified_sched.dsl import parse_file
    from verified_sched.verify.driver import verify_program
    from verified_sched.verify.kernel_report import file_report_json
    try:
        return file_report_json(verify_program(parse_file(path), timeout=timeout, filename=path), path)["verdict"]
    except Exception as exc:  # a mutant may break the verifier itself: a finding
        return f"crash ({type(exc).__name__}: {str(exc)[:100]})"


def runs_equal(path: str) -> dict:
    """{input mode: "equal" | "DIFFERENT" | what failed} of `vsched run` (equal: no comparison
    differs; one whose outputs are all zero or poison, VACUOUS, counts as equal)."""
    from verified_sched.cli import main
    modes = ["random", "special-finite" if "profile finite" in Path(path).read_text() else "special"]
    out = {}
    for mode in modes:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            try:
                rc = main(["run", path, "--inputs", mode])
            except BaseException as exc:  # noqa: BLE001 (SystemExit included)
                rc = f"crash ({type(exc).__name__})"
        out[mode] = ("DIFFERENT" if "DIFFERENT" in buf.getvalue() else
                     "equal" if rc in (0, 1) else f"exit {rc}")
    return out


# ---------------------------------------------------------------- the oracle probe

def specials(prec: str) -> list:
    if prec == "i32":
        return [0, 1, -1, 7, -8, 46341, 2 ** 31 - 1, -2 ** 31, 65536]
    big = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": float(np.finfo(np.float32).max),
           "f64": float(np.finfo(np.float64).max)}[prec]
    vals = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, big, -big, 3.0, 1e-3, -7.0, 1e-40, 0.1]
    if prec in ("f32", "f64"):
        vals.append({"f32": 3.0e38, "f64": 1e300}[prec])  # overflows on narrowing
    return vals


def _storage(prec: str, values) -> np.ndarray:
    from verified_sched.core.dtypes import NP_DTYPE, f32_to_bf16
    if prec == "bf16":
        return f32_to_bf16(np.array(values, np.float32))
    with np.errstate(over="ignore"):
        return np.array(values, dtype=NP_DTYPE[prec])


def oracle_inputs(program) -> tuple:
    """(sizes, arrays): a, b, c of each precision hold every pair of its special values."""
    precs = sorted({t.prec for t in program.tensors})
    n = max(len(specials(p)) ** 2 for p in precs)
    arrays = {}
    for p in precs:
        vals = specials(p)
        pairs = list(itertools.islice(itertools.cycle(itertools.product(vals, vals)), n))
        c = [vals[(k * 5 + 3) % len(vals)] for k in range(n)]
        safe = [(1 + k % 19) if p == "i32" else float(1 + k % 19) for k in range(n)]
        for name, col in (("a", [x for x, _ in pairs]), ("b", [y for _, y in pairs]), ("c", c), ("s", safe)):
            arrays[f"{name}_{p}"] = _storage(p, col)
    for t in program.tensors:
        if t.name not in arrays:
            arrays[t.name] = _storage(t.prec, [0] * n)
    return {"N": n}, arrays


def _canonical(prec: str, arr: np.ndarray) -> bytes:
    from verified_sched.core.dtypes import bf16_to_f32
    if prec == "i32":
        return np.asarray(arr, np.int64).tobytes()
    vals = bf16_to_f32(arr) if prec == "bf16" else arr
    vals = np.array(vals, np.float64)
    vals[np.isnan(vals)] = np.nan  # every NaN is one value (payloads and signs are not compared)
    return vals.tobytes()


def oracle() -> dict:
    """{"digests": {tensor: digest of the interpreter's output}, "differ": [texts]}."""
    from codegen.build import load_c
    from verified_sched.analysis.full_tiles import full_tiles
    from verified_sched.dsl import parse_file
    from verified_sched.interp.interpreter import run_kernel
    program = parse_file(str(ORACLE))
    sizes, arrays = oracle_inputs(program)
    outs, differ = {}, []
    runners = {"interp": lambda a: run_kernel(program, "k", sizes, a),
               "interp-scalar": lambda a: run_kernel(program, "k", sizes, a, vectorize=False),
               "c": lambda a: load_c(program, split=full_tiles).run("k", sizes, a)}
    for label, run in runners.items():
        arr = {k: v.copy() for k, v in arrays.items()}
        try:
            run(arr)
        except Exception as exc:  # a mutant may break a backend: a finding
            differ.append(f"{label} failed: {type(exc).__name__}: {str(exc)[:100]}")
            continue
        outs[label] = {t.name: _canonical(t.prec, arr[t.name]) for t in program.tensors if t.name.startswith("y")}
    exprs = _expressions()
    if "interp" in outs:
        for label, o in outs.items():
            for name, b in o.items():
                if b != outs["interp"][name]:
                    differ.append(f"{name} `{exprs.get(name, '?')}`: {label} != interp")
    digests = {name: hashlib.sha256(b).hexdigest()[:16] for name, b in outs.get("interp", {}).items()}
    return {"digests": digests, "differ": differ}


def _expressions() -> dict:
    out = {}
    for line in ORACLE.read_text().splitlines():
        if "] = " in line and line.strip().startswith("for "):
            lhs, rhs = line.split("{", 1)[1].rsplit("}", 1)[0].split(" = ", 1)
            out[lhs.strip().split("[")[0]] = rhs.strip()
    return out


def oracle_verdict(res: dict) -> list:
    """The oracle's findings: backends that differ, outputs that differ from the recorded meaning."""
    found = list(res["differ"])
    expected = json.loads(EXPECTED.read_text()) if EXPECTED.exists() else {}
    exprs = _expressions()
    for name, want in sorted(expected.items()):
        got = res["digests"].get(name)
        if got is not None and got != want:
            found.append(f"{name} `{exprs.get(name, '?')}`: not the recorded meaning")
    return found


def check(timeout: float = 10.0, only=None) -> dict:
    """Every probe's verdict, the runs of those verified legal, and the oracle's findings."""
    out = {"probes": {}, "oracle": []}
    for path, _ in probes():
        name = Path(path).stem
        if only is not None and name not in only:
            continue
        v = verdict(path, timeout)
        out["probes"][name] = {"verdict": v, "run": runs_equal(path) if v == "legal" else None}
    if only is None or "oracle" in only:
        out["oracle"] = oracle_verdict(oracle())
    return out


def killed_by(base: dict, got: dict) -> list:
    """The probes that kill a mutant: [(probe, why)]."""
    expected = {Path(p).stem: e for p, e in probes()}
    why = []
    for name, g in got["probes"].items():
        if g["verdict"] != expected[name]:
            why.append((name, f"verdict {g['verdict']} (expected {expected[name]})"))
        elif g["run"] and any(r != "equal" for r in g["run"].values()):
            bad = [f"{m}: {r}" for m, r in g["run"].items() if r != "equal"]
            why.append((name, f"legal but runs differ ({', '.join(bad)})"))
    for finding in got["oracle"]:
        if finding not in base.get("oracle", []):
            why.append(("oracle", finding))
    return why


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutant", help="plant this semantic mutant first")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--only", help="comma-separated probe names (and/or `oracle`)")
    ap.add_argument("--record", action="store_true", help="rewrite oracle_expected.json (unmutated tree)")
    args = ap.parse_args(argv)
    if args.record:
        res = oracle()
        if res["differ"]:
            print("backends differ, not recorded:", *res["differ"], sep="\n  ")
            return 1
        EXPECTED.write_text(json.dumps(res["digests"], indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(res['digests'])} outputs in {EXPECTED.relative_to(ROOT)}")
        return 0
    if args.mutant:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from semantic_mutants import BY_NAME, apply
        apply(BY_NAME[args.mutant])
    res = check(args.timeout, set(args.only.split(",")) if args.only else None)
    print("@@RESULT@@" + json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
