# expect: legal -- (a*b)*w against w*(b*a): each product's operands commuted, same grouping
profile reproducible
params N, K where N >= 1, K >= 1
tensor a[N, K] f32
tensor b[N, K] f32
tensor w[K] f32
tensor y[N] f32
kernel p { zero y
  for i in 0 .. N { for k in 0 .. K { y[i] += (a[i, k] * b[i, k]) * w[k] } } }
kernel q { zero y
  for i in 0 .. N { for k in 0 .. K { y[i] += w[k] * (b[i, k] * a[i, k]) } } }
claim p == q
