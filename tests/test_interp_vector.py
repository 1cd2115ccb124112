"""The interpreter's vector path (verified_sched/interp/vector.py) gives the scalar path's
bits: generated kernels (every precision, casts, guards, dynamic indices, vectorized loops)
run both ways agree on every storage cell, or both fail; the independence test accepts the
loops it must and refuses reductions and loop-carried dependences."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified_sched.oracle.compare import random_inputs
from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.interp.interpreter import KernelError, run_kernel
from verified_sched.interp.vector import independent
from verified_sched.analysis.sizes import example_sizes
from verified_sched.fuzz.strategies import programs

MATMUL = """params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
kernel matmul { zero c
  for i in 0 .. N { for j in 0 .. M { for k in 0 .. K { c[i, j] += a[i, k] * b[k, j] } } } }
"""


def bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def both_ways(program, kernel, sizes, arrays, seed=0):
    """(outcome, arrays) of the scalar and the vector path; outcome is None or the error."""
    out = []
    for vectorize in (False, True):
        arrs = {k: v.copy() for k, v in arrays.items()}
        try:
            run_kernel(program, kernel, sizes, arrs, seed=seed, vectorize=vectorize)
            err = None
        except KernelError as e:
            err = type(e)
        out.append((err, arrs))
    return out


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(program=programs(max_tensors=3, max_loops=3, dynamic=True), mode=st.sampled_from(["random", "small-int"]))
def test_vector_and_scalar_paths_agree_bitwise(program, mode):
    kernel = program.kernels[0].name
    for n, sizes in enumerate(example_sizes(program, 2)):
        arrays = random_inputs(program, [kernel], sizes, seed=n, mode=mode)
        (e1, scalar), (e2, vector) = both_ways(program, kernel, sizes, arrays, seed=n)
        assert e1 == e2
        if e1 is None:
            for name in arrays:
                assert bits(scalar[name]) == bits(vector[name]), name


def _loops(program, kernel="matmul"):
    return {n.var: n for n in ir.walk(program.kernel(kernel).body) if isinstance(n, ir.For)}


def test_independence_of_the_matmul_loops():
    loops = _loops(parse_text(MATMUL))
    assert independent(loops["i"]) and independent(loops["j"])
    assert not independent(loops["k"])  # c[i, j] accumulates over k


@pytest.mark.parametrize("body, ok", [
    ("y[i] = 2.0 * x[i]", True),
    ("y[0] += x[i]", False),  # a reduction over the loop itself
    ("y[i + 1] = y[i] + x[i]", False),  # a loop-carried dependence
    ("y[i] = y[i] + x[N - 1 - i]", True),
    ("y[i] = x[i]\n  x[i] = 0.0", True),
    ("y[i] = x[i + 1]\n  x[i] = 0.0", False),  # reads a cell another iteration writes
    ("y[floor(i / 2)] = x[i]", False),  # two iterations write one cell
    ("y[idx[i]] = x[i]", False),  # a dynamic index: may collide
])
def test_independence_test(body, ok):
    text = f"""params N where N >= 2
tensor x[N + 1] f32
tensor y[N + 1] f32
tensor idx[N] i32
kernel k {{ for i in 0 .. N {{
  {body}
}} }}
"""
    assert independent(_loops(parse_text(text), "k")["i"]) is ok


def test_matmul_runs_vectorized_and_bitwise_equal():
    program = parse_text(MATMUL)
    sizes = {"N": 9, "M": 13, "K": 7}
    arrays = random_inputs(program, ["matmul"], sizes, seed=3)
    (_, scalar), (_, vector) = both_ways(program, "matmul", sizes, arrays)
    assert bits(scalar["c"]) == bits(vector["c"]) and np.abs(scalar["c"]).sum() > 0
    from verified_sched.interp.interpreter import Compiler
    comp = Compiler(program, sizes)
    comp.stmt(program.kernel("matmul").body[1], (False, False), False)
    assert comp.vectorized == 1  # the j loop (the innermost independent one)


def test_out_of_bounds_in_a_vectorized_loop_names_the_first_lane():
    text = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k { for i in 0 .. N { y[i] = x[i + 2] } }
"""
    program = parse_text(text)
    sizes = {"N": 5}
    arrays = random_inputs(program, ["k"], sizes, seed=0)
    messages = []
    for vectorize in (False, True):
        with pytest.raises(KernelError) as exc:
            run_kernel(program, "k", sizes, {k: v.copy() for k, v in arrays.items()}, vectorize=vectorize)
        messages.append(exc.value.message)
    assert messages[0] == messages[1] and "x[5]" in messages[0] and "i=3" in messages[0]


