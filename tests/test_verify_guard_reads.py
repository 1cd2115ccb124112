"""Reads inside enclosing conditions are evaluated where the guarded statement does not run."""
from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json


def statuses(src, kind):
    rep = file_report_json(verify_program(parse_text(src)), "f")
    return [o["status"] for o in rep["obligations"] if o["kind"] == kind]


def test_guard_read_outside_the_statement_domain_is_bounds_checked():
    """`if x[i] < 0` runs for every i < N + 2 although the store only runs for i < N."""
    src = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N + 2 {
    if x[i] < 0 {
      if i < N {
        y[i] = 1.0
      }
    }
  }
}
"""
    assert statuses(src, "in_bounds") == ["refuted"]
    assert statuses(src.replace("if x[i] < 0 {\n      if i < N {", "if i < N {\n      if x[i] < 0 {"),
                    "in_bounds") == ["proved"]


def test_short_circuit_and_guards_the_right_operand():
    src = """params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N + 2 {
    if i < N and x[i] < 0 {
      y[i] = 1.0
    }
  }
}
"""
    assert statuses(src, "in_bounds") == ["proved"]


def test_guard_read_of_a_tensor_the_kernel_writes_is_not_proved():
    """The dependence model does not see A's reads where the guard fails: unknown, not proved."""
    src = """params N where N >= 1
tensor A[N] f32
tensor x[N] f32
tensor y[N] f32
kernel k {
  for i in 0 .. N {
    if A[i] > 0 {
      y[i] = 1.0
    }
    A[i] = x[i]
  }
}
schedule k {
  partition i at 1 -> i0, i1
}
"""
    assert statuses(src, "dependence") == ["unknown"]
    assert statuses(src.replace("    A[i] = x[i]\n", ""), "dependence") == ["proved"]


def test_guard_read_racing_with_another_threads_write_is_not_proved():
    src = """params B where B >= 1
tensor x[B, 32] f32
tensor y[B, 32] f32
tensor s[32] f32 shared
kernel k {
  for b in 0 .. B : block.x {
    for t in 0 .. 32 : thread.x {
      if s[(t + 1) % 32] > 0 {
        y[b, t] = 1.0
      }
      s[t] = x[b, t]
    }
  }
}
"""
    assert "proved" not in statuses(src, "race")
