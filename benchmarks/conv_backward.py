"""conv-backward: emitted C of the direct gradient kernels vs PyTorch CPU, and proof time.

The shape is a scaled-down member of the reference convolution family (16x48x32x288 NHWC, 288x3x3x96,
stride 2, padding 1, groups 3): N, H, W, C, F divided by --scale (default 4: x 4x12x8x72,
w 72x3x3x24). The file is emitted
with N, H, W symbolic (the file that is proved) and run at those sizes through `load_c`.
PyTorch runs torch.nn.grad.conv2d_input / conv2d_weight on NCHW copies (the permutes are not
timed), single-threaded like the emitted C. The direct kernels are scalar, unscheduled nests
(the guards of the zero-inserted dy sit on the leaf), so this measures the reference lowering
before any schedule, not a tuned kernel.

Run: `.venv/bin/python benchmarks/conv_backward.py [--scale 4] [--repeat 3] [--layout nhwc]`.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegen.build import load_c  # noqa: E402
from verified_sched.analysis.full_tiles import full_tiles  # noqa: E402
from verified_sched.dsl import parse_text  # noqa: E402
from verified_sched.generators.conv_backward import conv_backward_dsl  # noqa: E402

NCHW = (0, 3, 1, 2)
OUTPUT = {"forward": "y", "input_grad": "dx", "weight_grad": "dw", "bias_grad": "db"}


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def torch_runs(xa, wa, dya, stride, padding, groups):
    """name -> (callable, logical NHWC result getter); None when torch is absent."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    xt, wt, dyt = (torch.from_numpy(np.ascontiguousarray(a.transpose(NCHW))) for a in (xa, wa, dya))
    kw = dict(stride=stride, padding=padding, groups=groups)
    return {
        "forward": lambda: torch.nn.functional.conv2d(xt, wt, **kw),
        "input_grad": lambda: torch.nn.grad.conv2d_input(tuple(xt.shape), wt, dyt, **kw),
        "weight_grad": lambda: torch.nn.grad.conv2d_weight(xt, tuple(wt.shape), dyt, **kw),
        "bias_grad": lambda: dyt.sum(dim=(0, 2, 3)),
    }


def verify_time(program, timeout: float):
    """Seconds to prove every claim with N, H, W symbolic, and the verdicts (or why not)."""
    try:
        from verified_sched.verify.driver import verify_program
    except ImportError as err:
        return None, f"prover unavailable ({err})"
    start = time.perf_counter()
    reports = verify_program(program, timeout=timeout, filename="conv_backward.vs")
    seconds = time.perf_counter() - start
    verdicts = sorted({r.to_json()["verdict"] for r in reports})
    return seconds, ",".join(verdicts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=4, help="divide the seed's N, H, W, C, F by this")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--layout", default="nhwc", choices=("nhwc", "nchw"))
    ap.add_argument("--timeout", type=float, default=60.0, help="prover timeout per obligation")
    args = ap.parse_args(argv)
    n, h, w, c = 16 // args.scale, 48 // args.scale, 32 // args.scale, 288 // args.scale
    groups, stride, padding = 3, (2, 2), (1, 1)
    f, cg = c, c // groups
    text = conv_backward_dsl(("N", "H", "W", c), (f, 3, 3, cg), args.layout, stride, padding, 1, groups)
    program = parse_text(text, "conv_backward.vs")
    start = time.perf_counter()
    module = load_c(program, split=full_tiles)
    build_s = time.perf_counter() - start

    oh, ow = (h + 2 - 2 - 1) // 2 + 1, (w + 2 - 2 - 1) // 2 + 1
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((n, h, w, c)).astype(np.float32)
    wa = rng.standard_normal((f, 3, 3, cg)).astype(np.float32)
    dya = rng.standard_normal((n, oh, ow, f)).astype(np.float32)
    store = (lambda a: np.ascontiguousarray(a if args.layout == "nhwc" else a.transpose(NCHW)))
    arrays = {"x": store(xa), "w": store(wa), "dy": store(dya), "y": store(np.zeros_like(dya)),
              "dx": store(np.zeros_like(xa)), "dw": store(np.zeros_like(wa)),
              "db": np.zeros((f,), np.float32)}
    sizes = {"N": n, "H": h, "W": w}
    torch_fns = torch_runs(xa, wa, dya, stride, padding, groups)

    print(f"conv-backward, layout {args.layout}: x {n}x{h}x{w}x{c}, w {f}x3x3x{cg}, stride 2, "
          f"padding 1, groups {groups} (reference family / {args.scale}); C build {build_s:.2f} s")
    print(f"{'kernel':<12} {'emitted C ms':>13} {'torch ms':>10} {'C / torch':>10} {'max |diff|':>11}")
    for kernel, out in OUTPUT.items():
        c_s = best(lambda: module.run(kernel, sizes, arrays), args.repeat)
        got = arrays[out]
        if got.ndim == 4 and args.layout == "nchw":
            got = got.transpose(0, 2, 3, 1)
        if torch_fns is None:
            print(f"{kernel:<12} {c_s * 1e3:>13.2f} {'n/a':>10} {'n/a':>10} {'n/a':>11}")
            continue
        t_s = best(torch_fns[kernel], args.repeat)
        ref = torch_fns[kernel]().numpy()
        ref = ref.transpose(0, 2, 3, 1) if ref.ndim == 4 else ref
        diff = float(np.max(np.abs(got - ref)))
        print(f"{kernel:<12} {c_s * 1e3:>13.2f} {t_s * 1e3:>10.2f} {c_s / t_s:>10.1f} {diff:>11.2e}")
    seconds, verdict = verify_time(program, args.timeout)
    shown = "n/a" if seconds is None else f"{seconds:.2f} s"
    print(f"verify (N, H, W symbolic, {len(program.claims)} claims): {shown}  [{verdict}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
