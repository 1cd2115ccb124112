"""Shared inputs of the gate tests (tests/test_gate_*.py)."""

# a program whose dependence obligation is unknown: a guard reads a tensor the kernel writes
# (tests/test_verify_guard_reads.py); the partition op is on line 14, column 3
UNKNOWN = """params N where N >= 1
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
