# expect: legal -- relu(x) is max(x, +0.0): relu(-0.0) is +0.0, relu(NaN) is NaN
params N where N >= 1
tensor x[N] f32
tensor y[N] f32
kernel p { for i in 0 .. N { y[i] = relu(x[i]) } }
kernel q { for i in 0 .. N { y[i] = max(0.0, x[i]) } }
claim p == q
