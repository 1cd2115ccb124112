"""tensorize under the profiles: may the block's intrinsic reorder its sums?

A tensor-core block means its scalar fallback run by lane 0, and the interpreter, C and the
emulator run exactly that. The CUDA backend renders the block as WMMA when codegen.cuda_mma's
rule matches (f16/bf16 operands, f32 target, shape multiples of 16, a one-warp thread.x lane
loop), and WMMA's summation order inside a fragment is unspecified. So:

- `reproducible`: a block that CUDA would render as WMMA is refuted (kind `profile`); a block
  no backend renders as an intrinsic runs the exact fallback everywhere and is proved.
- `default` / `approximate`: allowed; a WMMA-eligible block sets the `reassociates` flag
  (the reassociation license covers the unspecified order: `vsched run` compares within
  tolerance), an ineligible one does not.
"""
from __future__ import annotations

from verified_sched.obligations import Decided
from .tensorize import find_block

STATEMENT = ("the tensor-core block runs its scalar fallback's summation order on every backend, "
             "or the profile licenses the intrinsic's unspecified order")


def _wmma(ctx) -> bool:
    from codegen import cuda_mma  # the one rule deciding whether CUDA emits the intrinsic

    kernel = ctx.after.kernel(ctx.kernel)
    site = find_block(kernel, ctx.op.i)
    if site is None:
        return False
    tc = site.stmt
    lane_loop = next((lp for lp in site.loops if lp.var == tc.lane), None)
    return cuda_mma.match(ctx.after, tc, lane_loop) is not None


def _sizes(program) -> dict:
    from ..errors import UsageError
    from ..sizes import example_sizes

    try:
        return example_sizes(program, 1)[0]
    except UsageError:
        return {}


def profile(ctx):
    wmma = _wmma(ctx)
    if not wmma:
        return (Decided(
            "proved", "no backend renders this block as an intrinsic (not a WMMA shape): every backend "
                      "runs the exact scalar fallback", STATEMENT, engine="structural"))
    if ctx.profile == "reproducible":
        return (Decided(
            "refuted", "the CUDA backend renders this block as WMMA (f16/bf16 x f32, 16-multiple shape, "
                       "one-warp lane loop), whose summation order is unspecified: refused under the "
                       "reproducible profile (replays on a GPU: vsched run --target cuda)",
            STATEMENT, {"params": _sizes(ctx.before), "profile": "reproducible", "backend": "cuda"},
            engine="structural"))
    return (Decided(
        "proved", f"WMMA on CUDA reorders the block's sums (allowed by the {ctx.profile} profile)",
        STATEMENT, reassociates=True, engine="structural"))
