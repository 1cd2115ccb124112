"""hardware_limits (verified_sched/verify/gpu_limits.py): thread and grid caps, threads per block and
shared bytes, decided for all sizes by z3 and refuted with the sizes that break a limit."""
from __future__ import annotations

import pytest

from verified_sched.dsl import parse_text
from verified_sched.verify.gpu_limits import hardware_limits

SRC = """params N, B where N >= 1, B >= 1
tensor x[N, 4096] f32
tensor t[T] f32 shared
kernel k { for b in 0 .. B : block.x { for i in 0 .. EXT : thread.x { for j in 0 .. EY : thread.y {
  BODY } } } }
"""


def program(ext="64", ey="4", shared="64", body="x[0, i] = 1.0"):
    return parse_text(SRC.replace("EXT", ext).replace("EY", ey).replace("[T]", f"[{shared}]").replace("BODY", body))


def test_constant_geometry_is_proved():
    f = hardware_limits(program(), "k")
    assert f.status == "proved"


@pytest.mark.parametrize("ext,ey,what,params", [
    ("N", "1", "thread.x extent", {"N": 1025}),
    ("2048", "1", "thread.x extent", None),
    ("64", "32", "threads per block", None),
])
def test_thread_limits_refuted_with_sizes(ext, ey, what, params):
    f = hardware_limits(program(ext, ey), "k")
    assert f.status == "refuted" and what in f.message
    if params:
        assert f.counterexample.sizes["N"] >= params["N"]


def test_size_constraint_keeps_symbolic_extent_legal():
    p = parse_text(SRC.replace("N >= 1", "N >= 1, N <= 512").replace("EXT", "N").replace("EY", "2")
                   .replace("[T]", "[4]").replace("BODY", "x[0, i] = 1.0"))
    assert hardware_limits(p, "k").status == "proved"


def test_shared_bytes_against_the_limit():
    body = "t[i] = 1.0"
    assert hardware_limits(program(shared="12288", body=body), "k").status == "proved"  # exactly 48 KiB
    f = hardware_limits(program(shared="12289", body=body), "k")
    assert f.status == "refuted" and "shared memory of t" in f.message
    assert hardware_limits(program(shared="12289", body=body), "k", shared_limit=64 * 1024).status == "proved"


def test_unused_shared_tensor_does_not_count():
    assert hardware_limits(program(shared="100000"), "k").status == "proved"


def test_serial_kernel_has_nothing_to_check():
    p = parse_text("params N where N >= 1\ntensor x[N] f32\nkernel k { for i in 0 .. N { x[i] = 1.0 } }")
    assert hardware_limits(p, "k").status == "proved"
