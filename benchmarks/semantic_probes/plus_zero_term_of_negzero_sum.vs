# expect: illegal -- a + 0.0 term of a sum that starts at -0.0 is not a no-op: -0.0 + 0.0 is +0.0
params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor y[N] f32
kernel a { for i in 0 .. N { y[i] = -0.0
  y[i] += 0.0
  for k in 0 .. K { y[i] += x[i, k] } } }
kernel b { for i in 0 .. N { y[i] = -0.0
  for k in 0 .. K { y[i] += x[i, k] } } }
claim a == b
