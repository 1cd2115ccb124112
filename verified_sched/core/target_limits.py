"""The target's hardware limits, one place (no imports, so the CLI can use them at start-up).

CUDA's: threads per block (1024; x, y <= 1024, z <= 64), grid extents (x < 2^31, y, z <=
65535) and the default shared memory a block may use without opting in (48 KiB,
`vsched verify --shared-limit`). `gpu_limits.hardware_limits` proves them, `codegen.cuda`
checks them at launch, `stage cooperative=W` is bounded by the threads per block.
"""
from __future__ import annotations

THREADS_PER_BLOCK = 1024
THREAD_CAPS = {"thread.x": 1024, "thread.y": 1024, "thread.z": 64}
GRID_CAPS = {"block.x": 2 ** 31 - 1, "block.y": 65535, "block.z": 65535}
SHARED_LIMIT = 48 * 1024  # bytes of shared memory per block
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i32": 4, "f64": 8}
