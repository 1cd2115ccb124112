# expect: illegal -- fma(a, b, c) rounds once, a * b + c twice
params N where N >= 1
tensor a[N] f32
tensor b[N] f32
tensor c[N] f32
tensor y[N] f32
kernel p { for i in 0 .. N { y[i] = fma(a[i], b[i], c[i]) } }
kernel q { for i in 0 .. N { y[i] = a[i] * b[i] + c[i] } }
claim p == q
