# A stencil as people write it, over the interior `1 .. N - 1`, split by 4 directly: the tiles
# start at the loop's lower bound (i = 1 + 4*io + ii, guarded by i < N - 1), so no shift or
# partition is needed first. `vsched run examples/stencil_split.vs --size N=11` runs equal.
# expect: legal
params N where N >= 3

tensor a[N] f32
tensor b[N] f32

kernel blur {
  for i in 1 .. N - 1 {
    b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0
  }
}

schedule blur {
  split i by 4 -> io, ii
}
