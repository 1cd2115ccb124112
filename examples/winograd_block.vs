# The blocked Winograd F(2x2,3x3) form: the input transform, the contraction and the output
# transform run one row of tiles at a time, so V and M hold one row of tiles (they stay in
# cache); U is stored [xi, nu, ic, oc] and the kernel is read through a copy with the output
# channel last, so the innermost channel loops are vectorized. The op's own goals prove it
# (coverage, in_bounds, read set, the transform identity per tile position, the row loop's
# order, the weight copy, the independence of the vectorized loops). benchmarks/winograd.py
# times this form at 56x56 and 57x57 against the direct convolution.
# expect: legal
profile approximate
params N, OH, OW, C, F where N >= 1, OH >= 2, OW >= 2, C >= 1, F >= 1

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
  winograd block
}
