# expect: legal -- under finite, 0 * x with x an f32 input is a zero term of a sum from +0.0
profile finite
params N where N >= 1
tensor x[N] f32
tensor z[N] f32
tensor y[N] f32
kernel a {
  for i in 0 .. N { z[i] = 0.0 }
  for i in 0 .. N { y[i] = 0.0
    y[i] += z[i] * x[i] }
}
kernel b {
  for i in 0 .. N { z[i] = 0.0 }
  for i in 0 .. N { y[i] = 0.0 }
}
claim a == b
