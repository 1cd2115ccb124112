# The partition policies of `split` (tail=guard): `never` (like `auto`) keeps one nest with
# the remainder guard; `always` cuts the io range into a guard-free main segment and a tail
# segment; `serialize_edges` does the same and makes the tail segment serial (here the
# original loop is vectorized, so only the main segment stays vectorized); `unroll_edges`
# marks the tail's inner loop unrolled. Print them all with
#   vsched show examples/split_partition.vs --after 1
params N where N >= 1

tensor x[N] f32
tensor y[N] f32

kernel scale_never {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_never {
  split i by 4 -> io, ii partition=never
}

kernel scale_always {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_always {
  split i by 4 -> io, ii partition=always
}

kernel scale_serialize_edges {
  for i in 0 .. N : vectorized {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_serialize_edges {
  split i by 4 -> io, ii partition=serialize_edges
}

kernel scale_unroll_edges {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_unroll_edges {
  split i by 4 -> io, ii partition=unroll_edges
}
