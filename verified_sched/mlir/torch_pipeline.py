"""`vsched conv-backward ... --against FRONTEND -o FILE` (its command line is
`cli/conv_backward.py`): the seed compiler pipeline (torch -> a torch frontend's
linalg on tensors -> IREE) beside the proved kernels.

The file holds everything `vsched conv-backward` writes (forward, chain-rule references,
direct kernels, their claims) plus, per gradient, the frontend's lowering of
`aten.convolution_backward` restricted to that gradient (torch_export.FRONTENDS: `torch-mlir`,
its direct lowering; `torch-mlir-decomposed`, the default path that mis-lowers groups;
`iree-turbine`), imported as kernel `STEM_input_grad` / `STEM_weight_grad` (STEM `torch_mlir`
or `turbine`; reading dy, x, w and writing dx / dw; its intermediate tensors are `local`, so
they are not part of what a claim compares) and `claim STEM_<g>_grad == <g>_grad_reference`,
under `profile finite` (the lowering adds terms that read cells known to hold 0; dropping them
is exact only for finite inputs). A lowering the importer refuses (say a `tensor.cast` between
different static shapes) is left out with the reason in a comment and on stderr, and the
command exits 1 (a finding about the lowering).

With `-o FILE`, each exported lowering is kept beside it as `FILE.STEM_<grad>.mlir` (the
positions of a refusal refer to it). Two comment lines record the convolution (`# against:
FRONTEND` and `# conv: ...`), so that `vsched run FILE --target iree` can print the numerics
report (numerics.py).
"""
from __future__ import annotations

from verified_sched.dsl.parser import parse_text
from verified_sched.core.printer import print_kernel
from verified_sched.core.errors import VschedError
from verified_sched.generators.conv_backward import Conv, make_conv

from .importer import Importer
from .torch_export import FRONTENDS, STEM, export_mlir
TENSOR_NAMES = ("x", "w", "dy", "y", "dx", "dw", "db")


def conv_line(cv: Conv) -> str:
    h, w = cv.ah, cv.aw
    return (f"# conv: x={cv.n},{h.size},{w.size},{cv.c} w={cv.f},{h.k},{w.k},{cv.cg} layout={cv.layout} "
            f"stride={h.s},{w.s} padding={h.p},{w.p} dilation={h.d},{w.d} groups={cv.groups}")


def parse_against(text: str) -> tuple | None:
    """(convolution, frontend) of a file written with --against FRONTEND, else None."""
    frontend = next((line[len("# against: "):].split()[0] for line in text.splitlines()
                     if line.startswith("# against: ")), None)
    if frontend not in FRONTENDS:
        return None
    for line in text.splitlines():
        if line.startswith("# conv: "):
            kv = dict(item.split("=", 1) for item in line[len("# conv: "):].split())
            return make_conv(kv["x"].split(","), kv["w"].split(","), kv["layout"], kv["stride"],
                             kv["padding"], kv["dilation"], int(kv["groups"]), ("input", "weight")), frontend
    return None


def imported_kernel(source: str, grad: str, filename: str = "", frontend: str = "torch-mlir") -> tuple:
    """(tensor lines, kernel text) of a frontend's lowering of one gradient (function
    @conv_backward(dy, x, w) -> dx or dw)."""
    out = {"input": "dx", "weight": "dw"}[grad]
    kernel = f"{STEM[frontend]}_{grad}_grad"
    imp = Importer(source, filename or f"<{frontend} {grad} gradient>", params=False,
                   bind={"conv_backward": (["dy", "x", "w"], [out], kernel)},
                   prefix=f"{'tb' if frontend == 'iree-turbine' else 'tm'}_{grad[0]}_", memory="local", reserved=TENSOR_NAMES)
    imp.translate()
    return imp.tensor_lines(), print_kernel(imp.kernels[0])


WHAT = {"torch-mlir": "torch-mlir's direct lowering (backend_legal_ops)",
        "torch-mlir-decomposed": "torch-mlir's default path (DecomposeComplexOps)",
        "iree-turbine": "iree-turbine and IREE's torch input pipeline"}


def against_torch_mlir_text(cv: Conv, base: str, source_for=None, save: str | None = None,
                            frontend: str = "torch-mlir") -> tuple:
    """(file text, [refusal messages]); `source_for(grad)` gives the MLIR of one gradient's
    lowering (default: export it with `frontend` now); with `save`, each lowering is also
    written to `SAVE.STEM_<grad>.mlir`, the file error positions refer to."""
    source_for = source_for or (lambda grad: export_mlir(cv, grads=(grad,), frontend=frontend))
    stem = STEM[frontend]
    lines = [base.rstrip("\n"), "",
             f"# against: {frontend} (aten.convolution_backward lowered to linalg on tensors by {WHAT[frontend]},",
             f"# imported by `vsched conv-backward --against {frontend}`)", conv_line(cv), "",
             "# The lowering sums terms that read cells known to hold 0 (zero fill, pad zone, the gaps of",
             "# a strided insert_slice): 0 * y is 0 only for finite y, so the claims are proved under the",
             "# finite-input assumption (verified_sched/values/finite_zero.py); `--profile default` does not drop them.",
             "profile finite", ""]
    refused = []
    for grad in ("input", "weight"):
        if grad not in cv.grads:
            continue
        try:
            source = source_for(grad)
            name = ""
            if save:
                name = f"{save}.{stem}_{grad}.mlir"
                with open(name, "w", encoding="utf-8") as fh:
                    fh.write(source)
            tensors, kernel = imported_kernel(source, grad, name, frontend)
        except VschedError as e:
            message = f"{stem}_{grad}_grad not imported: {e}"
            refused.append(message)
            lines += [f"# {message}", ""]
            continue
        lines += tensors + ["", kernel.rstrip("\n"), f"claim {stem}_{grad}_grad == {grad}_grad_reference", ""]
    text = "\n".join(lines) + "\n"
    parse_text(text, f"<conv-backward --against {frontend}>")  # the file must be well formed
    return text, refused
