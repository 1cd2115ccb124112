# A 3-point window sum whose window loop starts at 1: `unroll k materialize` makes one copy
# per iteration with k replaced by 1, 2 and 3 (not by the copy's number).
# expect: legal
params N where N >= 1

tensor x[N + 4] f32
tensor y[N] f32

kernel window {
  zero y
  for i in 0 .. N {
    for k in 1 .. 4 {
      y[i] += x[i + k]
    }
  }
}

schedule window {
  unroll k materialize
}
