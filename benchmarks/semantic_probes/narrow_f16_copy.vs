# expect: legal -- a value copied through an f16 tensor is the inline f16 cast
params N where N >= 1
tensor a[N] f32
tensor t[N] f16
tensor y[N] f32
kernel first { for i in 0 .. N { t[i] = a[i] }
  for i in 0 .. N { y[i] = t[i] * 2.0 } }
kernel second { for i in 0 .. N { t[i] = a[i] }
  for i in 0 .. N { y[i] = f16(a[i]) * 2.0 } }
claim first == second
