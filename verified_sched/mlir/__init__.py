"""MLIR linalg export (`vsched emit --target mlir`), import (`vsched import`), IREE as a backend
(`vsched run --target iree`) and the torch-mlir convolution-backward pipeline.

emit.py / emit_body.py / affine.py: a kernel as written -> func.func on tensors of linalg ops.
importer.py / import_body.py / generalize.py: linalg on tensors (parsed with xdsl) -> a .vs program.
affine_import.py / affine_values.py / affine_ops.py / affine_maps.py: affine/scf/memref MLIR -> a .vs
program (`vsched import` of memref functions); check_pass.py / cli/check_pass.py / pass_precondition.py:
`vsched check-pass`, translation validation of MLIR's loop passes for all sizes.
iree_backend.py: compile with iree-compile (llvm-cpu), run with the IREE runtime, as a runner.
torch_pipeline.py: the torch-mlir lowerings of `vsched conv-backward --against torch-mlir` (its command
line: cli/conv_backward.py), read back by the numerics report.
"""
