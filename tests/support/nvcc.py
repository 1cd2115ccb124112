"""nvcc's compile-only check of emitted CUDA (the GPU tests; skipped where nvcc is missing)."""
from __future__ import annotations

import subprocess
from pathlib import Path

from codegen.cuda import NVCC_FLAGS, nvcc
from verified_sched.core.errors import UsageError


def compile_cuda(source: str, out_dir, flags=NVCC_FLAGS, what: str = "-c") -> subprocess.CompletedProcess:
    """Compile-only check (`-c`, `-ptx` or `-cubin`) with `-Xptxas -v`: returns the process
    (stderr holds the ptxas resource report). Raises UsageError when nvcc is missing."""
    tool = nvcc()
    if tool is None:
        raise UsageError("nvcc not found: install the CUDA toolkit to compile the CUDA backend")
    src = Path(out_dir) / "kernel.cu"
    src.write_text(source)
    suffix = {"-c": "o", "-ptx": "ptx", "-cubin": "cubin"}[what]
    cmd = [tool, *flags, "-Xptxas", "-v", what, str(src), "-o", str(Path(out_dir) / f"kernel.{suffix}")]
    return subprocess.run(cmd, capture_output=True, text=True, check=False)
