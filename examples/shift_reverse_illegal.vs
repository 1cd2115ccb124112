# shift alone is never refuted (it keeps the order of the iterations); a schedule that shifts
# a prefix sum and then reverses it is: `dependence` refutes the reverse, and the
# counterexample names the instances in the shifted loop's coordinates (the original i is
# shown next to it). `vsched run examples/shift_reverse_illegal.vs --size N=3` shows the
# difference.
# expect: illegal dependence
params N where N >= 2

tensor x[N] f32
tensor y[N] f32

kernel prefix {
  y[0] = x[0]
  for i in 1 .. N {
    y[i] = y[i - 1] + x[i]
  }
}

schedule prefix {
  shift i to 0
  reverse i
}
