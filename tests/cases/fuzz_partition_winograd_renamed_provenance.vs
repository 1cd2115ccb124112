# Regression (found by `vsched fuzz`, seed 7): `partition n at OH -> np0_0, np1_0` then
# `winograd` crashed the verifier (internal error KeyError 'np0_0'). The Winograd coverage
# proof mapped a strip's instances to the direct nest's instances through the strip's
# provenance keyed by the direct loops' names; after partition the direct loop is np0_0
# while provenance names the original iterator n. Strip and direct instances are now both
# mapped to original instances through their own provenance. Runs equal within tolerance.
# expect: legal
profile approximate
params OH, OW where OH >= 2, OW >= 2

tensor a[1, OH + 2, OW + 2, 1] f32
tensor b[1, 3, 3, 1] f32
tensor d[1, OH, OW, 1] f32

kernel conv {
  zero d
  for n in 0 .. 1 {
    for oh in 0 .. OH {
      for ow in 0 .. OW {
        for f in 0 .. 1 {
          for kh in 0 .. 3 {
            for kw in 0 .. 3 {
              for c in 0 .. 1 {
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
  partition n at OH -> np0_0, np1_0
  winograd
}
