# Regression (found by `vsched fuzz`, fixed): the verifier used to refute this legal schedule
# with a counterexample that did not replay; a dependence the op moves into different copies
# of a local/shared tensor is no longer required (polyhedral/private_copies.py). The original finding:
# Found by `vsched fuzz --budget 240 --workers 2` (kind: counterexample): the verifier refutes
# dependence, but the refutation does not replay (the kernels agree at its sizes and above).
# dependence refuted on a privatized `local` accumulator (s_acc0) between two different blocks;
# local memory is private to each thread, so the blocks cannot conflict on it. The emulator
# (race detector on) and C agree with the unscheduled kernel at the counterexample's sizes.
# verifier message: refuted dependence of op 2 (retype i as block.x) does not replay at {'N': 2, 'K': 1}: WAR dependence on s_acc0[0] at N=2, K=1: s_acc0.store(i=0) reads it and S0(i=1, k=0) writes it; before the op the first runs before the second, after the op they are unordered (may run in parallel or in any order)
# fuzz-sizes: N=2,K=1
# was: vsched verify privatize_local_acc_across_blocks.vs   # illegal dependence
#            vsched run privatize_local_acc_across_blocks.vs --size N=2,K=1   # ok
# expect: legal
params N, K where N >= 1, K >= 1

tensor x[N, K] f32
tensor s[N] f32

kernel red {
  for i in 0 .. N {
    for k in 0 .. K {
      s[i] += x[i, k]
    }
  }
}

schedule red {
  privatize s over k -> s_acc0
  retype i as block.x
}
