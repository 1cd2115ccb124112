# expect: illegal -- under finite, 0 * x with x an f64 input read by an f32 statement: 1e300 is finite in f64, inf in f32, 0 * inf is NaN
profile finite
params N where N >= 1
tensor x[N] f64
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
