# The fastest verified sgemm schedule shipped (issue 25; `benchmarks/c_matmul.py` times it
# against numpy; `vsched tune --cflags=-march=native` ranks this shape first on AVX-512): a
# 6x64 register tile (`ji` vectorized) accumulated in a local tile `c_acc` (privatize) over a
# 256-deep block of k, with k blocked outside the row tiles so a 256x64 panel of b stays in
# L1/L2. Every interchange keeps each c cell's k order, so the result is bitwise equal to the
# unscheduled C (`vsched run`); the remainder guards of the 6-row and 64-column tiles are split
# off at emission (full tiles run guard-free), and the C backend holds the full 6x64 tile in
# 24 AVX-512 registers through the ki loop (codegen/c_tile.py; 12 at a time under AVX2/SSE).
# At 512^3 with `--cflags=-march=native` (no FMA contraction: the default profile) it reaches
# 56-61% of numpy's 1-thread GFLOP/s on a shared 2-core AVX-512 host (docs/benchmarks.md).
# expect: legal
params N, M, K where N >= 1, M >= 1, K >= 1

tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32

kernel matmul {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}

schedule matmul {
  split i by 6 -> io, ii
  split j by 64 -> jo, ji
  split k by 256 -> ko, ki
  interchange ii, jo
  interchange io, jo
  interchange ji, ko
  interchange ii, ko
  interchange io, ko
  interchange ji, ki
  interchange ii, ki
  privatize c over ki -> c_acc
  retype ji as vectorized
}
