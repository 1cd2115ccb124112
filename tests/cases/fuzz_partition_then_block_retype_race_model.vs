# Regression (found by `vsched fuzz`, fixed): the verifier used to refute this legal schedule
# with a counterexample that did not replay. The original finding:
# Found by `vsched fuzz --budget 600 --workers 2 --seed 21` (kind: counterexample): the verifier
# refutes race, but the refutation does not replay at its sizes or just above.
# after `partition i at TN` and `retype ip0_0 as block.x`, the second piece (ip1_0, serial)
# runs outside the block loop. The verifier's race model has every block run it (so blocks 0
# and 2 both write c[5, 0]); but the backends run code outside the block loop once: the CUDA
# emission guards it with `blockIdx.x == 0` (vsched emit --target cuda), and the emulator and C
# agree. Rows ip1_0 >= TN never meet the blocks' rows ip0_0 < TN: no race.
# verifier message: refuted race of op 3 (retype ip0_0 as block.x) does not replay at {'TN': 4, 'TM': 1, 'TK': 1}: race on c[5, 0] at TN=4, TM=1, TK=1: S0 at (j=0, ip1_0=5, k=0) (original i=5, j=0, k=0) writing c[5, 0] in block (block.x=2) thread (the only thread) and S0 at (j=0, ip1_0=5, k=0) (original i=5, j=0, k=0) writing c[5, 0] in block (block.x=0) thread (the only thread) run in different blocks, which no barrier orders
# fuzz-sizes: TN=4,TM=1,TK=1
# was: vsched verify partition_then_block_retype_race_model.vs   # illegal race
#            vsched fuzz --reproduce partition_then_block_retype_race_model.vs   # counterexample finding (does not replay)
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
  partition i at TN -> ip0_0, ip1_0
  retype ip0_0 as block.x
}
