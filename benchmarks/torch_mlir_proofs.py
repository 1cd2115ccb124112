"""Proving the torch-mlir (direct lowering) and iree-turbine lowerings of convolution backward
(the committed fixtures of tests/fixtures/mlir) equal to the chain-rule reference, per
frontend, configuration and gradient, under the finite profile the `--against` file declares
and under `default`. Prints a table (verdict, CPU seconds of the claim, whether the
finite-input assumption was used).

    python benchmarks/torch_mlir_proofs.py [--profiles finite,default] [--frontends torch-mlir,iree-turbine]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_mlir_conv_proofs import CONVS, conv_program  # noqa: E402

from verified_sched.verify.driver import verify_claim  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profiles", default="finite,default")
    ap.add_argument("--frontends", default="torch-mlir,iree-turbine")
    args = ap.parse_args()
    print(f"{'frontend':14}{'configuration':14}{'gradient':9}{'profile':9}{'verdict':9}{'cpu s':>7}  assumption")
    for frontend in args.frontends.split(","):
        stem = "turbine" if frontend == "iree-turbine" else "torch_mlir"
        for name in CONVS:
            program = conv_program(name, frontend)
            for grad in ("input", "weight"):
                claim = next((c for c in program.claims if c.a == f"{stem}_{grad}_grad"), None)
                if claim is None:
                    print(f"{frontend:14}{name:14}{grad:9}{'-':9}{'-':9}{'':>7}  not imported (refused or mis-lowered)")
                    continue
                for profile in args.profiles.split(","):
                    t = time.process_time()
                    rep = verify_claim(program, claim, profile, 600.0)
                    dt = time.process_time() - t
                    used = any("assuming finite inputs" in o.message for o in rep.obligations)
                    print(f"{frontend:14}{name:14}{grad:9}{profile:9}{rep.verdict:9}{dt:7.2f}  "
                          f"{'finite inputs' if used else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
