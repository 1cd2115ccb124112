# expect: illegal -- storing x*x into an f16 tile rounds it; (x*x)*x inline rounds once
params N where N >= 1
tensor x[N] f16
tensor t[N] f16
tensor y[N] f16
kernel a { for i in 0 .. N { t[i] = x[i] * x[i] }
  for i in 0 .. N { y[i] = t[i] * x[i] } }
kernel b { for i in 0 .. N { t[i] = x[i] * x[i] }
  for i in 0 .. N { y[i] = (x[i] * x[i]) * x[i] } }
claim a == b
