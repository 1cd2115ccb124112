"""tensorize i, j, k [simd=W]: a tensor-core block over a lane loop.

Recognized: the perfect serial nest `for i in 0 .. M { for j in 0 .. N { for k in 0 .. K {
d[..., I0 + i, J0 + j] += a[..., A0 + i, A1 + k] * b[..., B0 + k, B1 + j] } } }` (plain `+=`
or `fma(a, b, d)`; M, N, K constants; each operand's tile on its last two axes with unit
coefficients, the bases and the leading components free of i, j, k). A transposed layout
(a[.., k, i], b[.., j, k], d[.., j, i]) is a precondition failure (v1, as in the seed).

Result: `for lane in 0 .. W : thread.x { tensor_core lane (M, N, K) { <the original nest> } }`
(thread.y/z when an enclosing loop already has thread.x; none free is a precondition failure;
the lane name is `lane`, made fresh). A TensorCore means exactly its fallback run by lane 0:
the interpreter, the C emitter (codegen/c.py, inherited by codegen/gpu_lowering.py and so by
the emulator) render `if (lane == 0) { fallback }`, and the polyhedral model walks the
fallback under the guard `lane == 0`, so the driver's generic coverage, dependence and
in_bounds see the fallback statements with their provenance. The CUDA backend renders a
WMMA-shaped block as the intrinsic (codegen/cuda_mma.py, a backend: it decides rendering,
never legality).

The op is this folder: `apply.py` (the record `Tensorize`, `tile` recognizing the micro-kernel, `apply`)
and `proofs.py` (its goals, which import apply's helpers; apply imports nothing back);
`draw.py` is the fuzzer's strategy. Goals
(besides the generic ones): `equivalence` - the tensor-core contraction built from the
block's shape and the operands' bases adds the same terms, with multiplicity, as the fallback
(polyhedral/contraction.py over two small kernels); `race` - no two lanes of the lane loop
write a cell another lane accesses (an isl emptiness goal whose witness is the two
instances); `profile` - under `reproducible`, a block the CUDA backend would render as WMMA
(unspecified summation order) is refused (a structural goal).
"""
from __future__ import annotations

from .apply import OWN_REASSOCIATES, RECORD, THREADS, Tensorize, Tile, apply, tile
from .draw import FUZZ_WEIGHT, draw_applicable, draw_recipe, possible
from .proofs import obligations
from ..spec import ALL_GENERIC, OpSpec

__all__ = ["FUZZ_WEIGHT", "OWN_REASSOCIATES", "RECORD", "THREADS", "Tensorize", "Tile", "apply", "draw_applicable",
           "draw_recipe", "obligations", "possible", "tile"]


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=ALL_GENERIC,
              own_reassociates=OWN_REASSOCIATES, exact_rounding=False, structural=True, fuzz_weight=FUZZ_WEIGHT,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=None, by_name_weight=0,
              draw_recipe=draw_recipe, exact_at=None,
              claim_goals=None)
