"""Issue 23, items 6 and 8: lazy subcommands (which modules a command imports, not how long
it takes: benchmarks/startup.py measures that), the help texts, and optional dependencies
that are missing (exit 2 with the pip command, never 4)."""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys

import pytest

from verified_sched import cli

HEAVY = ("z3", "numpy", "cffi", "islpy", "hypothesis", "torch", "rich", "multiprocessing")


def _run(code: str, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=120)


def _modules_after(argv: list, cwd=None) -> tuple:
    """(exit code, stdout, top-level module names imported) of `vsched ARGV` in a fresh process."""
    code = ("import sys, json, contextlib, io\n"
            "from verified_sched.cli import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            f"    rc = main({argv!r})\n"
            "print(json.dumps([rc, out.getvalue(), sorted(sys.modules)]))\n")
    p = _run(code, cwd)
    assert p.returncode == 0, p.stderr
    rc, out, mods = json.loads(p.stdout.splitlines()[-1])
    return rc, out, mods


def test_help_imports_no_subcommand_module_and_no_engine():
    rc, out, mods = _modules_after(["--help"])
    assert rc == 0 and "verify" in out and "fuzz" in out and "conv-backward" in out
    assert not [m for m in mods if m.split(".")[0] in HEAVY]
    ours = [m for m in mods if m.split(".")[0] in ("verified_sched", "polyhedral", "smt", "codegen")]
    assert set(ours) <= {"verified_sched", "verified_sched.cli", "verified_sched.core", "verified_sched.core.exits"}, ours


def test_verify_help_lists_exit_codes_without_the_engines():
    rc, out, mods = _modules_after(["verify", "--help"])
    assert rc == 0
    assert "exit codes:" in out and "3  unknown" in out and "4  internal error" in out
    assert not [m for m in mods if m.split(".")[0] in HEAVY]
    assert "verified_sched.cli.fuzz" not in mods and "verified_sched.generators.conv_backward" not in mods
    # --profile's choices come from core/profiles.py: the parser of `verify` builds without the IR
    assert "verified_sched.core.ir" not in mods and "verified_sched.dsl.parser" not in mods


def test_verify_of_one_file_imports_neither_numpy_nor_multiprocessing_nor_the_runners(repo_root):
    """The semantics table's numpy evaluation (core/semantics_ev.py) loads on first use, so
    verifying imports no numpy; nor the process pool, cffi or the fuzzer."""
    rc, out, mods = _modules_after(["verify", "--no-cache", "examples/reverse.vs"], cwd=repo_root)
    assert rc == 0 and "LEGAL" in out
    assert "numpy" not in mods and "multiprocessing" not in mods and "cffi" not in mods
    assert "verified_sched.cli.fuzz" not in mods


def _op_modules(mods: list) -> set:
    """The registered ops (verified_sched/ops/registry.py) whose module is among `mods`."""
    from verified_sched.ops.registry import KEYWORDS

    return {m.split(".")[2] for m in mods if m.startswith("verified_sched.ops.")} & set(KEYWORDS)


def test_verify_imports_only_the_ops_the_file_uses(repo_root):
    """Issue 24 item 6: the registry imports an op's module when a schedule names it, so
    verifying examples/reverse.vs (two `reverse` schedules) imports no other op, nor numpy."""
    rc, out, mods = _modules_after(["verify", "--no-cache", "examples/reverse.vs"], cwd=repo_root)
    assert rc == 0 and "LEGAL" in out
    assert _op_modules(mods) == {"reverse"}
    assert "numpy" not in mods and "hypothesis" not in mods


def test_verify_of_a_file_no_z3_proof_needs_imports_no_z3(repo_root):
    """examples/reverse.vs is decided by isl alone: z3 (and smt/) load only for what needs
    them (claims, hardware limits, ...), not from the driver's or the budget's imports."""
    rc, out, mods = _modules_after(["verify", "--no-cache", "examples/reverse.vs"], cwd=repo_root)
    assert rc == 0 and "LEGAL" in out
    assert "z3" not in mods and not [m for m in mods if m.split(".")[0] == "smt"]
    assert "verified_sched.values.claims_value" not in mods and "verified_sched.verify.gpu_limits" not in mods


def test_a_z3_error_raised_where_z3_was_first_imported_is_still_an_unknown_reason():
    """budget.guarded catches z3's exceptions without importing z3 itself: they are looked up
    when one is raised, so z3 imported inside the obligation is still caught."""
    code = ("import sys, math\n"
            "from verified_sched.core import budget\n"
            "assert 'z3' not in sys.modules\n"
            "def fn():\n"
            "    import z3\n"
            "    raise z3.Z3Exception('canceled')\n"
            "print(budget.guarded(fn, math.inf) == (None, budget.Z3_TIMEOUT))\n")
    p = _run(code)
    assert p.returncode == 0 and p.stdout.split() == ["True"], p.stderr


