# Regression (found by `vsched fuzz`, fixed): after a shift_inward_and_blend tail is
# partitioned, the piece where the blend keeps the old value is a plain `y[I] = y[I]`, which
# stores nothing; the model still let its instances stand for the original instances the main
# tile runs, so the dependence obligation saw them run out of order (a refutation that did not
# replay; with N >= 5 and a split by 4 (this file), where the split applies, it was `unknown`). A `t[I] = t[I]` store now
# stands for no original instance (as a blend's instances where it keeps the old value).
# The original finding (kind: counterexample; `vsched fuzz --budget 600 --workers 2 --seed 202`),
# at N >= 2 with a `pad io0 to 2` more:
# refuted dependence of op 2 (partition ii0_tail auto -> ii0_tailp0_0, ii0_tailp1_0) does not replay at {'N': 18, 'M': 2}: RAW dependence on y[8, 1] at N=18, M=2: S0(i=7, j=1) at (io0_tail=1, ii0_tailp0_0=6, j=1) writes it and S0(i=8, j=0) at (io0=0, ii0=8, j=0) reads it; before the op the first runs before the second, after the op the second runs before the first
# fuzz-sizes: N=18,M=2
# was: vsched verify counterexample-36cd4813a6.vs   # refutes dependence at N=18,M=2
# then: vsched run counterexample-36cd4813a6.vs --size N=18,M=2   # but the kernels agree there
# expect: legal
params N, M where N >= 5, M >= 1

tensor x[N, M] f32
tensor y[N, M + 1] f32

kernel st {
  for i in 0 .. N - 1 {
    for j in 0 .. M {
      y[i + 1, j] = y[i, j + 1] * 0.5 + x[i, j]
    }
  }
}

schedule st {
  split i by 4 -> io0, ii0 tail=shift_inward_and_blend partition=unroll_edges
  partition ii0_tail auto -> ii0_tailp0_0, ii0_tailp1_0
}
