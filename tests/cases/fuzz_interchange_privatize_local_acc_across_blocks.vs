# Regression (found by `vsched fuzz`, fixed): the verifier used to refute this legal
# schedule with a dependence between two blocks on the privatized local accumulator (one copy
# per thread), whose counterexample did not replay (polyhedral/private_copies.py).
# The original finding (kind: counterexample; campaign `vsched fuzz --budget 600 --workers 2 --seed 101`):
# refuted dependence of op 3 (retype j as block.x) does not replay at {'TN': 1, 'TM': 1, 'TK': 1}: RAW dependence on c_acc0[0] at TN=1, TM=1, TK=1: c_acc0.load(j=0, i=0) writes it and c_acc0.store(j=3, i=0) reads it; before the op the first runs before the second, after the op they are unordered (may run in parallel or in any order)
# fuzz-sizes: TN=1,TM=1,TK=1
# was: vsched verify counterexample-4f6ce6d240.vs   # refutes dependence at TN=1,TM=1,TK=1
# then: vsched run counterexample-4f6ce6d240.vs --size TN=1,TM=1,TK=1   # but the kernels agree there
# expect: legal
params TN, TM, TK where TN >= 1, TM >= 1, TK >= 1

tensor a[4 * TN, 4 * TK] f32
tensor b[4 * TK, 4 * TM] f32
tensor c[4 * TN, 4 * TM] f32

kernel mm {
  zero c
  for i in 0 .. 4 * TN {
    for j in 0 .. 4 * TM {
      for k in 0 .. 4 * TK {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}

schedule mm {
  interchange i, j
  privatize c over k -> c_acc0
  retype j as block.x
}
