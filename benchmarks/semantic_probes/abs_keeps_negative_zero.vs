# expect: illegal -- abs(x) is x < 0 ? -x : x, so abs(-0.0) is -0.0 while max(x, -x) is +0.0
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel a { for i in 0 .. N { y[i] = abs(x[i]) } }
kernel b { for i in 0 .. N { y[i] = max(x[i], -x[i]) } }
claim a == b
