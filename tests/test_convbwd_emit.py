"""conv-backward (README "Convolution backward"): the emitted file parses, is well formed, has
the contract's names and shape, and its direct kernels compute the chain-rule gradients.

The numpy reference below is written from the DEFINITION (forward convolution over output
positions, gradients by the chain rule, groups by slicing), independently of the emitted code.
Kernels run through the C backend (the grid) and the IR interpreter (random configurations),
with poisoned outputs.
"""
from __future__ import annotations

import argparse
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.core.errors import UsageError
from verified_sched.generators import conv_backward as cb
from verified_sched.cli import conv_backward as conv_backward_cli

KERNELS = {"forward": "y", "input_grad": "dx", "input_grad_reference": "dx", "weight_grad": "dw",
           "weight_grad_reference": "dw", "bias_grad": "db", "bias_grad_reference": "db"}


# ---------------------------------------------------------------- the numpy reference


def out_extent(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def reference(x, w, dy, stride, padding, dilation, groups):
    """y, dx, dw, db (float64, logical NHWC / FHWC / NHWF) of a grouped 2-D convolution."""
    x, w, dy = (a.astype(np.float64) for a in (x, w, dy))
    n, hh, ww, c = x.shape
    f, kh_, kw_, cg = w.shape
    fg = f // groups
    oh_, ow_ = dy.shape[1:3]
    y, dx, dw = np.zeros(dy.shape), np.zeros(x.shape), np.zeros(w.shape)
    for oh, ow, kh, kw in itertools.product(range(oh_), range(ow_), range(kh_), range(kw_)):
        ih = stride[0] * oh + dilation[0] * kh - padding[0]
        iw = stride[1] * ow + dilation[1] * kw - padding[1]
        if not (0 <= ih < hh and 0 <= iw < ww):
            continue  # a padding cell: zero input, no gradient
        for g in range(groups):
            cs, fs = slice(g * cg, (g + 1) * cg), slice(g * fg, (g + 1) * fg)
            xs, ws, dys = x[:, ih, iw, cs], w[fs, kh, kw, :], dy[:, oh, ow, fs]
            y[:, oh, ow, fs] += xs @ ws.T  # y[n, f] += x[n, c] w[f, c]
            dx[:, ih, iw, cs] += dys @ ws  # d/dx of the same term
            dw[fs, kh, kw, :] += dys.T @ xs  # d/dw of the same term
    return {"y": y, "dx": dx, "dw": dw, "db": dy.sum(axis=(0, 1, 2))}


def stored(a, layout):
    """Logical NHWC-like array -> storage order of the layout (db is 1-D either way)."""
    if layout == "nhwc" or a.ndim == 1:
        return np.ascontiguousarray(a)
    return np.ascontiguousarray(a.transpose(0, 3, 1, 2))


# ---------------------------------------------------------------- running emitted kernels


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def run_config(layout, x, w, stride=1, padding=0, dilation=1, groups=1, at=None, backend="c",
               seed=0, kernels=tuple(KERNELS), program=None):
    """Emit, parse and run `kernels` at the concrete sizes `at` (symbol -> int); compare with
    the numpy reference. Returns the program (so callers can reuse it)."""
    at = at or {}
    if program is None:
        program = parse_text(cb.conv_backward_dsl(x, w, layout, stride, padding, dilation, groups),
                             f"conv_{layout}.vs")
    xs = tuple(at.get(v, v) for v in x)
    ws = tuple(at.get(v, v) for v in w)
    s, p, d = pair(stride), pair(padding), pair(dilation)
    oh = out_extent(xs[1], ws[1], s[0], p[0], d[0])
    ow = out_extent(xs[2], ws[2], s[1], p[1], d[1])
    rng = np.random.default_rng(seed)
    xa = rng.standard_normal(xs).astype(np.float32)
    wa = rng.standard_normal(ws).astype(np.float32)
    dya = rng.standard_normal((xs[0], oh, ow, ws[0])).astype(np.float32)
    want = reference(xa, wa, dya, s, p, d, groups)
    arrays = {"x": stored(xa, layout), "w": stored(wa, layout), "dy": stored(dya, layout)}
    for name, shape in (("y", dya.shape), ("dx", xs), ("dw", ws), ("db", (ws[0],))):
        arrays[name] = stored(np.zeros(shape, np.float32), layout)
    declared = {t.name for t in program.tensors}
    arrays = {k: v for k, v in arrays.items() if k in declared}
    sizes = {name: at[name] for name in program.params}
    if backend == "c":
        from codegen.build import load_c

        runner = load_c(program).run
    else:
        from verified_sched.interp.interpreter import run_kernel

        def runner(kernel, sizes, arrays):
            run_kernel(program, kernel, sizes, arrays)
    results = {}
    for kernel in kernels:
        out = KERNELS[kernel]
        if out not in arrays:
            continue
        arrays[out][...] = np.nan  # poison: a cell the kernel forgets stays NaN
        runner(kernel, sizes, arrays)
        expect = stored(want[out], layout)
        assert np.any(expect != 0), f"{kernel}: vacuous comparison (all-zero reference)"
        np.testing.assert_allclose(arrays[out], expect, rtol=1e-4, atol=1e-4, err_msg=kernel)
        results[kernel] = arrays[out].copy()
    assert len(results) >= 3
    # the direct kernels add each cell's terms in the reference's order (the flip makes k'
    # ascending run oh ascending), so they agree BITWISE with the chain-rule references
    for kernel in ("input_grad", "weight_grad", "bias_grad"):
        if kernel in results and kernel + "_reference" in results:
            assert np.array_equal(results[kernel], results[kernel + "_reference"]), kernel
    return program


# (layout, x, w, stride, padding, dilation, groups, [size points]) -- N, H, W symbolic mostly.
# Remarks: "p'<0" negative effective padding d(K-1) - p; "rem" stride leaves a remainder in
# H + 2p - d(K-1) - 1.
GRID = [
    ("nhwc", ("N", "H", "W", 2), (3, 3, 3, 2), 1, 1, 1, 1, [(1, 5, 4), (2, 3, 6)]),
    ("nhwc", ("N", "H", "W", 4), (4, 3, 3, 2), 2, 1, 1, 2, [(1, 7, 6), (2, 4, 5)]),  # rem
    ("nchw", ("N", "H", "W", 4), (4, 3, 3, 2), 2, 1, 1, 2, [(1, 7, 6), (1, 6, 5)]),  # rem
    ("nhwc", ("N", "H", "W", 3), (3, 3, 2, 1), 3, 2, 2, 3, [(1, 8, 5), (2, 5, 7)]),  # rem
    ("nchw", ("N", "H", "W", 3), (6, 3, 2, 1), 3, 2, 2, 3, [(1, 8, 5)]),
    ("nhwc", ("N", "H", "W", 3), (6, 1, 1, 3), 2, 0, 1, 1, [(2, 5, 4)]),  # 1x1, p' = 0
    ("nhwc", ("N", "H", "W", 2), (2, 1, 1, 2), 2, 1, 1, 1, [(1, 4, 3), (1, 5, 5)]),  # p'<0
    ("nchw", ("N", "H", "W", 2), (4, 1, 1, 1), 3, 2, 2, 2, [(1, 4, 6)]),  # p'<0, groups
    ("nhwc", ("N", "H", "W", 2), (2, 1, 3, 2), (1, 2), (0, 1), (1, 2), 1, [(1, 3, 7), (1, 2, 6)]),
    ("nchw", ("N", "H", "W", 3), (3, 1, 3, 1), (3, 1), (0, 2), (2, 1), 3, [(1, 5, 4)]),
    ("nhwc", ("N", "H", "W", 2), (2, 3, 3, 2), 2, 3, 1, 1, [(1, 4, 4), (1, 5, 3)]),  # p'<0
    ("nchw", ("N", "H", "W", 2), (2, 3, 3, 2), 1, 2, 1, 1, [(1, 3, 4)]),  # p' = 0
    ("nhwc", ("N", "H", "W", 6), (6, 3, 3, 2), 2, 1, 2, 3, [(1, 6, 7)]),  # dilation, rem
    ("nhwc", ("N", "H", "W", 2), (2, 3, 2, 2), (2, 3), (2, 0), (2, 1), 1, [(2, 6, 5)]),
    ("nhwc", ("N", "H", "W", "C"), ("F", "KH", "KW", "C"), 2, 1, 1, 1,
     [(1, 5, 6, 2, 3, 3, 2), (1, 4, 4, 1, 2, 1, 3)]),  # symbolic channels and kernel
    ("nchw", (2, 5, 4, 3), (3, 3, 3, 3), 2, 1, 1, 1, [()]),  # all numbers: no params
]
SYMBOLS = ("N", "H", "W", "C", "F", "KH", "KW")


@pytest.mark.parametrize("case", range(len(GRID)))
def test_grid_direct_kernels_match_numpy(case):
    layout, x, w, s, p, d, g, points = GRID[case]
    program = None
    for k, point in enumerate(points):
        at = dict(zip(SYMBOLS, point))
        program = run_config(layout, x, w, s, p, d, g, at, seed=case * 7 + k, program=program)


def test_interpreter_agrees_on_a_strided_grouped_case():
    run_config("nhwc", ("N", "H", "W", 4), (4, 3, 2, 2), (2, 3), (1, 2), (2, 1), 2,
               {"N": 1, "H": 6, "W": 5}, backend="interp", kernels=("input_grad", "weight_grad", "bias_grad"))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_configurations_match_numpy(data):
    draw = data.draw
    layout = draw(st.sampled_from(cb.LAYOUTS))
    g, cg, fg = draw(st.integers(1, 3)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    p = (draw(st.integers(0, 3)), draw(st.integers(0, 3)))
    d = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    least = [max(1, d[i] * (k[i] - 1) + 1 - 2 * p[i]) for i in range(2)]
    hw = [least[i] + draw(st.integers(0, 4)) for i in range(2)]
    at = {"N": draw(st.integers(1, 2)), "H": hw[0], "W": hw[1]}
    run_config(layout, ("N", "H", "W", g * cg), (g * fg, k[0], k[1], cg), s, p, d, g, at,
               backend="interp")


# ---------------------------------------------------------------- the file's shape


def loop_vars(kernel: ir.Kernel) -> list[str]:
    return [n.var for n in ir.walk(kernel.body) if isinstance(n, ir.For)]


def test_contract_names_and_claims():
    text = cb.conv_backward_dsl(("N", "H", "W", 6), (6, 3, 3, 2), "nhwc", 2, 1, 1, 3)
    program = parse_text(text)
    assert {t.name for t in program.tensors} == {"x", "w", "dy", "y", "dx", "dw", "db"}
    assert [k.name for k in program.kernels] == [
        "forward", "input_grad_reference", "input_grad", "weight_grad_reference", "weight_grad",
        "bias_grad_reference", "bias_grad"]
    assert [(c.a, c.b) for c in program.claims] == [
        ("input_grad", "input_grad_reference"), ("weight_grad", "weight_grad_reference"),
        ("bias_grad", "bias_grad_reference")]
    assert program.params == ("N", "H", "W")
    # the direct kernels iterate the gradient's cells outermost, reductions inside
    assert loop_vars(program.kernel("input_grad")) == ["n", "ih", "iw", "c", "kh", "kw", "fg"]
    assert loop_vars(program.kernel("weight_grad")) == ["f", "kh", "kw", "c", "n", "oh", "ow"]
    assert loop_vars(program.kernel("bias_grad")) == ["f", "n", "oh", "ow"]
    # OH written with floor, zero insertion as a guard: no extra tensor, no transpose
    assert "floor((H - 1) / 2) + 1" in text and "% 2 == 0" in text
    dims = {t.name: len(t.dims) for t in program.tensors}
    assert dims == {"x": 4, "w": 4, "dy": 4, "y": 4, "dx": 4, "dw": 4, "db": 1}


def test_nchw_layout_dims_and_loop_order():
    program = parse_text(cb.conv_backward_dsl(("N", "H", "W", "C"), ("F", 3, 1, "C"), "nchw"))
    x, w, dy = (program.tensor(n) for n in ("x", "w", "dy"))
    assert x.dims == (ir.Var("N"), ir.Var("C"), ir.Var("H"), ir.Var("W"))
    assert w.dims == (ir.Var("F"), ir.Var("C"), ir.Int(3), ir.Int(1))
    assert dy.dims[1] == ir.Var("F")
    assert loop_vars(program.kernel("input_grad")) == ["n", "c", "ih", "iw", "f", "kh", "kw"]
    assert loop_vars(program.kernel("weight_grad")) == ["f", "c", "kh", "kw", "n", "oh", "ow"]


def test_grads_subset_and_constraints():
    text = cb.conv_backward_dsl(("N", "H", "W", "C"), ("F", "KH", 3, "CG"), "nhwc", 2, 0, 2,
                                grads={"weight"})
    program = parse_text(text)
    assert [k.name for k in program.kernels] == ["forward", "weight_grad_reference", "weight_grad"]
    assert "dx" not in {t.name for t in program.tensors}
    params = "params N, H, W, C, F, KH, CG where"
    assert params in text and "C == CG" in text and "H >= 2*KH - 1" in text and "W >= 5" in text


# ---------------------------------------------------------------- arguments and the CLI


@pytest.mark.parametrize("kwargs, message", [
    (dict(x=(1, 5, 5, 4), w=(4, 3, 3, 1), groups=3), "not divisible by groups"),
    (dict(x=(1, 5, 5, 6), w=(4, 3, 3, 2), groups=3), "F = 4 is not divisible"),
    (dict(x=(1, 5, 5, 6), w=(6, 3, 3, 3), groups=3), "CG = 3 must equal C/groups"),
    (dict(x=(1, 5, 5, 6), w=(6, 3, 3, 4)), "CG = 4 must equal"),
    (dict(x=("N", "H", "W", "C"), w=(6, 3, 3, 2), groups=3), "C must be numbers"),
    (dict(x=(0, 5, 5, 1), w=(1, 3, 3, 1)), "N must be >= 1"),
    (dict(x=(1, 2, 5, 1), w=(1, 3, 3, 1)), "output H extent is empty"),
    (dict(x=(1, 5, 5, 1), w=(1, 3, 3, 1), stride=0), "stride must be >= 1"),
    (dict(x=(1, 5, 5, 1), w=(1, 3, 3, 1), padding="1,x"), "padding: expected"),
    (dict(x=(1, 5, 5, 1), w=(1, 3, 3, 1), padding=-1), "padding must be >= 0"),
    (dict(x=(1, 5, 5, 1), w=(1, 3, 3, 1), dilation=(1, 2, 3)), "dilation: expected"),
    (dict(x=(1, 5, 5, 1), w=(1, 3, 3, 1), groups=0), "groups must be a positive"),
    (dict(x=(1, 5, 5, 1), w=(1, 3, 3, 1), grads="input,bogus"), "unknown gradient bogus"),
    (dict(x=(1, 5, 5, 1), w=(1, 3, 3, 1), grads=""), "no gradient requested"),
    (dict(x=(1, 5, 5, 1), w=(1, 3, 3, 1), layout="chwn"), "layout must be one of"),
    (dict(x=("n", 5, 5, 1), w=(1, 3, 3, 1)), "not a size symbol"),
    (dict(x=(1, 5, 5), w=(1, 3, 3, 1)), "x takes four sizes"),
])
def test_bad_arguments_are_usage_errors(kwargs, message):
    with pytest.raises(UsageError, match=message):
        cb.conv_backward_dsl(**kwargs)


def cli(argv):
    parser = argparse.ArgumentParser(prog="vsched")
    conv_backward_cli.add_subparser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["conv-backward", *argv])
    return args.fn(args)


def test_cli_writes_the_file(tmp_path, capsys):
    out = tmp_path / "bwd.vs"
    rc = cli(["--x", "N,H,W,6", "--w", "6,3,2,2", "--layout", "nchw", "--stride", "2,1",
              "--padding", "1", "--dilation", "1,2", "--groups", "3", "--grads", "input,bias",
              "-o", str(out)])
    assert rc == 0
    text = out.read_text()
    assert text == cb.conv_backward_dsl(("N", "H", "W", 6), (6, 3, 2, 2), "nchw", (2, 1), 1, (1, 2), 3,
                                        ("input", "bias"))
    program = parse_text(text)
    assert [c.a for c in program.claims] == ["input_grad", "bias_grad"]
    assert capsys.readouterr().out == ""
    assert cli(["--x", "2,5,5,3", "--w", "3,3,3,3"]) == 0
    parse_text(capsys.readouterr().out)


def test_cli_usage_error_exits_2(capsys):
    assert cli(["--x", "N,H,W,5", "--w", "6,3,3,2", "--groups", "3"]) == 2
    err = capsys.readouterr().err
    assert "vsched conv-backward: error:" in err and "divisible" in err and "Traceback" not in err
