# expect: legal -- x + -0.0 is x for every x (NaN, infinities and -0.0 included)
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel a { for i in 0 .. N { y[i] = x[i] + -0.0 } }
kernel b { for i in 0 .. N { y[i] = x[i] } }
claim a == b
