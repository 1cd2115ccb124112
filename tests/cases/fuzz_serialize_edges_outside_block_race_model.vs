# Regression (found by `vsched fuzz`, fixed): the verifier used to refute this legal schedule
# with a counterexample that did not replay. The original finding:
# Found by `vsched fuzz --budget 600 --workers 2 --seed 21` (kind: counterexample): the verifier
# refutes race, but the refutation does not replay at its sizes or just above.
# same class as partition_then_block_retype_race_model.vs: the serialized edge of
# `split b by 2 partition=serialize_edges` runs outside the block loop, which the backends run
# once (CUDA: in block 0); the verifier's race model has every block run it.
# verifier message: refuted race of op 2 (split b by 2 -> bo0, bi0 partition=serialize_edges) does not replay at {'B': 5, 'K': 1}: race on y[4, 3] at B=5, K=1: S0 at (i=3, bo0_tail=2, bi0_tail=0) (original b=4, i=3) writing y[4, 3] in block (block.x=1) thread (thread.x=3) and S0 at (i=3, bo0_tail=2, bi0_tail=0) (original b=4, i=3) writing y[4, 3] in block (block.x=0) thread (thread.x=3) run in different blocks, which no barrier orders
# fuzz-sizes: B=5,K=1
# was: vsched verify serialize_edges_outside_block_race_model.vs   # illegal race
#            vsched fuzz --reproduce serialize_edges_outside_block_race_model.vs   # counterexample finding (does not replay)
# expect: legal
params B, K where B >= 1, K >= 1

tensor x[B, 4, K] f32
tensor y[B, 4] f32

kernel g {
  for b in 0 .. B : block.x {
    for i in 0 .. 4 : thread.x {
      y[b, i] = 0
      for k in 0 .. K {
        y[b, i] += x[b, i, k]
      }
    }
  }
}

schedule g {
  interchange b, i
  split b by 2 -> bo0, bi0 partition=serialize_edges
}
