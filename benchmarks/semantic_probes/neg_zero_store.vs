# expect: illegal -- a constant -0.0 is not 0.0 (Python == says they are)
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel a { for i in 0 .. N { y[i] = -0.0 } }
kernel b { for i in 0 .. N { y[i] = 0.0 } }
claim a == b
