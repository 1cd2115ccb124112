"""conv-backward against PyTorch (optional extra, torch==2.13.0): the direct kernels' gradients
equal torch.nn.grad.conv2d_input / conv2d_weight and grad_output summed for the bias, in both
layouts, including a scaled-down member of the seed's shape family (16x48x32x288 NHWC,
288x3x3x96, stride 2, padding 1, groups 3). Skipped cleanly when torch is not installed.
"""
from __future__ import annotations

import numpy as np
import pytest

from verified_sched.dsl import parse_text
from verified_sched.generators import conv_backward as cb

torch = pytest.importorskip("torch")

NCHW = (0, 3, 1, 2)


def emitted(layout, x, w, stride, padding, dilation, groups, at, xa, wa, dya):
    """Run forward and the three direct kernels on logical NHWC arrays; return logical NHWC."""
    from codegen.build import load_c

    program = parse_text(cb.conv_backward_dsl(x, w, layout, stride, padding, dilation, groups))
    store = (lambda a: np.ascontiguousarray(a if layout == "nhwc" else a.transpose(NCHW)))
    arrays = {"x": store(xa), "w": store(wa), "dy": store(dya), "y": np.full_like(store(dya), np.nan),
              "dx": np.full_like(store(xa), np.nan), "dw": np.full_like(store(wa), np.nan),
              "db": np.full((wa.shape[0],), np.nan, np.float32)}
    module = load_c(program)
    sizes = {p: at[p] for p in program.params}
    for kernel in ("forward", "input_grad", "weight_grad", "bias_grad"):
        module.run(kernel, sizes, arrays)
    back = (lambda a: a if layout == "nhwc" else a.transpose(0, 2, 3, 1))
    return {k: (back(v) if v.ndim == 4 else v) for k, v in arrays.items()}


def from_torch(xa, wa, dya, stride, padding, dilation, groups):
    """Forward and gradients by PyTorch (NCHW, float64) returned in logical NHWC."""
    xt = torch.from_numpy(xa.transpose(NCHW).astype(np.float64))
    wt = torch.from_numpy(wa.transpose(NCHW).astype(np.float64))
    dyt = torch.from_numpy(dya.transpose(NCHW).astype(np.float64))
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    y = torch.nn.functional.conv2d(xt, wt, **kw)
    dx = torch.nn.grad.conv2d_input(tuple(xt.shape), wt, dyt, **kw)
    dw = torch.nn.grad.conv2d_weight(xt, tuple(wt.shape), dyt, **kw)
    db = dyt.sum(dim=(0, 2, 3))
    nhwc = (lambda t: t.numpy().transpose(0, 2, 3, 1))
    return {"y": nhwc(y), "dx": nhwc(dx), "dw": nhwc(dw), "db": db.numpy()}


CASES = [
    # layout, (N, H, W, C), (F, KH, KW, CG), stride, padding, dilation, groups
    ("nhwc", (2, 12, 8, 12), (12, 3, 3, 4), (2, 2), (1, 1), (1, 1), 3),  # the seed, scaled down
    ("nchw", (2, 12, 8, 12), (12, 3, 3, 4), (2, 2), (1, 1), (1, 1), 3),
    ("nhwc", (1, 7, 6, 6), (4, 3, 2, 3), (3, 2), (2, 0), (2, 1), 2),  # non-dividing strides
    ("nhwc", (1, 5, 6, 3), (3, 1, 3, 1), (2, 1), (1, 3), (1, 1), 3),  # p' = -1 and -1
    ("nchw", (2, 6, 5, 4), (6, 3, 3, 2), (1, 3), (3, 1), (1, 2), 2),  # p' < 0 in h
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_direct_kernels_match_torch(case):
    layout, xs, ws, s, p, d, g = CASES[case]
    rng = np.random.default_rng(100 + case)
    oh = (xs[1] + 2 * p[0] - d[0] * (ws[1] - 1) - 1) // s[0] + 1
    ow = (xs[2] + 2 * p[1] - d[1] * (ws[2] - 1) - 1) // s[1] + 1
    xa = rng.standard_normal(xs).astype(np.float32)
    wa = rng.standard_normal(ws).astype(np.float32)
    dya = rng.standard_normal((xs[0], oh, ow, ws[0])).astype(np.float32)
    want = from_torch(xa, wa, dya, s, p, d, g)
    # N, H, W symbolic (the file a user proves), run at the case's sizes
    at = {"N": xs[0], "H": xs[1], "W": xs[2]}
    got = emitted(layout, ("N", "H", "W", xs[3]), ws, s, p, d, g, at, xa, wa, dya)
    for name in ("y", "dx", "dw", "db"):
        assert np.any(want[name] != 0)
        np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-4, err_msg=name)


def test_seed_shape_all_numbers_matches_torch():
    """The same scaled seed member with every size a number (no params in the file)."""
    xs, ws = (1, 10, 6, 6), (6, 3, 3, 2)
    rng = np.random.default_rng(7)
    xa = rng.standard_normal(xs).astype(np.float32)
    wa = rng.standard_normal(ws).astype(np.float32)
    dya = rng.standard_normal((1, 5, 3, 6)).astype(np.float32)
    want = from_torch(xa, wa, dya, (2, 2), (1, 1), (1, 1), 3)
    got = emitted("nhwc", xs, ws, 2, 1, 1, 3, {}, xa, wa, dya)
    for name in ("dx", "dw", "db"):
        np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-4, err_msg=name)
