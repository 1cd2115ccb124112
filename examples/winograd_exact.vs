# The convolution of winograd_odd.vs with declared inputs: a and b hold integers in [-8, 8]
# (`inputs` line) and C <= 64. Winograd is then exact: every product and partial sum of both
# forms is an integer of magnitude <= 2^24, so both forms compute the exact result and agree
# bitwise. The `exactness` obligation derives the bounds from the nests and proves this with
# z3 (it reports the condition it needs, C <= 809); without `C <= 64` it is refuted at C = 810.
# expect: legal

profile approximate
params N, OH, OW, C, F where N >= 1, OH >= 2, OW >= 2, C >= 1, C <= 64, F >= 1
inputs a, b int in [-8, 8]

tensor a[N, OH + 2, OW + 2, C] f32
tensor b[F, 3, 3, C] f32
tensor d[N, OH, OW, F] f32

kernel conv {
  zero d
  for n in 0 .. N {
    for oh in 0 .. OH {
      for ow in 0 .. OW {
        for f in 0 .. F {
          for kh in 0 .. 3 {
            for kw in 0 .. 3 {
              for c in 0 .. C {
                d[n, oh, ow, f] += a[n, oh + kh, ow + kw, c] * b[f, kh, kw, c]
              }
            }
          }
        }
      }
    }
  }
}

schedule conv {
  winograd
}
