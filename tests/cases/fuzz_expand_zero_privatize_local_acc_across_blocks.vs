# Regression (found by `vsched fuzz`, fixed): the verifier used to refute this legal
# schedule with a dependence between two blocks on the privatized local accumulator (one copy
# per thread), whose counterexample did not replay (polyhedral/private_copies.py).
# The original finding (kind: counterexample; campaign `vsched fuzz --budget 600 --workers 2 --seed 101`):
# refuted dependence of op 3 (retype i as block.x) does not replay at {'N': 2, 'K': 1}: RAW dependence on s_acc0[0] at N=2, K=1: S0(i=0, k=0) writes it and s_acc0.store(i=1) reads it; before the op the first runs before the second, after the op they are unordered (may run in parallel or in any order)
# fuzz-sizes: N=2,K=1
# was: vsched verify counterexample-fb503ae576.vs   # refutes dependence at N=2,K=1
# then: vsched run counterexample-fb503ae576.vs --size N=2,K=1   # but the kernels agree there
# expect: legal
params N, K where N >= 1, K >= 1

tensor x[N, K] f32
tensor s[N] f32

kernel red {
  zero s
  for i in 0 .. N {
    for k in 0 .. K {
      s[i] += x[i, k]
    }
  }
}

schedule red {
  expand_zero s -> z0_0
  privatize s over k -> s_acc0
  retype i as block.x
}
