# expect: illegal -- x + 0.0 is +0.0 at x = -0.0: not a no-op
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel a { for i in 0 .. N { y[i] = x[i] + 0.0 } }
kernel b { for i in 0 .. N { y[i] = x[i] } }
claim a == b
