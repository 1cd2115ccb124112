# A row sum whose reduction loop is split with partition=always: the main segment runs the
# full tiles without a guard, the tail segment the last partial tile with it. Every term is
# added exactly once, in the original order, so the schedule is legal (and a partition that
# ran the last tile twice would add its terms twice: `coverage` refutes that).
# expect: legal
params N, K where N >= 1, K >= 1

tensor x[N, K] f32
tensor s[N] f32

kernel rowsum {
  zero s
  for i in 0 .. N {
    for k in 0 .. K {
      s[i] += x[i, k]
    }
  }
}

schedule rowsum {
  split k by 4 -> ko, ki partition=always
}
