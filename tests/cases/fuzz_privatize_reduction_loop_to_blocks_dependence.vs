# Regression (found by `vsched fuzz`, fixed): retyping the reduction loop of a privatized
# accumulator onto blocks is illegal (each block sums into its own local copy; the load and
# store outside the block loop run on block 0 and see only its copy), but the verifier's
# counterexample was a pair at K=1 that does not show it: the store outside the block loop was
# modelled as unordered with block 0's instances, though block 0 runs both in program order.
# Now a statement outside a hardware loop runs at index 0 of that axis, in program order with
# that index's instances (KernelModel.before_pair), and the counterexample (K=2) replays.
# The original finding (kind: counterexample; `vsched fuzz --budget 600 --workers 2 --seed 202`):
# refuted dependence of op 3 (retype k as block.y) does not replay at {'N': 2, 'M': 1, 'K': 1}: RAW dependence on c_acc0[0] at N=2, M=1, K=1: S0(i=0, j=0, k=0) writes it and c_acc0.store(i=1, j=0) reads it; before the op the first runs before the second, after the op they are unordered (may run in parallel or in any order)
# fuzz-sizes: N=2,M=1,K=1
# was: vsched verify counterexample-2478741959.vs   # refutes dependence at N=2,M=1,K=1
# then: vsched run counterexample-2478741959.vs --size N=2,M=1,K=1   # but the kernels agree there
# expect: illegal dependence
params N, M, K where N >= 1, M >= 1, K >= 1

tensor a[N, K] f32
tensor b[K, M] f32
tensor bias[M] f32
tensor c[N, M] f32
tensor y[N, M] f32

kernel dense {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
  for i in 0 .. N {
    for j in 0 .. M {
      y[i, j] = max(c[i, j] + bias[j], 0)
    }
  }
}

schedule dense {
  retype k as serial
  privatize c over k -> c_acc0
  retype k as block.y
}
