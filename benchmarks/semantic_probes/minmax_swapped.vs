# expect: legal -- IEEE 754-2019 minimum/maximum do not depend on the operands' order (NaN, -0 < +0)
profile reproducible
params N where N >= 1
tensor a[N] f32
tensor b[N] f32
tensor y[N] f32
kernel p { for i in 0 .. N { y[i] = max(a[i], min(b[i], 1.0)) } }
kernel q { for i in 0 .. N { y[i] = max(min(1.0, b[i]), a[i]) } }
claim p == q