def test_scalar_switch_from_the_environment(monkeypatch):
    program = parse_text(MATMUL)
    sizes = {"N": 3, "M": 4, "K": 2}
    arrays = random_inputs(program, ["matmul"], sizes, seed=1)
    monkeypatch.setenv("VSCHED_INTERP_SCALAR", "1")
    import verified_sched.interp.vector as iv
    monkeypatch.setattr(iv, "compile_loop", lambda *a: pytest.fail("vector path used"))
    run_kernel(program, "matmul", sizes, arrays)


def test_progress_bar_on_a_terminal(monkeypatch, capsys):
    """On a tty a long run draws a rich bar with the fraction done; never when not a tty."""
    import io
    import sys

    from verified_sched.core import progress

    class Tty(io.StringIO):
        def isatty(self):
            return True
    fake = Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    monkeypatch.setattr(progress, "MIN_SECONDS", 0.0)
    with progress.bar("interpreting k", 10) as advance:
        for _ in range(10):
            advance()
    assert "interpreting k" in fake.getvalue()
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with progress.bar("quiet", 10) as advance:
        advance(5)
    assert sys.stderr.getvalue() == ""


# kernels built to take the vector path: element-wise and accumulating nests over every
# float precision, with the operations the vector path accepts

PRECS = ("f32", "f64", "f16", "bf16")
LEAVES = ("a[i, j]", "b[j, i]", "a[i, k]", "b[k, j]", "1.5", "0.25", "i", "j", "floor(j / 3)", "(j % 4)")
UNARY = ("neg", "abs", "relu", "sqrt")


@st.composite
def expressions(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(LEAVES))
    kind = draw(st.sampled_from(("bin", "bin", "un", "minmax", "cast")))
    a = draw(expressions(depth=depth - 1))
    if kind == "un":
        return f"{draw(st.sampled_from(UNARY))}({a})"
    if kind == "cast":
        return f"{draw(st.sampled_from(PRECS))}({a})"
    b = draw(expressions(depth=depth - 1))
    if kind == "minmax":
        return f"{draw(st.sampled_from(('min', 'max')))}({a}, {b})"
    return f"({a} {draw(st.sampled_from('+-*/'))} {b})"


@st.composite
def vector_kernels(draw):
    pa, pb, pc = (draw(st.sampled_from(PRECS)) for _ in range(3))
    op = draw(st.sampled_from(("=", "+=", "-=", "*=")))
    e = draw(expressions())
    accumulate = draw(st.booleans())
    inner = f"for k in 0 .. N {{ c[i, j] {op} {e} }}" if accumulate else f"c[i, j] {op} {e.replace('k', 'j')}"
    guard = draw(st.sampled_from(("", "j < N - 1", "j % 3 != 1 and i <= j", "not (2 * j >= N)")))
    if guard:  # a lane-dependent `if`: the lanes split between the branches
        inner = f"if {guard} {{ {inner} }} else {{ c[i, j] = f32(j) }}"
    return f"""params N where N >= 1
tensor a[N, N] {pa}
tensor b[N, N] {pb}
tensor c[N, N] {pc}
kernel v {{ for i in 0 .. N {{ for j in 0 .. N : {draw(st.sampled_from(('serial', 'vectorized')))} {{
  {inner}
}} }} }}
"""


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(text=vector_kernels(), n=st.integers(1, 6), seed=st.integers(0, 3),
       mode=st.sampled_from(["random", "small-int"]))
def test_vector_path_agrees_bitwise_on_vectorizable_kernels(text, n, seed, mode):
    program = parse_text(text)
    from verified_sched.interp.interpreter import Compiler
    comp = Compiler(program, {"N": n})
    comp.stmt(program.kernel("v").body[0], (False, False), False)
    assert comp.vectorized == 1, text  # not vacuous: the vector path runs
    sizes = {"N": n}
    arrays = random_inputs(program, ["v"], sizes, seed=seed, mode=mode)
    (e1, scalar), (e2, vector) = both_ways(program, "v", sizes, arrays, seed=seed)
    assert e1 == e2
    for name in arrays:
        assert bits(scalar[name]) == bits(vector[name]), (name, text)


def test_vsched_run_on_a_terminal_shows_the_interpreter_progress(tmp_path):
    """`vsched run --target interp` with stderr on a terminal: the bar (fraction done) shows
    inside the CLI's spinner."""
    import os
    import pty
    import subprocess
    import sys

    path = tmp_path / "mm.vs"
    path.write_text(MATMUL)
    master, slave = pty.openpty()
    # the bar from the first iteration: the run is too short for the 0.5 s default on a fast machine
    env = {**os.environ, "VSCHED_INTERP_SCALAR": "1", "COLUMNS": "120", "VSCHED_PROGRESS_AFTER": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "verified_sched", "run", str(path), "--target", "interp",
                             "--size", "N=48,M=48,K=48"], stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    out, _ = proc.communicate(timeout=300)
    os.close(master)
    err = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 0, out
    assert "interpreting matmul" in err and "%" in err
