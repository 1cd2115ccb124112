# Code as people write it: a matmul followed by a bias loop, both nests over i and j. A loop
# name that several loops share is qualified in a schedule: `j@2` is the second loop named j
# in the kernel as it stands when the op applies (program order: a loop before the loops inside
# it, an earlier nest before a later one). A plain `j` that names two loops is a precondition
# failure listing j@1 and j@2. `vsched run examples/matmul_bias.vs --size N=5,M=13,K=3` runs
# equal (bitwise).
# expect: legal
params N, M, K where N >= 1, M >= 1, K >= 1

tensor a[N, K] f32
tensor b[K, M] f32
tensor bias[M] f32
tensor c[N, M] f32

kernel matmul_bias {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
  for i in 0 .. N {
    for j in 0 .. M {
      c[i, j] += bias[j]
    }
  }
}

schedule matmul_bias {
  split j@1 by 8 -> jo, ji
  interchange ji, k
  split j by 4 -> bjo, bji
  retype bji as vectorized
  reverse i@2
}
