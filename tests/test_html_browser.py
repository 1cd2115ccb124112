"""The HTML report of three refuted corpus cases in a real headless Chromium:
the page loads without errors, the conflicting instances are marked in the rendered DOM, and
a screenshot is written (its path is printed in the test output and recorded as the junit
property `screenshot`).

Chromium comes from the system package manager (`.ci/run` installs the Debian package
`chromium` when it is missing). Without it the test is skipped on a developer's machine and
fails under CI (env CI set).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from verified_sched.dsl import parse_file
from verified_sched.report.html import render_html
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json

CASES = ("stencil_interchange_illegal.vs", "shared_missing_barrier.vs", "matmul_round_up_oob.vs")
# Added to the test's copy of the page only (the report itself has no scripts): records that
# the page loaded and any error raised while it did.
PROBE = """<script>
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message || e.type)); }, true);
window.addEventListener('load', function () {
  var n = function (q) { return document.querySelectorAll(q).length; };
  document.body.setAttribute('data-probe', 'loaded');
  document.body.setAttribute('data-errors', String(window.__errors.length));
  document.body.setAttribute('data-instance-a', String(n('svg .instance-a')));
  document.body.setAttribute('data-instance-b', String(n('svg .instance-b')));
  var a = document.querySelector('svg .instance-a rect');
  document.body.setAttribute('data-a-width', a ? String(a.getBoundingClientRect().width) : '0');
});
</script>"""


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed (CI must install it: .ci/run does with apt-get)")
    pytest.skip("chromium is not installed (apt-get install chromium); CI runs this test")


def _run(browser, tmp_path, *args) -> subprocess.CompletedProcess:
    cmd = [browser, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--no-first-run",
           "--disable-extensions", f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
           "--v=0", *args]
    env = {**os.environ, "HOME": str(tmp_path)}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env)


def test_report_renders_in_headless_chromium(cases_dir, tmp_path, capsys, record_property):
    browser = _chromium()
    results = []
    for name in CASES:
        path = cases_dir / name
        merged = file_report_json(verify_program(parse_file(path), filename=name), name)
        assert merged["verdict"] == "illegal"
        results.append((name, path.read_text(), merged))
    page = render_html(results)
    report = tmp_path / "report.html"
    report.write_text(page, encoding="utf-8")
    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("</head>", PROBE + "</head>", 1), encoding="utf-8")

    dom = _run(browser, tmp_path, "--virtual-time-budget=5000", "--dump-dom", probed.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body[^>]*>", dom.stdout)
    assert body, dom.stdout[:500]
    attrs = dict(re.findall(r'(data-[\w-]+)="([^"]*)"', body.group(0)))
    assert attrs.get("data-probe") == "loaded", body.group(0)
    assert attrs["data-errors"] == "0"
    # the marked instances are in the rendered DOM: A in all three refutations, B in the two
    # that have a second instance; the marks have a real size on the page
    assert int(attrs["data-instance-a"]) >= 3 and int(attrs["data-instance-b"]) >= 2
    assert float(attrs["data-a-width"]) > 5
    assert dom.stdout.count('class="refutation"') == 3
    assert 'class="instance-a"' in dom.stdout and 'class="instance-b"' in dom.stdout
    console = [ln for ln in dom.stderr.splitlines() if "CONSOLE" in ln or "Uncaught" in ln]
    assert not console, console

    shot = tmp_path / "report.png"
    res = _run(browser, tmp_path, f"--screenshot={shot}", "--window-size=1400,2600", report.as_uri())
    assert res.returncode == 0, res.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000  # a rendered page, not a blank one
    assert not [ln for ln in res.stderr.splitlines() if "CONSOLE" in ln or "Uncaught" in ln]
    record_property("screenshot", str(shot))
    with capsys.disabled():  # shown in the test output even without -s (not under xdist)
        print(f"\nscreenshot of the HTML report: {shot}")


def test_missing_chromium_skips_locally_and_fails_under_ci(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        _chromium()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception):
        _chromium()
