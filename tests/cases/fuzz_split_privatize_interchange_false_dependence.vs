# Regression (found by `vsched fuzz`, fixed by value-based dependences): the verifier used to
# refute this legal schedule with a memory-only dependence on the privatized accumulator (and,
# once refutations of serial kernels had to replay, left it `unknown`); it is now proved: every
# read of the accumulator keeps its last writer. The original finding:
# Found by `vsched fuzz --budget 240 --workers 2` (kind: counterexample): the verifier refutes
# dependence, but the refutation does not replay (the kernels agree at its sizes and above).
# same class as privatize_then_interchange_false_dependence.vs on a matmul: a WAR pair on the
# privatized c_acc0 that is reloaded in every (i, j) iteration; the runs agree.
# verifier message: refuted dependence of op 4 (interchange i, j) does not replay at {'N': 2, 'M': 2, 'K': 1}: WAR dependence on c_acc0[0] at N=2, M=2, K=1: c_acc0.store(i=0, j=1, ko0_tail=0) at (j=1, i=0, ko0_tail=0) reads it and c_acc0.load(i=1, j=0, ko0_tail=0) at (j=0, i=1, ko0_tail=0) writes it; before the op the first runs before the second, after the op the second runs before the first
# fuzz-sizes: N=2,M=2,K=1
# was: vsched verify split_privatize_interchange_false_dependence.vs   # illegal dependence
#            vsched run split_privatize_interchange_false_dependence.vs --size N=2,M=2,K=1   # ok
# expect: legal
params N, M, K where N >= 1, M >= 1, K >= 1

tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32

kernel mm {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}

schedule mm {
  split k by 2 -> ko0, ki0 partition=always
  privatize c over ki0_tail -> c_acc0
  unroll ki0 materialize
  interchange i, j
}
