"""conv-backward through the `vsched` command line: `vsched verify` proves the emitted file
(exit 0, every claim legal), `vsched exec` of the direct kernels matches the numpy chain-rule
reference, and `vsched conv-backward` writes the file (once wired into cli/__init__.py).
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from test_convbwd_emit import out_extent, reference, stored
from verified_sched import cli
from verified_sched.dsl import parse_text
from verified_sched.generators import conv_backward as cb


def test_vsched_verify_proves_the_emitted_file(tmp_path, capsys):
    path = tmp_path / "bwd.vs"
    path.write_text(cb.conv_backward_dsl(("N", "H", "W", 6), (6, 3, 2, 2), "nchw", (2, 3), (1, 3),
                                         (2, 1), 3))
    assert cli.main(["verify", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    claims = [o for o in report["obligations"] if o["op"].startswith("claim ")]
    assert {o["op"] for o in claims} == {f"claim {g}_grad == {g}_grad_reference" for g in cb.GRADS}
    assert all(o["status"] == "proved" for o in claims)
    assert report["verdict"] == "legal"


@pytest.mark.parametrize("layout", cb.LAYOUTS)
def test_vsched_exec_direct_kernels_match_numpy(tmp_path, layout):
    s, p, d, g = (2, 1), (2, 0), (1, 2), 2  # p' = -2 in h, strides leave remainders
    x, w = ("N", "H", "W", 4), (4, 1, 3, 2)
    path = tmp_path / "bwd.vs"
    path.write_text(cb.conv_backward_dsl(x, w, layout, s, p, d, g))
    n, hh, ww = 2, 5, 8
    rng = np.random.default_rng(3)
    xa = rng.standard_normal((n, hh, ww, 4)).astype(np.float32)
    wa = rng.standard_normal(w).astype(np.float32)
    oh, ow = out_extent(hh, 1, s[0], p[0], d[0]), out_extent(ww, 3, s[1], p[1], d[1])
    dya = rng.standard_normal((n, oh, ow, 4)).astype(np.float32)
    want = reference(xa, wa, dya, s, p, d, g)
    ins = []
    for name, arr in (("x", xa), ("w", wa), ("dy", dya)):
        np.save(tmp_path / f"{name}.npy", stored(arr, layout))
        ins += ["--in", f"{name}={tmp_path / (name + '.npy')}"]
    for kernel, out in (("input_grad", "dx"), ("weight_grad", "dw"), ("bias_grad", "db")):
        dest = tmp_path / f"{out}.npy"
        rc = cli.main(["exec", str(path), "--kernel", kernel, "--size", f"N={n},H={hh},W={ww}",
                       *ins, "--out", f"{out}={dest}"])
        assert rc == 0
        got = np.load(dest)
        expect = stored(want[out], layout)
        assert np.any(expect != 0)
        np.testing.assert_allclose(got, expect, rtol=1e-4, atol=1e-4, err_msg=kernel)


def test_vsched_conv_backward_subcommand(tmp_path, capsys):
    out = tmp_path / "bwd.vs"
    assert cli.main(["conv-backward", "--x", "N,H,W,288", "--w", "288,3,3,96", "--stride", "2",
                     "--padding", "1", "--groups", "3", "-o", str(out)]) == 0
    program = parse_text(out.read_text())
    assert len(program.claims) == 3
    assert cli.main(["conv-backward", "--x", "N,H,W,5", "--w", "6,3,3,2", "--groups", "3"]) == 2
    assert "divisible" in capsys.readouterr().err