def test_a_proof_cache_hit_imports_no_engine_and_no_numpy(repo_root, tmp_path, monkeypatch):
    """Issue 23 item 8: a cached verdict is parsed, keyed and rendered without isl, z3 or numpy
    (the engines load on their first use: polyhedral/lazy_isl.py, the verify driver only on a
    miss)."""
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "reverse.vs"
    path.write_text((repo_root / "examples" / "reverse.vs").read_text())
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(["verify", str(path)]) == 0  # verified here, stored in the cache
    rc, out, mods = _modules_after(["verify", str(path)], cwd=tmp_path)
    assert rc == 0 and "LEGAL" in out
    assert not {"z3", "islpy", "numpy"} & set(mods)
    assert "verified_sched.verify.driver" not in mods
    # the same text at the same path: its proof key is found without parsing (ProofCache.parsed),
    # so no op module (ops/registry.py) and not the parser
    assert not _op_modules(mods) and "verified_sched.dsl.parser" not in mods
    assert "verified_sched.core.ir" not in mods  # reading a file and rendering a cached report need no IR
    # the cache key's version is core/version.VERSION, a constant: importlib.metadata (email,
    # zipfile, ...) cost more than the rest of a cache hit's start-up (islpy imports it on a miss)
    assert "importlib.metadata" not in mods


def test_the_cache_reads_the_solver_versions_as_importlib_metadata_does():
    from importlib.metadata import version

    from verified_sched.gate.cache import dist_version

    assert dist_version("islpy") == version("islpy") and dist_version("z3-solver") == version("z3-solver")
    assert dist_version("no-such-distribution") == "?"


def test_the_version_constant_is_pyprojects_and_the_installed_ones(repo_root):
    import tomllib
    from importlib.metadata import version

    from verified_sched.core.version import VERSION, package_version

    declared = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]["version"]
    assert VERSION == declared == package_version() == version("verified_sched")


def test_every_subcommand_is_in_the_table_with_its_help():
    """The full parser (every module's own add_subparser) agrees with the lazy table."""
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")  # noqa: SLF001 - argparse's API
    helps = {c.dest: c.help for c in sub._choices_actions}  # noqa: SLF001
    assert helps == {name: help_ for name, (_, _, help_) in cli.COMMANDS.items()}


@pytest.mark.parametrize("command, options", [
    ("show", ["--after"]), ("emit", ["--target"]), ("run", ["--target", "--seed", "--kernel"]),
    ("exec", ["--in", "--out"]),
])
def test_options_have_help_text(command, options):
    parser = cli.build_parser(command)
    sub = next(a for a in parser._actions if a.dest == "command")  # noqa: SLF001
    actions = {s: a for a in sub.choices[command]._actions for s in a.option_strings}  # noqa: SLF001
    for option in options:
        assert actions[option].help, f"vsched {command} {option} has no help text"


def test_unknown_command_is_a_usage_error(capsys):
    assert cli.main(["nosuch"]) == 2
    assert "invalid choice" in capsys.readouterr().err


# ---------------------------------------------------------------- optional dependencies


@pytest.mark.parametrize("argv, module, message", [
    (["fuzz", "--examples", "1"], "hypothesis",
     "vsched: error: 'vsched fuzz' needs hypothesis: pip install 'verified_sched[fuzz]'"),
    (["run", "FILE", "--target", "iree"], "iree",
     "'vsched run --target iree' needs iree: pip install 'verified_sched[iree]'"),
    (["import", "x.mlir"], "xdsl", "vsched: error: 'vsched import' needs xdsl: pip install 'verified_sched[iree]'"),
])
def test_missing_extra_exits_2_with_the_pip_command(argv, module, message, repo_root, tmp_path):
    """`vsched fuzz` without hypothesis exited 4 ("internal error: No module named ...")."""
    (tmp_path / "x.mlir").write_text("func.func @f() { return }\n")
    argv = [str(repo_root / "examples" / "reverse.vs") if a == "FILE" else a for a in argv]
    code = ("import sys\n"
            f"for name in [m for m in sys.modules if m == {module!r} or m.startswith({module!r} + '.')]:\n"
            "    del sys.modules[name]\n"
            f"sys.modules[{module!r}] = None  # as if not installed\n"
            "from verified_sched.cli import main\n"
            f"sys.exit(main({argv!r}))\n")
    p = _run(code, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert message in p.stderr and "internal error" not in p.stderr and "Traceback" not in p.stderr


def test_missing_extra_message_names_only_optional_modules():
    assert cli.missing_extra(ModuleNotFoundError("x", name="torch_mlir.fx"), "run") == \
        "'vsched run' needs torch-mlir: pip install 'verified_sched[iree]'"
    assert cli.missing_extra(ModuleNotFoundError("x", name="distributed"), "fuzz") == \
        "'vsched fuzz' needs distributed: pip install 'verified_sched[dask]'"
    assert cli.missing_extra(ModuleNotFoundError("x", name="islpy"), "verify") is None  # a broken install: exit 4
    assert cli.missing_extra(ImportError("x"), "verify") is None
