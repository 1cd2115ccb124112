"""Issue 23, item 9: the README's pre-commit snippet works as written (it named `rev: v0.1.0`, a
tag that does not exist). The snippet is a `repo: local` hook running the installed `vsched`,
so it needs no network. Two checks: the hook's entry run on the files its `files` pattern
selects, as pre-commit runs it (always); and pre-commit itself on the snippet in a scratch git
repository (when pre-commit is installed: it is in the `test` extra; skipped otherwise, since
this module must not need a network to install it)."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
import yaml

LEGAL = """params N where N >= 1
tensor a[N] f32
tensor b[N] f32
kernel k {
  for i in 0 .. N {
    b[i] += a[i]
  }
}
schedule k {
  reverse i
}
"""

ILLEGAL = """params N where N >= 2
tensor a[N] f32
kernel k {
  for i in 1 .. N {
    a[i] += a[i - 1]
  }
}
schedule k {
  reverse i
}
"""


def readme_config(repo_root) -> str:
    text = (repo_root / "docs" / "ci-gate.md").read_text()
    section = text[text.index("**pre-commit.**"):]
    return re.search(r"```yaml\n(.*?)```", section, re.S).group(1)


def _env(repo_root, tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GIT_"))}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(repo_root), env.get("PYTHONPATH", "")) if p)
    env["VSCHED_CACHE_DIR"] = str(tmp_path / "cache")
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    return env


@pytest.fixture
def project(tmp_path, repo_root):
    """A scratch git repository with the README's config, a legal and an illegal schedule."""
    root = tmp_path / "project"
    (root / "schedules").mkdir(parents=True)
    (root / ".pre-commit-config.yaml").write_text(readme_config(repo_root))
    (root / "schedules" / "ok.vs").write_text(LEGAL)
    (root / "schedules" / "bad.vs").write_text(ILLEGAL)
    (root / "notes.txt").write_text("not a schedule\n")
    env = _env(repo_root, tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=root, env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
    return root, env


def test_readme_snippet_is_a_local_hook_matching_the_published_one(repo_root):
    config = yaml.safe_load(readme_config(repo_root))
    (repo,) = config["repos"]
    assert repo["repo"] == "local" and "rev" not in repo  # nothing to fetch, no tag to name
    (hook,) = repo["hooks"]
    (published,) = yaml.safe_load((repo_root / ".pre-commit-hooks.yaml").read_text())
    for key in ("id", "name", "entry", "files", "require_serial"):
        assert hook[key] == published[key], key
    assert hook["language"] == "system"  # the installed vsched


def test_hook_entry_on_the_files_it_selects(project, repo_root):
    """What pre-commit does with the hook: the entry, with the staged files its pattern matches."""
    root, env = project
    if shutil.which("vsched", path=env.get("PATH")) is None:
        pytest.skip("vsched is not installed on PATH")
    (hook,) = yaml.safe_load(readme_config(repo_root))["repos"][0]["hooks"]
    staged = subprocess.run(["git", "ls-files"], cwd=root, env=env, capture_output=True, text=True,
                            check=True).stdout.split()
    chosen = [f for f in staged if re.search(hook["files"], f)]
    assert sorted(chosen) == ["schedules/bad.vs", "schedules/ok.vs"]
    run = subprocess.run([*shlex.split(hook["entry"]), *chosen], cwd=root, env=env, capture_output=True, text=True)
    assert run.returncode == 1, run.stdout + run.stderr  # the illegal schedule blocks the commit
    assert "schedules/bad.vs: illegal" in run.stdout and "schedules/ok.vs: legal" in run.stdout


def test_pre_commit_runs_the_snippet_as_written(project):
    pytest.importorskip("pre_commit")
    root, env = project
    if shutil.which("vsched", path=env.get("PATH")) is None:
        pytest.skip("vsched is not installed on PATH")
    run = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=root, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "vsched verify" in run.stdout and "Failed" in run.stdout, run.stdout + run.stderr
    assert "schedules/bad.vs: illegal" in run.stdout
    os.remove(root / "schedules" / "bad.vs")
    subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
    run = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=root, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "Passed" in run.stdout, run.stdout + run.stderr
