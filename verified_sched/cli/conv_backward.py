"""`vsched conv-backward`: write the file of `generators/conv_backward.py` (README
"Convolution backward"); with `--against FRONTEND`, also a torch frontend's lowering of each
gradient (`mlir/torch_pipeline.py`, imported only then). Neither module imports this one.
"""
from __future__ import annotations

import argparse
import sys

from ..core.errors import UsageError, VschedError
from ..generators.conv_backward import LAYOUTS, conv_backward_dsl, make_conv


def add_subparser(subparsers) -> argparse.ArgumentParser:
    """Register `vsched conv-backward` on the CLI's subparsers; the CLI
    dispatches with `args.fn(args)` (cli.build_parser: `conv_backward_cli.add_subparser(sub)`)."""
    p = subparsers.add_parser(
        "conv-backward", help="emit direct convolution-backward nests with proved claims",
        description="Emit a DSL file with the forward convolution, the chain-rule reference and "
                    "the direct kernel of each gradient, and a claim direct == reference each. "
                    "Sizes are numbers or symbols (uppercase identifiers).")
    p.add_argument("--x", required=True, metavar="N,H,W,C", help="input sizes (logical order)")
    p.add_argument("--w", required=True, metavar="F,KH,KW,CG", help="weight sizes, CG = C/groups")
    p.add_argument("--layout", default="nhwc", choices=LAYOUTS)
    p.add_argument("--stride", default="1", metavar="S", help='"2" or "2,1" (h,w)')
    p.add_argument("--padding", default="0", metavar="P", help='"1" or "1,0" (h,w)')
    p.add_argument("--dilation", default="1", metavar="D", help='"1" or "2,1" (h,w)')
    p.add_argument("--groups", default="1", metavar="G")
    p.add_argument("--grads", default="input,weight,bias", help="subset of input,weight,bias")
    p.add_argument("-o", "--output", default=None, metavar="FILE", help="write here (default stdout)")
    p.add_argument("--against", choices=("torch-mlir", "torch-mlir-decomposed", "iree-turbine"), default=None,
                   help="also import a torch frontend's lowering of each gradient (static sizes; "
                        "verified_sched/mlir): torch-mlir's direct lowering, its default path through "
                        "DecomposeComplexOps (which mis-lowers grouped weight gradients), or iree-turbine "
                        "with IREE's torch input pipeline")
    p.set_defaults(fn=run)
    return p


def run(args) -> int:
    """Exit 0 after writing the file; 2 with `vsched conv-backward: error: ...` on bad usage."""
    if getattr(args, "against", None):
        return write_against(args)
    try:
        text = conv_backward_dsl(
            [v for v in args.x.split(",")], [v for v in args.w.split(",")], layout=args.layout,
            stride=args.stride, padding=args.padding, dilation=args.dilation, groups=args.groups,
            grads=args.grads)
    except UsageError as e:
        print(f"vsched conv-backward: error: {e}", file=sys.stderr)
        return 2
    return write_output(text, args.output)


def write_against(args) -> int:
    """`vsched conv-backward ... --against FRONTEND`: exit 0 written, 1 a lowering refused, 2 usage."""
    from ..mlir.torch_pipeline import against_torch_mlir_text  # torch-mlir and xdsl only here

    try:
        cv = make_conv(args.x.split(","), args.w.split(","), args.layout, args.stride, args.padding,
                       args.dilation, args.groups, args.grads)
        for name, v in (("N", cv.n), ("H", cv.ah.size), ("W", cv.aw.size), ("C", cv.c), ("F", cv.f),
                        ("KH", cv.ah.k), ("KW", cv.aw.k)):
            if not isinstance(v, int):
                raise UsageError(f"--against {args.against} needs static sizes ({name} = {v})")
        base = conv_backward_dsl(args.x.split(","), args.w.split(","), args.layout, args.stride,
                                 args.padding, args.dilation, args.groups, args.grads)
        save = None if args.output in (None, "-") else args.output
        text, refused = against_torch_mlir_text(cv, base, save=save, frontend=args.against)
    except OSError as e:
        print(f"vsched conv-backward: error: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    except VschedError as e:
        print(f"vsched conv-backward: error: {e}", file=sys.stderr)
        return 2
    if write_output(text, args.output):
        return 2
    for message in refused:
        print(f"vsched conv-backward: {message}", file=sys.stderr)
    return 1 if refused else 0


def write_output(text: str, output) -> int:
    """`text` to stdout (no output, or `-`) or to the file `output`: 0, or 2 with a message."""
    if output in (None, "-"):
        sys.stdout.write(text)
        return 0
    try:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as e:
        print(f"vsched conv-backward: error: cannot write {output}: {e.strerror}", file=sys.stderr)
        return 2
    return 0


def main(argv=None) -> int:
    """Stand-alone entry (`python -m verified_sched.cli.conv_backward ...`)."""
    parser = argparse.ArgumentParser(prog="vsched")
    add_subparser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
