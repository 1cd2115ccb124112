# expect: illegal -- a sum started at -0.0 is -0.0 when every term is -0.0; from +0.0 it is +0.0
params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor y[N] f32
kernel a { for i in 0 .. N { y[i] = -0.0
  for k in 0 .. K { y[i] += x[i, k] } } }
kernel b { for i in 0 .. N { y[i] = 0.0
  for k in 0 .. K { y[i] += x[i, k] } } }
claim a == b
