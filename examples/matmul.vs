# A plain matmul, tiled for a CPU: 32-row by 8-column tiles with the inner column loop
# vectorized. `vsched verify examples/matmul.vs` proves every op for all sizes;
# `vsched run examples/matmul.vs --size N=37,M=20,K=11` runs the scheduled kernel against
# the unscheduled one; `vsched show examples/matmul.vs --after 2` prints the nest after the
# two splits (remainder guards on the leaf statement, so the nest stays perfect).
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
  split i by 32 -> io, ii
  split j by 8 -> jo, ji
  interchange ii, jo
  retype ji as vectorized
}
