# reverse of a loop that carries a dependence: y[i] reads y[i - 1], written by the previous
# iteration. Reversed, iteration i runs before i - 1: the counterexample names the two
# instances; `vsched run examples/reverse_prefix_illegal.vs --size N=3` shows the difference.
params N where N >= 2

tensor x[N] f32
tensor y[N] f32

kernel prefix {
  for i in 1 .. N {
    y[i] = y[i - 1] + x[i]
  }
}

schedule prefix {
  reverse i
}
