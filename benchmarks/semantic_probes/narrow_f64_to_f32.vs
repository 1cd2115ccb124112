# expect: illegal -- an f64 product stored to f32 rounds; kept in f64 it does not
params N where N >= 1
tensor a[N] f64
tensor b[N] f64
tensor t[N] f32
tensor y[N] f64
kernel p { for i in 0 .. N { t[i] = a[i] * b[i] }
  for i in 0 .. N { y[i] = t[i] + 1.0 } }
kernel q { for i in 0 .. N { t[i] = a[i] * b[i] }
  for i in 0 .. N { y[i] = a[i] * b[i] + 1.0 } }
claim p == q
