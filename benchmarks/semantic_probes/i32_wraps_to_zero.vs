# expect: legal -- i32 wraps: a * 65536 * 65536 is 0 in 32 bits (not in 64)
params N where N >= 1
tensor a[N] i32
tensor y[N] i32
kernel p { for i in 0 .. N { y[i] = (a[i] * 65536) * 65536 } }
kernel q { for i in 0 .. N { y[i] = a[i] * 0 } }
claim p == q
