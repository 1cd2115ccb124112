# expect: illegal -- round to nearest even: x * 2.0 overflows to inf at the largest finite x, so (x * 2.0) * 0.0 is NaN there and (x * 0.0) * 2.0 is 0 (round toward zero would give the largest finite value)
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel a { for i in 0 .. N { y[i] = (x[i] * 2.0) * 0.0 } }
kernel b { for i in 0 .. N { y[i] = (x[i] * 0.0) * 2.0 } }
claim a == b
