# Found by `vsched fuzz --budget 600 --workers 2 --seed 404` (kind: counterexample): open, value-based
# dependence class (branch value-deps): the reversed WAR/RAW pairs on the privatized accumulator
# s_acc0, which every iteration of i reloads, are memory-only; the op's other refutations (the
# shifted tail reads s[-1] at N < 3) make the runs at the example sizes fail, so the refutation
# is not downgraded to unknown by running.
# refuted dependence of op 3 (split i by 3 -> io0, ii0 tail=shift_inward) does not replay at {'N': 4, 'K': 1}: WAR dependence on s_acc0[0] at N=4, K=1: s_acc0.store(i=1) at (io0=1, ii0=0) reads it and S0(i=2, k=0) at (io0=0, ii0=2, k=0) writes it; before the op the first runs before the second, after the op the second runs before the first
# fuzz-sizes: N=4,K=1
# reproduce: vsched verify privatize_split_shift_inward_false_dependence.vs   # refutes dependence at N=4,K=1
# then: vsched run privatize_split_shift_inward_false_dependence.vs --size N=4,K=1   # but the kernels agree there
# expect: illegal dependence
params N, K where N >= 1, K >= 1

tensor x[N, K] f32
tensor s[N] f32

kernel red {
  for i in 0 .. N {
    for k in 0 .. K {
      s[i] = max(s[i], x[i, k])
    }
  }
}

schedule red {
  pad k to 2
  privatize s over k -> s_acc0
  split i by 3 -> io0, ii0 tail=shift_inward
  split k by 2 -> ko0, ki0 tail=shift_inward partition=serialize_edges
}
