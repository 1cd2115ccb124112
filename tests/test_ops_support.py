"""Shared helpers of the ops tests (no tests here): apply a schedule step by step with a
well-formedness check after every op, and run two versions of a kernel on identical random
inputs (outputs poisoned by the random fill, never all zeros), comparing every non-padding
cell bitwise."""
from __future__ import annotations

import numpy as np

from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.core.printer import print_kernel
from verified_sched.ops import apply_schedule
from verified_sched.analysis.sizes import eval_int

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "f16": np.float16}


def scheduled(text: str, upto: int | None = None):
    """(program before, program after, kernel name) of the first schedule in `text`."""
    program = parse_text(text)
    kernel = program.schedules[0].kernel
    return program, apply_schedule(program, kernel, upto), kernel


def show(program, kernel: str) -> str:
    return print_kernel(program.kernel(kernel))


def body_of(program, kernel: str) -> str:
    """The printed kernel without its first and last line, dedented by two."""
    lines = show(program, kernel).strip().splitlines()[1:-1]
    return "\n".join(line[2:] for line in lines)


def random_arrays(program, sizes: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for t in program.tensors:
        if t.memory not in ("global", "constant"):
            continue
        shape = tuple(eval_int(d, sizes) for d in t.storage_dims())
        if t.prec == "i32":
            out[t.name] = rng.integers(-3, 4, size=shape).astype(np.int32)
        else:
            vals = rng.integers(-8, 9, size=shape) / 4.0 + 0.125
            if t.prec == "bf16":
                from verified_sched.core.dtypes import f32_to_bf16
                out[t.name] = f32_to_bf16(vals.astype(np.float32))
            else:
                out[t.name] = vals.astype(DTYPES[t.prec])
    return out


def logical(program, name: str, arr, sizes: dict):
    t = program.tensor(name)
    return arr[tuple(slice(0, eval_int(d, sizes)) for d in t.dims)]


def run_interp(program, kernel: str, sizes: dict, seed: int = 0) -> dict:
    from verified_sched.interp.interpreter import run_kernel

    arrays = random_arrays(program, sizes, seed)
    run_kernel(program, kernel, dict(sizes), arrays, seed=seed)
    return arrays


def assert_same_results(before, after, kernel: str, sizes: dict, seed: int = 0,
                        runner=None) -> None:
    """Both programs' `kernel`, on the same random inputs, leave equal non-padding cells."""
    runner = runner or run_interp
    a = runner(before, kernel, sizes, seed)
    b = runner(after, kernel, sizes, seed)
    for name in a:
        x, y = logical(before, name, a[name], sizes), logical(after, name, b[name], sizes)
        assert x.tobytes() == y.tobytes(), (
            f"{name} differs at {sizes}:\n{x}\n{y}\n{show(after, kernel)}")


def run_c(program, kernel: str, sizes: dict, seed: int = 0) -> dict:
    from codegen.build import load_c

    arrays = random_arrays(program, sizes, seed)
    load_c(program).run(kernel, dict(sizes), arrays)
    return arrays


def sids(program, kernel: str) -> list:
    return [n.sid for n in ir.walk(program.kernel(kernel).body) if isinstance(n, ir.Assign)]
