"""Issue 25, item 3: fuzz campaign throughput on fresh examples. A small legal example is
checked in the interpreter (the oracle, bitwise equal to the compiled C) instead of compiling
C; a large one, one the interpreter cannot run, and one checked against a --backend still
compile; a difference the interpreter shows is a verifier finding whose reproducer runs with
`--target interp`. A batch draws without hypothesis's scan of the package's source for
constants (seconds per fresh worker). No test here reads a clock: they count calls."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from polyhedral import checks
from verified_sched.cli import main
from verified_sched.dsl import parse_file
from verified_sched.fuzz import check
from verified_sched.fuzz.campaign import Config, run_batch
from verified_sched.fuzz.reproducer import finding_record
from verified_sched.fuzz.strategies import FuzzExample
from verified_sched.core.obligations import Decided
from verified_sched.core.errors import KernelError

SIZES = ({"N": 3, "M": 4}, {"N": 5, "M": 2})


def _no_compile(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("compiled C for a small example")
    monkeypatch.setattr(check, "paired_runners", refuse)
    monkeypatch.setattr(check, "load_c", refuse)


def _compiles(monkeypatch) -> list:
    calls = []
    real = check.paired_runners

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)
    monkeypatch.setattr(check, "paired_runners", counted)
    return calls


def test_small_legal_example_runs_in_the_interpreter_without_compiling(cases_dir, monkeypatch):
    _no_compile(monkeypatch)
    program = parse_file(cases_dir / "matmul_tiled.vs")
    sizes = tuple({p: 2 for p in program.params} for _ in range(2))
    out = check.check_example(program, program.schedules[0].kernel, sizes)
    assert out.verdict == "legal" and out.finding is None
    assert len(out.sizes_run) == 2 and "compile" not in out.times


def test_an_example_over_the_interpreter_limit_still_compiles(cases_dir, monkeypatch):
    calls = _compiles(monkeypatch)
    monkeypatch.setattr(check, "INTERP_INSTANCES", 0)
    program = parse_file(cases_dir / "matmul_tiled.vs")
    sizes = tuple({p: 2 for p in program.params} for _ in range(2))
    out = check.check_example(program, program.schedules[0].kernel, sizes)
    assert out.verdict == "legal" and out.finding is None and calls == [1]


def test_an_example_the_interpreter_cannot_run_falls_back_to_c(cases_dir, monkeypatch):
    calls = _compiles(monkeypatch)

    def cannot(p, seed):
        def run(*a):
            raise KernelError("planted: not interpretable")
        return run
    monkeypatch.setattr(check, "_interp", cannot)
    program = parse_file(cases_dir / "matmul_tiled.vs")
    sizes = tuple({p: 2 for p in program.params} for _ in range(2))
    out = check.check_example(program, program.schedules[0].kernel, sizes)
    assert out.verdict == "legal" and out.finding is None and calls == [1]


def test_small_counts_statement_instances():
    program = parse_file(Path(__file__).parent / "cases" / "stencil_interchange_illegal.vs")
    assert check.small(program, "skewed", [{"N": 10, "M": 10}])  # 9 * 9 instances
    assert not check.small(program, "skewed", [{"N": 10, "M": 10}, {"N": 1000, "M": 1000}])


def test_interpreter_difference_is_a_verifier_finding_replayed_with_target_interp(cases_dir, monkeypatch, tmp_path,
                                                                                   capsys):
    real = checks.dependence

    def always_proved(before, after, profile):  # the planted verifier bug
        _, red = real(before, after, profile)
        return Decided("proved", "planted: every dependence kept"), red

    monkeypatch.setattr(checks, "dependence", always_proved)
    _no_compile(monkeypatch)
    program = parse_file(cases_dir / "stencil_interchange_illegal.vs")
    out = check.check_example(program, "skewed", SIZES)
    assert out.verdict == "legal" and out.finding is not None
    assert out.finding.kind == "verifier" and out.finding.target == "interp"
    rec = finding_record(FuzzExample(program, "skewed", SIZES), out, Config())
    assert "--target interp" in rec["text"]
    path = tmp_path / rec["name"]
    path.write_text(rec["text"])
    size = ",".join(f"{k}={v}" for k, v in out.finding.sizes[0].items())
    assert main(["run", str(path), "--size", size, "--target", "interp"]) != 0  # DIFFERENT, as printed


def test_a_backend_example_still_compiles_the_reference(cases_dir, monkeypatch):
    calls = _compiles(monkeypatch)
    program = parse_file(cases_dir / "matmul_tiled.vs")
    sizes = tuple({p: 2 for p in program.params} for _ in range(1))
    runs = []

    def factory(p):
        ref = check.load_c(p)

        def run(k, s, a):
            runs.append(1)
            ref.run(k, s, a)
        return run
    out = check.check_example(program, program.schedules[0].kernel, sizes, backend=factory)
    assert out.finding is None and calls == [1] and runs and out.backend_runs == 1


def test_a_batch_draws_without_scanning_source_for_constants(monkeypatch):
    providers = pytest.importorskip("hypothesis.internal.conjecture.providers")
    if not hasattr(providers, "_get_local_constants"):
        pytest.skip("this hypothesis collects no source constants")
    scanned = []
    monkeypatch.setattr(providers, "constants_from_module", lambda m, **k: scanned.append(m) or providers.Constants())
    monkeypatch.setattr(providers, "_sys_modules_len", None)  # as in a fresh worker: every module is new
    monkeypatch.setattr(providers, "_seen_modules", set())
    saved = providers._get_local_constants
    res = run_batch(Config(shapes=("matmul",), ops=("interchange",), shrink_seconds=1.0), 0, 3)
    assert res.stats.examples == 3 and scanned == []
    assert providers._get_local_constants is saved  # restored after the batch


def test_a_small_gpu_example_compiles_only_the_race_detecting_emulator(cases_dir, monkeypatch):
    _no_compile(monkeypatch)
    emulated = []
    real = check.load_emulated

    def counted(*a, **k):
        emulated.append(1)
        return real(*a, **k)
    monkeypatch.setattr(check, "load_emulated", counted)
    program = parse_file(cases_dir / "stage_shared_matmul.vs")
    sizes = tuple({p: 1 for p in program.params} for _ in range(2))  # 16^3 instances
    out = check.check_example(program, program.schedules[0].kernel, sizes)
    assert out.verdict == "legal" and out.finding is None and emulated == [1] and len(out.sizes_run) == 2


def test_a_small_serial_refutation_is_confirmed_without_compiling(cases_dir, monkeypatch):
    import codegen.checked
    from verified_sched.verify.driver import verify_program

    def refuse(*a, **k):
        raise AssertionError("compiled a small serial refutation run")
    monkeypatch.setattr(codegen.checked, "load_checked", refuse)
    program = parse_file(cases_dir / "stencil_interchange_illegal.vs")
    report = next(iter(verify_program(program, timeout=10)))
    refuted = [o for o in report.obligations if o.status == "refuted"]
    assert report.verdict == "illegal" and [o.kind for o in refuted] == ["dependence"]


def test_stats_count_the_tail_of_examples_over_one_cpu_second():
    from verified_sched.fuzz.stats import Stats

    a, b = Stats(), Stats()
    for cpu in (0.05, 0.1, 2.5):
        a.add(check.Outcome("legal", [], [], cpu=cpu))
    b.add(check.Outcome("unknown", [], [], cpu=5.0))
    a.merge(b)
    assert (a.examples, a.slow) == (4, 2)
    assert a.slow_cpu == pytest.approx(7.5) and a.check_cpu == pytest.approx(7.65)


def _bench():
    """benchmarks/fuzz_throughput.py as a module (it is a script, not a package module)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_throughput.py"
    spec = importlib.util.spec_from_file_location("fuzz_throughput_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_fuzz_throughput_benchmark_prints_the_tails_share():
    from types import SimpleNamespace

    from verified_sched.fuzz.stats import Stats

    bench = _bench()
    stats = Stats()
    for cpu in (0.1, 0.1, 0.1, 3.0):
        stats.add(check.Outcome("legal", [], [], cpu=cpu))
    line = bench.tail_line("all ops", 1, SimpleNamespace(stats=stats, cpu=4.0))
    # 1 of 4 examples over 1 s; 3.0 of the workers' 4.0 CPU s; the other 3: (4.0 - 3.0) / 3 each
    assert "1 of 4 examples" in line and "(25%)" in line and "= 75%" in line and "0.333 CPU s per example" in line


def test_fuzz_throughput_benchmark_splits_the_workers_cpu():
    from types import SimpleNamespace

    from verified_sched.fuzz.stats import Stats

    bench = _bench()
    stats = Stats()
    for cpu in (0.1, 0.1, 0.1, 3.0):
        stats.add(check.Outcome("legal", [], [], cpu=cpu))
    stats.times["cpu"] = 3.7  # the batches' CPU: 0.4 s of it outside the checks (the draw)
    line = bench.cpu_line("all ops", 2, SimpleNamespace(stats=stats, cpu=4.7))
    # start-up 4.7 - 3.7 = 1.0 s over 2 workers; draw 0.4 s = 100 ms per example; rest 0.3 s / 3
    assert "start-up 1.0 s (21%, 0.50 s per worker)" in line and "draw 0.4 s (9%, 100 ms per example)" in line
    assert "checks outside the tail 0.3 s (6%, 100 ms per example)" in line and "tail 3.0 s (64%)" in line


def test_fuzz_throughput_benchmark_starts_workers_with_compiled_bytecode(tmp_path, monkeypatch):
    """Workers start as from an installed package: where PYTHONDONTWRITEBYTECODE is set, one
    warm-up run writes bytecode to a scratch PYTHONPYCACHEPREFIX that the workers inherit."""
    bench = _bench()
    runs = []
    monkeypatch.setattr(bench.subprocess, "run", lambda cmd, **kw: runs.append((cmd, kw["env"])))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    line = bench.bytecode(tmp_path)
    assert "compiled once" in line and len(runs) == 1
    cmd, env = runs[0]
    assert cmd[-1] == bench.WARM_UP and "PYTHONDONTWRITEBYTECODE" not in env
    assert os.environ["PYTHONPYCACHEPREFIX"] == env["PYTHONPYCACHEPREFIX"] == str(tmp_path / "pycache")
    assert env["VSCHED_CACHE_DIR"] == str(tmp_path / "warm-up-cache")  # not the measured caches


def test_the_fuzzers_race_detector_compiles_its_emulation_at_O0(cases_dir, monkeypatch):
    """The emulator's compile was most of a small GPU example's check (-O3: 0.25 to 0.35 s of
    compiler CPU); without a `#pragma omp simd` the optimization level cannot change its bits."""
    from codegen import emulate

    flags_seen = []
    real = emulate.compile_shared

    def spy(source, flags, *a, **k):
        flags_seen.append((flags, "#pragma omp simd" in source))
        return real(source, flags, *a, **k)
    monkeypatch.setattr(emulate, "compile_shared", spy)
    emulate.MEMO.clear()
    program = parse_file(cases_dir / "stage_shared_matmul.vs")
    sizes = tuple({p: 1 for p in program.params} for _ in range(2))
    out = check.check_example(program, program.schedules[0].kernel, sizes)
    assert out.verdict == "legal" and out.finding is None
    assert flags_seen and all(("-O0" in f) != simd and "-DVS_RACE=1" in f for f, simd in flags_seen)


def test_quick_emulation_flags_keep_the_optimization_level_under_omp_simd():
    from codegen.emulate import RACE_FLAGS, quick_flags

    assert "-O0" in quick_flags(RACE_FLAGS, "void f(void) {}") and "-O3" not in quick_flags(RACE_FLAGS, "")
    assert quick_flags(RACE_FLAGS, "#pragma omp simd\nfor (;;) {}") == RACE_FLAGS
