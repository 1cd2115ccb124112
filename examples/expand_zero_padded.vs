# `zero c` clears c's storage padding too; expand_zero writes one loop per storage dimension,
# the padding included, so the expanded nest clears exactly the same cells.
# expect: legal
params N, M where N >= 1, M >= 1

tensor a[N, M] f32
tensor c[N, M] f32 pad(0, 3)

kernel scale {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      c[i, j] += 2.0 * a[i, j]
    }
  }
}

schedule scale {
  expand_zero c -> zi, zj
}
