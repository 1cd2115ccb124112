# Regression (found by `vsched fuzz`, fixed): the verifier used to refute this legal schedule
# with a counterexample that did not replay. The original finding:
# Found by `vsched fuzz --budget 600 --workers 2 --seed 21` (kind: counterexample): the verifier
# refutes coverage, but the refutation does not replay at its sizes or just above.
# same class as stage_shared_then_split_coverage.vs: after `stage x over i -> x_tile0 shared`, a
# later loop op (here unroll i, interchange b, i) is refuted because the tile load
# L_x_tile0(b=4, i=0) "never runs"; the scheduled kernel runs equal (emulator, races on).
# verifier message: refuted coverage of op 3 (interchange b, i) does not replay at {'B': 5}: original instance L_x_tile0(b=4, i=0) is never executed after the op, at B=5
# fuzz-sizes: B=5
# was: vsched verify stage_shared_unroll_interchange_coverage.vs   # illegal coverage
#            vsched fuzz --reproduce stage_shared_unroll_interchange_coverage.vs   # counterexample finding (does not replay)
# expect: legal
params B where B >= 1

tensor x[B, 4] f32
tensor y[B, 4] f32

kernel g {
  for b in 0 .. B : block.x {
    for i in 0 .. 4 : thread.x {
      y[b, i] = x[b, i] + 1
    }
  }
}

schedule g {
  stage x over i -> x_tile0 shared
  unroll i
  interchange b, i
}
