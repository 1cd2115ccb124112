# Regression (found by `vsched fuzz`, fixed): the verifier used to refute this legal schedule
# with a counterexample that did not replay. The original finding:
# Found by `vsched fuzz --budget 240 --workers 2` (kind: counterexample): the verifier refutes
# coverage, but the refutation does not replay (the kernels agree at its sizes and above).
# coverage refuted for `split b by 2` after `stage x over i -> x_tile0 shared`: it claims the
# tile load L_x_tile0(b=0, i=3) never runs after the split, but the split kernel runs it (under
# the guard 2 * bo0 + bi0 < B); vsched run --target emulate --races is equal at B=1, 2, 3.
# verifier message: refuted coverage of op 2 (split b by 2 -> bo0, bi0) does not replay at {'B': 1}: original instance L_x_tile0(b=0, i=3) is never executed after the op, at B=1
# fuzz-sizes: B=1
# was: vsched verify stage_shared_then_split_coverage.vs   # illegal coverage
#            vsched run stage_shared_then_split_coverage.vs --size B=1   # ok
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
  split b by 2 -> bo0, bi0
}
