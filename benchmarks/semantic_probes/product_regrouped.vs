# expect: illegal -- (a*b)*w is not a*(b*w) inside a sum (factors are not a set)
profile reproducible
params N, K where N >= 1, K >= 1
tensor a[N, K] f32
tensor b[N, K] f32
tensor w[K] f32
tensor y[N] f32
kernel p { zero y
  for i in 0 .. N { for k in 0 .. K { y[i] += (a[i, k] * b[i, k]) * w[k] } } }
kernel q { zero y
  for i in 0 .. N { for k in 0 .. K { y[i] += a[i, k] * (b[i, k] * w[k]) } } }
claim p == q
