"""Regenerates tests/fixtures/affine/after/: the outputs of MLIR's passes on the affine corpus
that tests/test_mlir_check_pass.py proves (`python tests/support/make_affine_after.py`, needs
iree-opt). The table is the one the test reads: (fixture, pipeline, after file)."""
from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures", "affine")

PAIRS = [
    ("stencil1d", "affine-loop-tile{tile-size=4}", "stencil1d.tile4"),
    ("matmul", "affine-loop-tile{tile-size=4}", "matmul.tile4"),
    ("sum_iter_args", "affine-loop-unroll{unroll-factor=3}", "sum_iter_args.unroll3_cleanup"),
    ("conv2d", "affine-loop-unroll{unroll-factor=3}", "conv2d.unroll3_no_cleanup"),
    ("unroll_jam_dyn", "affine-loop-unroll-jam{unroll-jam-factor=2}", "unroll_jam_dyn.unroll_jam2"),
    ("fusion_pc_static", "affine-loop-fusion", "fusion_pc_static.fusion"),
    ("fusion_pc_local_static", "affine-loop-fusion{mode=producer}", "fusion_pc_local_static.fusion_producer"),
    ("fusion_sibling_static", "affine-loop-fusion{mode=sibling}", "fusion_sibling_static.fusion_sibling"),
    ("scalrep_forward", "affine-scalrep", "scalrep_forward.scalrep"),
    ("invariant_arith", "affine-loop-invariant-code-motion", "invariant_arith.licm"),
    ("step2", "affine-loop-normalize", "step2.normalize"),
    ("linalg_matmul", "convert-linalg-to-affine-loops", "linalg_matmul.to_affine"),
    ("linalg_conv", "convert-linalg-to-affine-loops", "linalg_conv.to_affine"),
    ("linalg_stencil", "convert-linalg-to-affine-loops", "linalg_stencil.to_affine"),
]


def main() -> int:
    sys.path.insert(0, ROOT)
    from verified_sched.mlir.check_pass import run_pipeline

    os.makedirs(os.path.join(FIX, "after"), exist_ok=True)
    for src, pipeline, out in PAIRS:
        with open(os.path.join(FIX, src + ".mlir")) as fh:
            text = fh.read()
        after = run_pipeline(text, pipeline).stdout
        with open(os.path.join(FIX, "after", out + ".mlir"), "w") as fh:
            fh.write(f"// {pipeline} of {src}.mlir (iree-opt 3.13; tests/support/make_affine_after.py)\n" + after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
