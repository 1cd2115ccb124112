"""Generated kernels (every precision, casts, where, dynamic indices, data-dependent guards,
padding, vectorized loops): the interpreter and the C backend agree bitwise (NaN-aware) on
every storage cell at sizes satisfying the constraints, on random inputs."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified_sched.oracle.compare import random_inputs
from verified_sched.analysis.sizes import example_sizes
from verified_sched.fuzz.strategies import programs


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(program=programs(max_tensors=3, max_loops=3, dynamic=True), mode=st.sampled_from(["random", "small-int"]))
def test_interp_agrees_with_c_on_generated_kernels(program, mode, interp_vs_c):
    kernel = program.kernels[0].name
    for n, sizes in enumerate(example_sizes(program, 2)):
        arrays = random_inputs(program, [kernel], sizes, seed=n, mode=mode)
        interp_vs_c(program, kernel, sizes, arrays, seed=n)
