# A prefix sum cut into two segments at 8: the segments run in the original order, so the
# chain x[i] <- x[i - 1] keeps every dependence (segments run the other way round would
# break it: `dependence` refutes that).
# expect: legal
params N where N >= 2

tensor x[N] f32

kernel prefix {
  for i in 1 .. N {
    x[i] = x[i - 1] + x[i]
  }
}

schedule prefix {
  partition i at 8 -> i0, i1
}
