# expect: legal -- wrapping i32 arithmetic is a ring: regrouped and distributed trees are equal
profile reproducible
params N where N >= 1
tensor a[N] i32
tensor b[N] i32
tensor c[N] i32
tensor y[N] i32
kernel p { for i in 0 .. N { y[i] = (a[i] + b[i]) * c[i] + a[i] } }
kernel q { for i in 0 .. N { y[i] = a[i] + (c[i] * b[i] + c[i] * a[i]) } }
claim p == q
