# Regression (found by `vsched fuzz`, fixed): as fuzz_privatize_local_acc_across_blocks.vs,
# with a data-dependent guard in the nest: the value flow used to tell a dependence between
# per-thread copies that matters (a value that flows) from one that does not was not computed
# for kernels with data-dependent guards, so every write-read pair counted and the pair
# c_acc0.load(j=0) -> c_acc0.store(j=1) (killed by c_acc0.load(j=1), which always runs) was
# refuted though no run shows it. Now a guarded write is a may-source, an unguarded one still
# kills. Illegal only by hardware_limits (M has no upper bound).
# The original finding (kind: counterexample; `vsched fuzz --budget 600 --workers 2 --seed 404`):
# refuted dependence of op 3 (retype j as thread.x) does not replay at {'N': 1, 'M': 2, 'K': 1}: RAW dependence on c_acc0[0] at N=1, M=2, K=1: c_acc0.load(j=0, i=0) writes it and c_acc0.store(j=1, i=0) reads it; before the op the first runs before the second, after the op they are unordered (may run in parallel or in any order)
# fuzz-sizes: N=1,M=2,K=1
# was: vsched verify counterexample-f3a4d10386.vs   # refutes dependence at N=1,M=2,K=1
# then: vsched run counterexample-f3a4d10386.vs --size N=1,M=2,K=1   # but the kernels agree there
# expect: illegal hardware_limits
params N, M, K where N >= 1, M >= 1, K >= 1

tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32

kernel mm {
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        if a[i, k] > 0 {
          c[i, j] += a[i, k] * b[k, j]
        }
      }
    }
  }
}

schedule mm {
  interchange i, j
  privatize c over k -> c_acc0
  retype j as thread.x
  pad k to 2
}
